"""The runtime's public names, pinned (as httpx pins its `__all__`): `mcpgen.runtime` and
`mcpgen.runtime.client.auth` export exactly these, each resolves, and `dir()` lists exactly
them. Everything else in the runtime is private and may move (the `support/` modules, what
generated code imports, are pinned by tests/layout). A change here is a change of the public
API: say it in the README.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest

import mcpgen.runtime
import mcpgen.runtime.client.auth

RUNTIME_ALL = [
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

AUTH_ALL = [
    "AuthError",
    "Authorizer",
    "BearerToken",
    "Challenge",
    "Client",
    "FileTokenStore",
    "Grant",
    "IdentityProvider",
    "KeyringTokenStore",
    "Login",
    "LoopbackBrowser",
    "MemoryTokenStore",
    "OAuth",
    "PasteBack",
    "TokenProvider",
    "TokenStore",
    "Tokens",
    "canonical_resource",
    "config_dir",
    "default_store",
    "parse_challenge",
]

PINNED = [(mcpgen.runtime, RUNTIME_ALL), (mcpgen.runtime.client.auth, AUTH_ALL)]


@pytest.mark.parametrize(("module", "expected"), PINNED, ids=lambda v: getattr(v, "__name__", ""))
def test_all_is_pinned_and_sorted(module: types.ModuleType, expected: list[str]) -> None:
    assert expected == sorted(expected)
    assert module.__all__ == expected


@pytest.mark.parametrize(("module", "expected"), PINNED, ids=lambda v: getattr(v, "__name__", ""))
def test_every_exported_name_resolves_and_dir_lists_exactly_them(module: types.ModuleType, expected: list[str]) -> None:
    for name in expected:
        assert getattr(module, name) is not None, name
    assert dir(module) == expected


def test_the_lazy_table_names_exactly_the_exports() -> None:
    where = mcpgen.runtime._WHERE  # type: ignore[attr-defined]
    assert sorted(where) == mcpgen.runtime.__all__
    with pytest.raises(AttributeError, match="no attribute 'connect_websocket'"):
        mcpgen.runtime.connect_websocket  # noqa: B018


def _loaded_after(code: str) -> list[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('mcpgen'))))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


def test_importing_the_package_or_its_errors_loads_no_session_transport_or_server() -> None:
    heavy = ("mcpgen.runtime.transports", "mcpgen.runtime.server", "mcpgen.runtime.core.session")
    heavy += tuple(f"mcpgen.runtime.client.{m}" for m in ("session", "connect", "negotiation", "typed"))
    for code in (
        "import mcpgen.runtime",
        "import mcpgen.runtime.support.tools",
        "from mcpgen.runtime import McpError, ToolError, InvalidArguments",
    ):
        loaded = _loaded_after(code)
        assert [m for m in loaded if m.startswith(heavy)] == [], code
    # A name from the client side loads the client side.
    assert "mcpgen.runtime.client.connect" in _loaded_after("from mcpgen.runtime import connect_stdio")
