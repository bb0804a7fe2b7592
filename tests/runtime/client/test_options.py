"""Connection options: declared once (client/options.py), mirrored as typed keywords, and carried
to the session by every connect path (runtime and typed clients, async and sync, stdio and HTTP)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, get_type_hints

import pydantic
import pytest
from rt_support import PY, RUNTIME_SERVER, run, wait_until
from serving import serving

from mcpgen.runtime import (
    CallOptions,
    ClientOptions,
    ClientSession,
    ConnectOptions,
    HttpOptions,
    RequestTimeout,
    SchemaDriftError,
    StdioOptions,
    connect_http,
    connect_stdio,
)
from mcpgen.runtime.client import options as options_module
from mcpgen.runtime.client.catalog import ToolCatalog
from mcpgen.runtime.client.options import (
    CallKwargs,
    ClientConnectKwargs,
    ClientHttpKwargs,
    ClientKwargs,
    ClientStdioKwargs,
    ConnectKwargs,
    HttpKwargs,
    StdioKwargs,
)
from mcpgen.runtime.client.typed import AsyncClientBase, SyncClientBase, sync_method
from mcpgen.runtime.core.tables import ResultMode, ToolRow
from mcpgen.runtime.support.client import ToolOutputError, ToolOutputWarning
from mcpgen.runtime.transports.http_client import StreamableHttpTransport

pytestmark = pytest.mark.timeout(120)

LEGACY = "2025-06-18"  # a pinned handshake-era version: proves `protocol` reached the session
MODERN = "2026-07-28"

# -- declared once, mirrored exactly -------------------------------------------------------

MIRRORS: list[tuple[type[Any], type[Any]]] = [
    (ConnectKwargs, ConnectOptions),
    (StdioKwargs, StdioOptions),
    (HttpKwargs, HttpOptions),
    (ClientKwargs, ClientOptions),
    (CallKwargs, CallOptions),
]


def _field_types(options: type[Any]) -> dict[str, Any]:
    hints = get_type_hints(options)
    return {f.name: hints[f.name] for f in dataclasses.fields(options)}


@pytest.mark.parametrize("kwargs, options", MIRRORS, ids=[o.__name__ for _, o in MIRRORS])
def test_keywords_mirror_the_options_object(kwargs: type[Any], options: type[Any]) -> None:
    """Same names, same types, nothing missing on either side; every keyword optional."""
    assert get_type_hints(kwargs) == _field_types(options)
    assert kwargs.__required_keys__ == frozenset()
    # Optional as a keyword means the dataclass has the default that applies when it is left out.
    assert all(f.default is not dataclasses.MISSING for f in dataclasses.fields(options))


@pytest.mark.parametrize(
    "combined, parts",
    [
        (ClientStdioKwargs, [StdioOptions, ClientOptions]),
        (ClientHttpKwargs, [HttpOptions, ClientOptions]),
        (ClientConnectKwargs, [StdioOptions, HttpOptions, ClientOptions]),
    ],
    ids=["connect_stdio", "connect_http", "connect"],
)
def test_typed_client_keywords_are_the_union_of_the_options(combined: type[Any], parts: list[type[Any]]) -> None:
    expected: dict[str, Any] = {}
    for part in parts:
        expected.update(_field_types(part))
    assert get_type_hints(combined) == expected
    assert combined.__required_keys__ == frozenset()


def test_every_option_has_a_one_line_doc() -> None:
    """The attribute docstring under each field is its documentation (IDEs show it)."""
    tree = ast.parse(Path(options_module.__file__).read_text(encoding="utf-8"))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for _, options in MIRRORS:
        body = classes[options.__name__].body
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.AnnAssign):
                name = ast.unparse(stmt.target)
                doc = body[i + 1] if i + 1 < len(body) else None
                assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant), f"{options.__name__}.{name}"
                assert isinstance(doc.value.value, str) and "\n" not in doc.value.value.strip(), name


# -- building an options object --------------------------------------------------------------


def test_keywords_override_the_object_and_an_object_is_never_changed() -> None:
    base = StdioOptions(timeout=5.0, cwd="/tmp")
    built = StdioOptions.build(base, {"timeout": 9.0}, caller="connect_stdio")
    assert (built.timeout, built.cwd) == (9.0, "/tmp")
    assert base.timeout == 5.0
    assert StdioOptions.build(base, {}, caller="connect_stdio") is base
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
        base.timeout = 1.0  # type: ignore[misc]


def test_common_options_widen_to_a_transport_and_the_wrong_transport_is_refused() -> None:
    common = ConnectOptions(protocol=LEGACY, log_level="debug")
    stdio = StdioOptions.build(common, {"shutdown_grace": 0.5}, caller="connect_stdio")
    assert (type(stdio), stdio.protocol, stdio.log_level, stdio.shutdown_grace) == (StdioOptions, LEGACY, "debug", 0.5)
    with pytest.raises(TypeError, match=r"connect_stdio\(\) takes options=StdioOptions\(\.\.\.\), not HttpOptions"):
        StdioOptions.build(HttpOptions(), {}, caller="connect_stdio")


def test_unknown_keywords_and_values_outside_a_closed_set_are_errors() -> None:
    with pytest.raises(TypeError, match=r"connect_stdio\(\) got an unexpected keyword argument 'timeuot'"):
        StdioOptions.build(None, {"timeuot": 3}, caller="connect_stdio")
    with pytest.raises(TypeError, match="'headers'"):
        StdioOptions.build(None, {"headers": {}}, caller="connect_stdio")
    with pytest.raises(ValueError, match="transport must be one of 'auto', 'streamable', 'sse', not 'websocket'"):
        HttpOptions(transport="websocket")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="drift"):
        ClientOptions(drift="loud")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="validate_output"):
        CallOptions(validate_output="sometimes")  # type: ignore[arg-type]


def test_client_session_takes_the_object_or_keywords() -> None:
    async def on_sampling(params: dict[str, Any]) -> dict[str, Any]:
        return {}

    transport = StreamableHttpTransport("http://127.0.0.1:1/mcp")
    try:
        opts = ConnectOptions(
            timeout=4.0, max_timeout=8.0, on_sampling=on_sampling, client_info={"name": "t", "version": "1"}
        )
        session = ClientSession(transport, opts, log_level="info")
        assert session.options == dataclasses.replace(opts, log_level="info")
        assert (session.session.timeout, session.session.max_timeout) == (4.0, 8.0)
        assert session.client_info == {"name": "t", "version": "1"} and session.log_level == "info"
        assert session.capabilities() == {"sampling": {}}
        assert ClientSession(transport, timeout=2.0).options == ConnectOptions(timeout=2.0)
        with pytest.raises(TypeError, match=r"ClientSession\(\) got an unexpected keyword argument 'cwd'"):
            ClientSession(transport, cwd="/")  # type: ignore[call-arg]
    finally:
        run(transport.close())


# -- the runtime's connect functions ------------------------------------------------------------


def _log_collector() -> tuple[list[Any], Any]:
    seen: list[Any] = []

    def on_log(params: dict[str, Any]) -> None:
        seen.append(params.get("data"))

    return seen, on_log


def test_connect_stdio_carries_the_options_to_the_session(tmp_path: Path) -> None:
    seen, on_log = _log_collector()
    wire = tmp_path / "wire.jsonl"
    opts = StdioOptions(protocol=LEGACY, timeout=7.0, on_log=on_log, cwd=str(tmp_path), wire_log=str(wire))

    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER], options=opts, max_timeout=30.0) as session:
            assert session.options == dataclasses.replace(opts, max_timeout=30.0)
            assert (session.era, session.protocol_version) == ("legacy", LEGACY)
            assert (session.session.timeout, session.session.max_timeout) == (7.0, 30.0)
            assert session.transport.cwd == str(tmp_path)  # type: ignore[attr-defined]
            await session.call_tool("log", {"message": "hello"})
            await wait_until(lambda: seen == ["hello"], 5.0, "the server's log message reaches on_log")

    run(main())
    sent = [json.loads(json.loads(line)["line"]) for line in wire.read_text(encoding="utf-8").splitlines()]
    assert sent[0]["method"] == "initialize"  # the wire log got the traffic from the start


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with serving([PY, RUNTIME_SERVER, "--http", "--port", "{port}"]) as url:
        yield url


def test_connect_http_carries_the_options_to_the_session(http_url: str) -> None:
    seen, on_log = _log_collector()

    async def main() -> None:
        opts = HttpOptions(headers={"X-Trace": "abc"}, transport="streamable", on_log=on_log)
        async with connect_http(http_url, options=opts, protocol=LEGACY, timeout=6.0) as session:
            assert session.options == dataclasses.replace(opts, protocol=LEGACY, timeout=6.0)
            assert isinstance(session.transport, StreamableHttpTransport)
            assert session.transport.headers["X-Trace"] == "abc"
            assert (session.era, session.protocol_version, session.session.timeout) == ("legacy", LEGACY, 6.0)
            await session.call_tool("log", {"message": "over http"})
            await wait_until(lambda: seen == ["over http"], 5.0, "the server's log message reaches on_log")

    run(main())


def test_connect_refuses_options_it_does_not_take_before_starting_anything() -> None:
    async def main() -> None:
        with pytest.raises(TypeError, match=r"connect_stdio\(\) got an unexpected keyword argument 'headers'"):
            async with connect_stdio(PY, [RUNTIME_SERVER], headers={"a": "b"}):  # type: ignore[call-arg]
                pass
        with pytest.raises(TypeError, match="not StdioOptions"):
            async with connect_http("http://127.0.0.1:1/mcp", options=StdioOptions()):  # type: ignore[arg-type]
                pass

    run(main())


# -- typed clients -------------------------------------------------------------------------------


class WeatherArgs(pydantic.BaseModel):
    city: str


class WeatherResult(pydantic.BaseModel):
    city: str
    temperature_c: int  # the server sends 21.5: a result that fails its (stricter) schema here
    conditions: str


def _models() -> ModuleType:
    module = ModuleType("options_test_models")
    module.WeatherArgs = WeatherArgs  # type: ignore[attr-defined]
    module.WeatherResult = WeatherResult  # type: ignore[attr-defined]
    return module


# The live echo tool's schema hash would match; this one does not (drift="strict" must raise).
_CATALOG = ToolCatalog(
    tools_json=(json.dumps({"name": "weather", "inputSchema": {"type": "object"}}),),
    table={"weather": ToolRow("WeatherArgs", "WeatherResult", ResultMode.MODEL)},
    schema_hashes={"echo": "0" * 16},
    method_names={},
    source_command=(PY, RUNTIME_SERVER),
)


class AsyncClient(AsyncClientBase):
    _catalog = _CATALOG

    @staticmethod
    def _load_models() -> ModuleType:
        return _models()

    async def weather(self, *, city: str) -> WeatherResult:
        result: WeatherResult = await self._call("weather", {"city": city})
        return result


class Client(SyncClientBase[AsyncClient]):
    _async_client: ClassVar[type[AsyncClientBase]] = AsyncClient
    weather = sync_method(AsyncClient.weather)


async def _check_typed(c: AsyncClient, seen: list[Any], protocol: str, timeout: float) -> None:
    """What every typed connect below asked for is what its session and calls use."""
    assert (c.session.protocol_version, c.session.session.timeout) == (protocol, timeout)
    await c.call_tool("log", {"message": "typed"})
    await wait_until(lambda: seen == ["typed"], 5.0, "the server's log message reaches on_log")
    with pytest.warns(ToolOutputWarning):  # validate_output="warn" from connect
        assert await c.weather(city="Oslo") == {"city": "Oslo", "temperature_c": 21.5, "conditions": "sunny"}
    with pytest.raises(ToolOutputError, match=r"^tool 'weather': output does not match outputSchema: "):
        await c.with_options(validate_output="strict").weather(city="Oslo")
    with pytest.raises(RequestTimeout, match=r"^tools/call got no response within "):
        await c.with_options(timeout=0.2).call_tool("slow", {"seconds": 5})


def test_async_typed_client_over_stdio() -> None:
    seen, on_log = _log_collector()

    async def main() -> None:
        opts = StdioOptions(protocol=LEGACY, on_log=on_log)
        async with AsyncClient.connect_stdio(
            PY, [RUNTIME_SERVER], options=opts, timeout=9.0, drift="off", validate_output="warn"
        ) as c:
            await _check_typed(c, seen, LEGACY, 9.0)
        with pytest.raises(SchemaDriftError, match="tools differ from the ones this client was generated from"):
            async with AsyncClient.connect_stdio(PY, [RUNTIME_SERVER], drift="strict"):
                pass

    run(main())


def test_async_typed_client_over_http(http_url: str) -> None:
    seen, on_log = _log_collector()

    async def main() -> None:
        async with AsyncClient.connect_http(
            http_url,
            options=ConnectOptions(on_log=on_log, timeout=8.0),
            # 2026-07-28: logs only at a level the request asks for
            log_level="info",
            headers={"X-Trace": "t"},
            protocol=MODERN,
            drift="off",
            validate_output="warn",
        ) as c:
            assert c.session.transport.headers["X-Trace"] == "t"  # type: ignore[attr-defined]
            await _check_typed(c, seen, MODERN, 8.0)

    run(main())


def test_sync_typed_client_over_stdio_and_http(http_url: str) -> None:
    seen: list[Any] = []

    def on_log(params: dict[str, Any]) -> None:  # runs on the client's loop thread
        seen.append(params.get("data"))

    for connect in (
        lambda **kw: Client.connect_stdio(PY, [RUNTIME_SERVER], **kw),
        lambda **kw: Client.connect_http(http_url, **kw),
        lambda **kw: Client.connect(**kw),  # the catalog's source command
    ):
        seen.clear()
        with connect(
            options=ConnectOptions(on_log=on_log), protocol=LEGACY, timeout=5.0, drift="off", validate_output="warn"
        ) as c:
            assert (c.session.protocol_version, c.session.session.timeout) == (LEGACY, 5.0)
            c.call_tool("log", {"message": "sync"})
            c._runner.run(wait_until(lambda: seen == ["sync"], 5.0, "the server's log message reaches on_log"))
            with pytest.warns(ToolOutputWarning):
                c.weather(city="Oslo")
            with pytest.raises(ToolOutputError, match=r"^tool 'weather': output does not match outputSchema: "):
                c.with_options(validate_output="strict").weather(city="Oslo")
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.2s$"):
                c.with_options(timeout=0.2).call_tool("slow", {"seconds": 5})


def test_connect_refuses_the_other_transports_options() -> None:
    with pytest.raises(TypeError, match="starts a stdio server: headers, transport apply only to the other transport"):
        AsyncClient.connect(headers={"a": "b"}, transport="sse")
    with pytest.raises(TypeError, match="starts a stdio server: headers"):
        with Client.connect(headers={"a": "b"}):
            pass


def test_typed_keywords_are_checked_before_the_server_starts() -> None:
    async def main() -> None:
        with pytest.raises(TypeError, match=r"connect_stdio\(\) got an unexpected keyword argument 'timeuot'"):
            async with AsyncClient.connect_stdio(PY, ["-c", "raise SystemExit(9)"], timeuot=3):  # type: ignore[call-arg]
                pass
        with pytest.raises(ValueError, match="drift"):
            async with AsyncClient.connect_stdio(PY, ["-c", "raise SystemExit(9)"], drift="loud"):  # type: ignore[arg-type]
                pass

    run(main())


class _NoSession:
    def know_tools(self, tools: object) -> None:
        pass


def test_per_call_options_object_and_keywords() -> None:
    c = AsyncClient(_NoSession(), CallOptions(timeout=3.0), validate_output="off")  # type: ignore[arg-type]
    assert c._per_call == CallOptions(timeout=3.0, validate_output="off")
    view = c.with_options(validate_output="warn")
    assert view._per_call == CallOptions(timeout=3.0, validate_output="warn")
    assert c._per_call.validate_output == "off"  # a view never changes the client it came from
    with pytest.raises(TypeError, match=r"with_options\(\) got an unexpected keyword argument 'progres'"):
        c.with_options(progres=None)  # type: ignore[call-arg]


# -- mypy sees the options in user code -------------------------------------------------------

# A user's script. Lines marked `# error: CODE` must be reported by mypy --strict with that code;
# every other line must pass (so the errors are about the options, not anything else).
USER_SCRIPT = """
from __future__ import annotations

from types import ModuleType
from typing import Any

from mcpgen.runtime import ClientSession, ConnectOptions, HttpOptions, StdioOptions, connect_http, connect_stdio
from mcpgen.runtime.support.client import AsyncClientBase, SyncClientBase, ToolCatalog


class AsyncClient(AsyncClientBase):
    _catalog = ToolCatalog(tools_json=(), table={}, schema_hashes={}, method_names={})

    @staticmethod
    def _load_models() -> ModuleType:
        raise NotImplementedError


class Client(SyncClientBase[AsyncClient]):
    _async_client = AsyncClient


async def on_sampling(params: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi"}}


def on_progress(progress: float, total: float | None, message: str | None) -> None:
    print(progress, total, message)


async def runtime() -> None:
    async with connect_stdio("srv", ["--x"], protocol="auto", timeout=5.0, connect_timeout=9.0, cwd="/", env={},
                             on_sampling=on_sampling, wire_log="w.jsonl") as s:
        print(s.options.timeout)
    async with connect_http("http://h/mcp", headers={"A": "b"}, transport="sse", options=HttpOptions()) as s:
        print(s.protocol_version)
    async with connect_stdio("srv", timeuot=3) as s:  # error: call-arg
        pass
    async with connect_http("http://h/mcp", timeout="3") as s:  # error: arg-type
        pass
    async with connect_stdio("srv", headers={}) as s:  # error: call-arg
        pass
    async with connect_http("http://h/mcp", transport="websocket") as s:  # error: arg-type
        pass
    ClientSession(s.transport, ConnectOptions(timeout=1.0), log_level="info")
    ClientSession(s.transport, on_sampling=on_progress)  # error: arg-type
    StdioOptions(timeuot=1.0)  # error: call-arg


async def typed() -> None:
    async with AsyncClient.connect_stdio("srv", [], options=StdioOptions(cwd="/"), timeout=5.0, drift="off",
                                         validate_output="warn", on_sampling=on_sampling) as c:
        await c.with_options(timeout=5.0, progress=on_progress, validate_output="warn").call_tool("t")
        await c.with_options(timeuot=5.0).call_tool("t")  # error: call-arg
        await c.with_options(progress=on_sampling).call_tool("t")  # error: arg-type
    async with AsyncClient.connect_http("http://h/mcp", headers={"A": "b"}, protocol="legacy") as c:
        pass
    async with AsyncClient.connect_stdio("srv", connect_timout=9.0) as c:  # error: call-arg
        pass
    async with AsyncClient.connect_http("http://h/mcp", drift="loud") as c:  # error: arg-type
        pass
    async with AsyncClient.connect(env={}, timeout=1.0) as c:
        pass
    async with AsyncClient.connect(timeout=None, validate_output="sometimes") as c:  # error: arg-type
        pass


def sync() -> None:
    with Client.connect_stdio("srv", validate_output="warn", on_sampling=on_sampling) as c:
        c.with_options(timeout=1.0).call_tool("t")
        c.with_options(timeout="1").call_tool("t")  # error: arg-type
    with Client.connect_http("http://h/mcp", cwd="/") as c:  # error: call-arg
        pass
    with Client.connect(protocl="auto") as c:  # error: call-arg
        pass
"""


@pytest.mark.slow
def test_mypy_flags_misspelled_and_mistyped_options_in_user_code(tmp_path: Path) -> None:
    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    expected = {
        (number, line.rsplit("# error: ", 1)[1].strip())
        for number, line in enumerate(USER_SCRIPT.splitlines(), start=1)
        if "# error: " in line
    }
    # The development install as it is (no MYPYPATH): mypy must find mcpgen by itself.
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--python-version",
            "3.11",
            "--show-error-codes",
            "--no-error-summary",
            script.name,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    reported = set()
    for line in done.stdout.splitlines():
        match = re.match(r"user_script\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        if match:
            reported.add((int(match[1]), match[2]))
        else:
            assert ": note: " in line, line  # nothing but errors on the script and their notes
    assert reported == expected, done.stdout + done.stderr
