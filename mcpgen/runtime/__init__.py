"""mcpgen.runtime: JSON-RPC framing, the MCP lifecycle in both eras, transports.

The public API is `__all__` below (pinned by tests/runtime/test_public_names.py), plus
`mcpgen.runtime.client.auth` (its own `__all__`) and the `support/` modules, which are what
generated code imports. Every other module and name may move or change between releases.

Imports nothing from the rest of mcpgen and only the standard library, so that
`--runtime vendor` can copy it into a generated package as it is. The names below load on
first use: importing one light module (say `support.tools`, what a code-mode tool module
imports) never pays for the sessions, the transports and the server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client.apps import AppUi
    from .client.connect import connect_http, connect_memory, connect_stdio
    from .client.drift import Drift, compare_tools, schema_hash
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
    from .client.session import ClientSession
    from .client.skills import Skill, SkillDirectoryEntry, SkillFile, SkillFileContent
    from .client.subscriptions import ChangeEvent, Subscription
    from .client.tasks import ToolTask
    from .core.errors import (
        AuthError,
        AuthServerUnavailable,
        ConnectionClosed,
        CrossOriginUrl,
        HttpError,
        InvalidArguments,
        InvalidToken,
        McpError,
        MessageTooLarge,
        ProtocolError,
        RequestTimeout,
        RpcError,
        SchemaDriftError,
        SchemaDriftWarning,
        SchemaMismatch,
        ServersConfigError,
        ServerSetupError,
        SessionExpired,
        SkillVerificationError,
        StoreUnavailable,
        TaskFailed,
        ToolChangedError,
        ToolError,
        ToolOutputError,
        ToolOutputWarning,
    )
    from .core.protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS
    from .core.session import ProgressCallback, Session
    from .server.cache_hints import CacheHint
    from .server.connection import ServerConnection
    from .server.context import RequestContext
    from .server.server import Server
    from .server.skills import serve_skills
    from .server.tasks import TaskLimits
    from .server.tool_serving import error_result

# public name -> the module that defines it (loaded on first use)
_WHERE = {
    "AppUi": ".client.apps",
    "AuthError": ".core.errors",
    "AuthServerUnavailable": ".core.errors",
    "CacheHint": ".server.cache_hints",
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
    "HttpError": ".core.errors",
    "HttpOptions": ".client.options",
    "InvalidArguments": ".core.errors",
    "InvalidToken": ".core.errors",
    "ListChangedCallback": ".client.options",
    "LogCallback": ".client.options",
    "MODERN_VERSIONS": ".core.protocol",
    "McpError": ".core.errors",
    "MessageTooLarge": ".core.errors",
    "ProgressCallback": ".core.session",
    "ProtocolError": ".core.errors",
    "RequestContext": ".server.context",
    "RequestTimeout": ".core.errors",
    "RootsCallback": ".client.options",
    "RpcError": ".core.errors",
    "SamplingCallback": ".client.options",
    "SchemaDriftError": ".core.errors",
    "SchemaDriftWarning": ".core.errors",
    "SchemaMismatch": ".core.errors",
    "Server": ".server.server",
    "ServerConnection": ".server.connection",
    "ServerSetupError": ".core.errors",
    "ServersConfigError": ".core.errors",
    "Session": ".core.session",
    "SessionExpired": ".core.errors",
    "Skill": ".client.skills",
    "SkillDirectoryEntry": ".client.skills",
    "SkillFile": ".client.skills",
    "SkillFileContent": ".client.skills",
    "SkillVerificationError": ".core.errors",
    "StdioOptions": ".client.options",
    "StoreUnavailable": ".core.errors",
    "Subscription": ".client.subscriptions",
    "TaskFailed": ".core.errors",
    "TaskLimits": ".server.tasks",
    "ToolChangedError": ".core.errors",
    "ToolTask": ".client.tasks",
    "ToolError": ".core.errors",
    "ToolOutputError": ".core.errors",
    "ToolOutputWarning": ".core.errors",
    "compare_tools": ".client.drift",
    "connect_http": ".client.connect",
    "connect_memory": ".client.connect",
    "connect_stdio": ".client.connect",
    "error_result": ".server.tool_serving",
    "schema_hash": ".client.drift",
    "serve_skills": ".server.skills",
}

__all__ = [
    "AppUi",
    "AuthError",
    "AuthServerUnavailable",
    "CacheHint",
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
    "HttpError",
    "HttpOptions",
    "InvalidArguments",
    "InvalidToken",
    "ListChangedCallback",
    "LogCallback",
    "MODERN_VERSIONS",
    "McpError",
    "MessageTooLarge",
    "ProgressCallback",
    "ProtocolError",
    "RequestContext",
    "RequestTimeout",
    "RootsCallback",
    "RpcError",
    "SamplingCallback",
    "SchemaDriftError",
    "SchemaDriftWarning",
    "SchemaMismatch",
    "Server",
    "ServerConnection",
    "ServerSetupError",
    "ServersConfigError",
    "Session",
    "SessionExpired",
    "Skill",
    "SkillDirectoryEntry",
    "SkillFile",
    "SkillFileContent",
    "SkillVerificationError",
    "StdioOptions",
    "StoreUnavailable",
    "Subscription",
    "TaskFailed",
    "TaskLimits",
    "ToolChangedError",
    "ToolError",
    "ToolOutputError",
    "ToolOutputWarning",
    "ToolTask",
    "compare_tools",
    "connect_http",
    "connect_memory",
    "connect_stdio",
    "error_result",
    "schema_hash",
    "serve_skills",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
