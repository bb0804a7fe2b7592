"""What a scaffolded server package imports."""

from ..core.errors import RpcError
from ..core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from ..core.protocol import ERA_MODERN
from ..core.validation import EXACT_CONTEXT_KEY, compile_validator
from ..server.server import RequestContext, Server, error_result
from ..transports.http_server import serve_http

__all__ = [
    "ERA_MODERN",
    "EXACT_CONTEXT_KEY",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "RequestContext",
    "RpcError",
    "Server",
    "compile_validator",
    "error_result",
    "serve_http",
]
