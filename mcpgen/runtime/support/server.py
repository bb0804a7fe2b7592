"""What a scaffolded server package imports (`serve_http` loads uvicorn only when called).

A server started over stdio imports this module too, and must not pay for the HTTP server it
does not run: the HTTP flags come from light modules (http_limits, workers, store.options,
auth.settings) and `serve_http` loads the HTTP server when it is called (see workers.py).
"""

from ..core.errors import RpcError, ToolError
from ..core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from ..core.protocol import ERA_MODERN
from ..core.results import ToolResult
from ..core.validation import EXACT_CONTEXT_KEY, compile_validator
from ..server.adapter import (
    CompletionHook,
    Context,
    PromptOutput,
    ResourceOutput,
    SubscriptionHook,
    ToolOutput,
    bind_handlers,
)
from ..server.auth.info import AuthInfo, requires_scopes
from ..server.auth.settings import AuthSettings, add_auth_arguments, auth_from_args, refuse_auth_without_http
from ..server.server import RequestContext, Server, error_result
from ..server.store import Store
from ..server.store.options import add_store_arguments, store_from_args
from ..transports.http_limits import HttpLimits, add_limit_arguments, limits_from_args, refuse_http_flags_without_http
from ..transports.workers import Supervision, add_worker_arguments, serve_http, serve_http_workers, workers_from_args

__all__ = [
    "AuthInfo",
    "AuthSettings",
    "CompletionHook",
    "Context",
    "HttpLimits",
    "PromptOutput",
    "RequestContext",
    "ResourceOutput",
    "Server",
    "Store",
    "Supervision",
    "SubscriptionHook",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "add_auth_arguments",
    "add_limit_arguments",
    "add_store_arguments",
    "add_worker_arguments",
    "auth_from_args",
    "refuse_auth_without_http",
    "refuse_http_flags_without_http",
    "bind_handlers",
    "limits_from_args",
    "requires_scopes",
    "serve_http",
    "serve_http_workers",
    "store_from_args",
    "workers_from_args",
    # Imported by servers generated before the adapter moved into the runtime: they keep
    # running on this runtime until regenerated.
    "ERA_MODERN",
    "EXACT_CONTEXT_KEY",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "RpcError",
    "compile_validator",
    "error_result",
]
