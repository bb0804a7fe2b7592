"""mcpgen.runtime: JSON-RPC framing, the MCP lifecycle in both eras, transports.

Imports nothing from the rest of mcpgen and only the standard library, so that
`--runtime vendor` can copy it into a generated package as it is. The names below load on
first use: importing one light module (say `support.tools`, what a code-mode tool module
imports) never pays for the sessions, the transports and the server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# public name -> the module that defines it
_WHERE = {
    "CallOptions": ".client.options",
    "ChangeEvent": ".client.subscriptions",
    "ClientOptions": ".client.options",
    "ClientSession": ".client.session",
    "ConnectOptions": ".client.options",
    "ConnectionClosed": ".core.errors",
    "CrossOriginUrl": ".core.errors",
    "Drift": ".client.drift",
    "ElicitationCallback": ".client.options",
    "HANDSHAKE_VERSIONS": ".core.protocol",
    "HttpOptions": ".client.options",
    "InvalidArguments": ".core.errors",
    "ListChangedCallback": ".client.options",
    "LogCallback": ".client.options",
    "MODERN_VERSIONS": ".core.protocol",
    "McpError": ".core.errors",
    "MessageTooLarge": ".core.errors",
    "ProgressCallback": ".core.session",
    "ProtocolError": ".core.errors",
    "RequestContext": ".server.server",
    "RequestTimeout": ".core.errors",
    "RootsCallback": ".client.options",
    "RpcError": ".core.errors",
    "SamplingCallback": ".client.options",
    "SchemaDriftError": ".client.drift",
    "SchemaDriftWarning": ".client.drift",
    "Server": ".server.server",
    "ServerConnection": ".server.server",
    "Session": ".core.session",
    "SessionExpired": ".core.errors",
    "StdioOptions": ".client.options",
    "Subscription": ".client.subscriptions",
    "compare_tools": ".client.drift",
    "connect_http": ".client.session",
    "connect_memory": ".client.session",
    "connect_stdio": ".client.session",
    "error_result": ".server.server",
    "schema_hash": ".client.drift",
}

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


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
