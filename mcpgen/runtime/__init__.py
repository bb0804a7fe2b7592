"""mcpgen.runtime: JSON-RPC framing, the MCP lifecycle in both eras, transports.

Imports nothing from the rest of mcpgen and only the standard library, so that
`--runtime vendor` can copy it into a generated package as it is.
"""

from .client.drift import Drift, SchemaDriftError, SchemaDriftWarning, compare_tools, schema_hash
from .client.options import (
    CallOptions,
    ClientOptions,
    ConnectOptions,
    ElicitationCallback,
    HttpOptions,
    ListChangedCallback,
    LogCallback,
    RootsCallback,
    SamplingCallback,
    StdioOptions,
)
from .client.session import ClientSession, connect_http, connect_memory, connect_stdio
from .client.subscriptions import ChangeEvent, Subscription
from .core.errors import (
    ConnectionClosed,
    CrossOriginUrl,
    InvalidArguments,
    McpError,
    MessageTooLarge,
    ProtocolError,
    RequestTimeout,
    RpcError,
    SessionExpired,
)
from .core.protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS
from .core.session import ProgressCallback, Session
from .server.server import RequestContext, Server, ServerConnection, error_result

__all__ = [
    "CallOptions",
    "ChangeEvent",
    "ClientOptions",
    "ClientSession",
    "ConnectOptions",
    "ConnectionClosed",
    "CrossOriginUrl",
    "Drift",
    "ElicitationCallback",
    "HANDSHAKE_VERSIONS",
    "HttpOptions",
    "InvalidArguments",
    "ListChangedCallback",
    "LogCallback",
    "McpError",
    "MessageTooLarge",
    "MODERN_VERSIONS",
    "ProgressCallback",
    "ProtocolError",
    "RequestContext",
    "RequestTimeout",
    "RootsCallback",
    "RpcError",
    "SamplingCallback",
    "SchemaDriftError",
    "SchemaDriftWarning",
    "Server",
    "ServerConnection",
    "Session",
    "SessionExpired",
    "StdioOptions",
    "Subscription",
    "connect_http",
    "connect_memory",
    "compare_tools",
    "connect_stdio",
    "error_result",
    "schema_hash",
]
