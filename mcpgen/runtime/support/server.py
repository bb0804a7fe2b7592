"""What a scaffolded server package imports (`serve_http` loads uvicorn only when called).

A server started over stdio imports this module too, and must not pay for the HTTP server it
does not run: `serve_main` (its `__main__`) builds the command line from light modules
(server/command.py, options.py, http/limits.py, store/options.py, auth/settings.py), and
`serve_http` loads the HTTP server when it is called (see server/http/serving.py).
"""

from ..core.errors import RpcError, ToolError
from ..core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from ..core.protocol import ERA_MODERN
from ..core.results import ToolResult
from ..core.tables import HandledItem, HandledTool, ResultMode
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
from ..server.auth.settings import AuthSettings
from ..server.cache_hints import CacheHint
from ..server.command import serve_main
from ..server.http.limits import HttpLimits
from ..server.http.security import HttpSecurity
from ..server.http.serving import serve_http
from ..server.http.workers import Supervision, serve_http_workers
from ..server.options import ServeOptions
from ..server.server import RequestContext, Server, error_result
from ..server.store import Store
from ..server.tasks import TaskLimits

__all__ = [
    "HandledItem",
    "HandledTool",
    "ResultMode",
    "AuthInfo",
    "AuthSettings",
    "CacheHint",
    "CompletionHook",
    "Context",
    "HttpLimits",
    "HttpSecurity",
    "PromptOutput",
    "RequestContext",
    "ResourceOutput",
    "ServeOptions",
    "Server",
    "Store",
    "Supervision",
    "TaskLimits",
    "SubscriptionHook",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "bind_handlers",
    "requires_scopes",
    "serve_http",
    "serve_http_workers",
    "serve_main",
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
