"""Streamable HTTP (both eras) and legacy HTTP+SSE, with real server processes on 127.0.0.1.

- runtime client  <->  tests/peers/runtime_server.py --http   (mcpgen.runtime.server.http)
- runtime client  <->  tests/peers/sdk_server.py --http / --sse (official SDK, PyPI ``mcp``)
- official SDK client  <->  runtime HTTP server
- runtime client  <->  npm server-everything in its streamableHttp mode
- raw HTTP against the runtime server: DNS-rebinding checks, stateless-era status codes, sessions
- tests/peers/faulty_http_server.py: 500, HTML, truncated body, cut SSE stream, slow server
- a client that goes away cancels the handler

Servers are started as subprocesses on a free port and stopped in teardown; the autouse fixture in
conftest.py checks that no child process is left.
"""

from __future__ import annotations

import asyncio
import shutil
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from rt_support import (
    EVERYTHING_JS,
    PEERS,
    PY,
    RUNTIME_SERVER,
    SDK_SERVER,
    read_lines,
    run,
    slow_events,
    text_of,
    wait_until,
)
from serving import ServerProcess, free_port, needs_peer

from mcpgen.runtime import ConnectionClosed, McpError, RequestTimeout, RpcError, connect_http
from mcpgen.runtime.transports import http_client

pytestmark = pytest.mark.timeout(120)

FAULTY_HTTP_SERVER = str(PEERS / "faulty_http_server.py")
LOOPBACK_ONLY_MJS = PEERS / "loopback_only.mjs"
NODE = shutil.which("node")

EXPECTED_TOOLS = {"echo", "add", "slow", "progress", "log", "crash", "big", "weather"}
# protocol= argument -> (session.era, session.protocol_version) against a dual-era server
ERAS = {
    "legacy": ("legacy", "2025-11-25"),
    "2026-07-28": ("modern", "2026-07-28"),
    "auto": ("modern", "2026-07-28"),
}
MODERN = "2026-07-28"
PV_META = "io.modelcontextprotocol/protocolVersion"


# --------------------------------------------------------------------------------------------
# server processes
# --------------------------------------------------------------------------------------------


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """Factory: spawn(argv) -> a started ServerProcess on a free port, stopped in teardown."""
    started: list[ServerProcess] = []

    def start(argv: Sequence[str], *, port_env: str | None = None, path: str = "/mcp") -> ServerProcess:
        """The port goes in ``--port N``, or in the environment variable ``port_env``."""
        full = list(argv) if port_env else [*argv, "--port", "{port}"]
        server = ServerProcess(full, env={port_env: "{port}"} if port_env else None, path=path, log_dir=tmp_path)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


def _module_server(
    tmp_path_factory: pytest.TempPathFactory, argv: Sequence[str], path: str = "/mcp"
) -> Iterator[ServerProcess]:
    server = ServerProcess([*argv, "--port", "{port}"], path=path, log_dir=tmp_path_factory.mktemp("http"))
    server.start()
    try:
        yield server
        server.assert_alive()  # a module server that died mid-module fails here, with its output
    finally:
        server.stop()


@pytest.fixture(scope="module")
def runtime_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The runtime server, sessions on (both eras)."""
    yield from _module_server(tmp_path_factory, [PY, RUNTIME_SERVER, "--http"])


@pytest.fixture(scope="module")
def runtime_stateless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _module_server(tmp_path_factory, [PY, RUNTIME_SERVER, "--http", "--stateless"])


@pytest.fixture(scope="module")
def sdk_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _module_server(tmp_path_factory, [PY, SDK_SERVER, "--http"])


@pytest.fixture(scope="module")
def sdk_sse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _module_server(tmp_path_factory, [PY, SDK_SERVER, "--sse"], path="/sse")


class Progress:
    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))


# --------------------------------------------------------------------------------------------
# runtime client <-> runtime HTTP server
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", list(ERAS))
def test_runtime_pair_list_call_progress(runtime_http: ServerProcess, protocol: str) -> None:
    progress = Progress()

    async def main() -> None:
        async with connect_http(runtime_http.url, protocol=protocol, transport="streamable") as s:
            assert (s.era, s.protocol_version) == ERAS[protocol]
            assert s.server_info.get("name") == "runtime-test-server"
            tools = {t["name"]: t for t in await s.list_tools()}
            assert EXPECTED_TOOLS <= set(tools)
            assert tools["add"]["inputSchema"]["required"] == ["a", "b"]

            assert text_of(await s.call_tool("echo", {"text": 'héllo "wörld"\nline2'})) == 'héllo "wörld"\nline2'
            assert (await s.call_tool("add", {"a": 2, "b": 40}))["structuredContent"] == {"result": 42}
            report = await s.call_tool("weather", {"city": "Oslo"})
            assert report["structuredContent"] == {"city": "Oslo", "temperature_c": 21.5, "conditions": "sunny"}

            result = await s.call_tool("progress", {"steps": 4}, progress=progress)
            assert text_of(result) == "done 4"

            with pytest.raises(RpcError, match=r"^\[-32602\] Unknown tool: no-such-tool$") as info:
                await s.call_tool("no-such-tool", {})
            assert info.value.code == -32602
            await s.ping()
            # the session survives an error
            assert text_of(await s.call_tool("echo", {"text": "after"})) == "after"

    run(main())
    assert progress.seen == [(1, 4, "step 1"), (2, 4, "step 2"), (3, 4, "step 3"), (4, 4, "step 4")]


@pytest.mark.parametrize("protocol", list(ERAS))
def test_runtime_pair_logging(runtime_http: ServerProcess, protocol: str) -> None:
    logs: list[dict[str, Any]] = []

    async def main() -> None:
        async with connect_http(runtime_http.url, protocol=protocol, log_level="debug", on_log=logs.append) as s:
            await s.call_tool("log", {"message": "hello over http"})
            await wait_until(lambda: bool(logs), 5, "notifications/message from the log tool")

    run(main())
    assert logs[0]["level"] == "info"
    assert logs[0]["data"] == "hello over http"
    assert logs[0].get("logger") == "test"


@pytest.mark.parametrize("protocol", ["legacy", MODERN])
def test_runtime_pair_50_concurrent_calls(runtime_http: ServerProcess, protocol: str) -> None:
    async def main() -> None:
        async with connect_http(runtime_http.url, protocol=protocol) as s:
            calls = [s.call_tool("echo", {"text": f"call {i}"}) for i in range(25)]
            calls += [s.call_tool("add", {"a": i, "b": 1000}) for i in range(25)]
            results = await asyncio.gather(*calls)
            assert [text_of(r) for r in results[:25]] == [f"call {i}" for i in range(25)]
            assert [r["structuredContent"]["result"] for r in results[25:]] == [i + 1000 for i in range(25)]
            # concurrent calls that stream (SSE responses) do not mix their progress either
            trackers = [Progress() for _ in range(5)]
            streamed = await asyncio.gather(
                *(s.call_tool("progress", {"steps": i + 2}, progress=trackers[i]) for i in range(5))
            )
            assert [text_of(r) for r in streamed] == [f"done {i + 2}" for i in range(5)]
            for i, tracker in enumerate(trackers):
                assert [p for p, _, _ in tracker.seen] == list(range(1, i + 3))
                assert all(total == i + 2 for _, total, _ in tracker.seen)

    run(main())


def test_runtime_pair_session_ids(runtime_http: ServerProcess, tmp_path: Path) -> None:
    wire = tmp_path / "wire.jsonl"

    async def main() -> None:
        async with connect_http(runtime_http.url, protocol="legacy", wire_log=str(wire)) as s:
            session_id = s.transport.session_id  # type: ignore[attr-defined]
            assert isinstance(session_id, str) and len(session_id) >= 16
            assert all(0x21 <= ord(c) <= 0x7E for c in session_id)  # visible ASCII, per the spec
            await s.call_tool("echo", {"text": "in session"})
            assert s.transport.session_id == session_id  # type: ignore[attr-defined]
        async with connect_http(runtime_http.url, protocol="legacy") as other:
            assert other.transport.session_id not in (None, session_id)  # type: ignore[attr-defined]
        async with connect_http(runtime_http.url, protocol=MODERN) as modern:
            await modern.call_tool("echo", {"text": "no session"})
            assert modern.transport.session_id is None  # type: ignore[attr-defined]

    run(main())
    blob = "\n".join(read_lines(wire))
    for needle in ("initialize", "notifications/initialized", "tools/call", "in session"):
        assert needle in blob


def test_runtime_server_issues_session_id_on_initialize(runtime_http: ServerProcess) -> None:
    with httpx.Client(timeout=10) as http:
        r = http.post(runtime_http.url, json=_initialize(), headers=_ACCEPT_BOTH)
        assert r.status_code == 200
        session_id = r.headers.get("mcp-session-id")
        assert session_id and all(0x21 <= ord(c) <= 0x7E for c in session_id)
        assert r.json()["result"]["protocolVersion"] == "2025-11-25"
        assert http.delete(runtime_http.url, headers={"mcp-session-id": session_id}).status_code == 200


@pytest.mark.parametrize("protocol", ["legacy", MODERN])
def test_runtime_stateless_server(runtime_stateless: ServerProcess, protocol: str) -> None:
    progress = Progress()

    async def main() -> None:
        async with connect_http(runtime_stateless.url, protocol=protocol) as s:
            assert (s.era, s.protocol_version) == ERAS[protocol]
            assert s.transport.session_id is None  # type: ignore[attr-defined]
            assert EXPECTED_TOOLS <= {t["name"] for t in await s.list_tools()}
            assert text_of(await s.call_tool("echo", {"text": "stateless"})) == "stateless"
            assert text_of(await s.call_tool("progress", {"steps": 3}, progress=progress)) == "done 3"
            results = await asyncio.gather(*(s.call_tool("add", {"a": i, "b": i}) for i in range(20)))
            assert [r["structuredContent"]["result"] for r in results] == [2 * i for i in range(20)]

    run(main())
    assert [p for p, _, _ in progress.seen] == [1, 2, 3]


# --------------------------------------------------------------------------------------------
# runtime client <-> official SDK server (Streamable HTTP and legacy HTTP+SSE)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["legacy", MODERN])
def test_runtime_client_sdk_http_server(sdk_http: ServerProcess, protocol: str) -> None:
    progress = Progress()
    logs: list[dict[str, Any]] = []

    async def main() -> None:
        async with connect_http(sdk_http.url, protocol=protocol, log_level="debug", on_log=logs.append) as s:
            assert (s.era, s.protocol_version) == ERAS[protocol]
            assert s.server_info.get("name") == "sdk-test-server"
            if protocol == "legacy":
                assert s.transport.session_id  # type: ignore[attr-defined]
            tools = {t["name"]: t for t in await s.list_tools()}
            assert EXPECTED_TOOLS <= set(tools)
            assert text_of(await s.call_tool("echo", {"text": "über http"})) == "über http"
            assert (await s.call_tool("add", {"a": 1, "b": 41}))["structuredContent"] == {"result": 42}
            assert text_of(await s.call_tool("progress", {"steps": 3}, progress=progress)) == "done 3"
            await s.call_tool("log", {"message": "sdk log over http"})
            await wait_until(lambda: bool(logs), 5, "notifications/message from the SDK server")
            results = await asyncio.gather(*(s.call_tool("echo", {"text": str(i)}) for i in range(20)))
            assert [text_of(r) for r in results] == [str(i) for i in range(20)]
            unknown = await s.call_tool("no-such-tool", {})
            assert unknown["isError"] is True  # the SDK reports it as a tool error

    run(main())
    assert [p for p, _, _ in progress.seen] == [1, 2, 3]
    assert logs[0]["data"] == "sdk log over http"


@pytest.mark.parametrize("transport", ["auto", "sse"])
def test_runtime_client_sdk_legacy_sse_server(sdk_sse: ServerProcess, transport: str) -> None:
    progress = Progress()

    async def main() -> None:
        # "auto": the POST of Streamable HTTP is refused (405), so the client falls back to HTTP+SSE.
        async with connect_http(sdk_sse.url, transport=transport, connect_timeout=15) as s:
            assert type(s.transport).__name__ == "LegacySseTransport"
            assert s.era == "legacy"
            assert s.server_info.get("name") == "sdk-test-server"
            assert EXPECTED_TOOLS <= {t["name"] for t in await s.list_tools()}
            assert text_of(await s.call_tool("echo", {"text": "via sse"})) == "via sse"
            assert text_of(await s.call_tool("progress", {"steps": 2}, progress=progress)) == "done 2"
            results = await asyncio.gather(*(s.call_tool("add", {"a": i, "b": 1}) for i in range(10)))
            assert [r["structuredContent"]["result"] for r in results] == [i + 1 for i in range(10)]

    run(main())
    assert [p for p, _, _ in progress.seen] == [1, 2]


# --------------------------------------------------------------------------------------------
# official SDK client <-> runtime HTTP server
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_sdk_client_runtime_http_server(runtime_http: ServerProcess, mode: str) -> None:
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    warnings.simplefilter("ignore")
    progress = Progress()

    async def main() -> None:
        async with Client(runtime_http.url, mode=mode) as c:
            assert c.protocol_version == ("2025-11-25" if mode == "legacy" else MODERN)
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert EXPECTED_TOOLS <= set(tools)
            r = await c.call_tool("echo", {"text": "ünïcode\nover http"})
            assert not r.is_error and r.content[0].text == "ünïcode\nover http"
            r = await c.call_tool("add", {"a": 20, "b": 22})
            assert r.structured_content == {"result": 42}
            r = await c.call_tool("weather", {"city": "Lima"})
            assert r.structured_content == {"city": "Lima", "temperature_c": 21.5, "conditions": "sunny"}
            r = await c.call_tool("progress", {"steps": 3}, progress_callback=progress)
            assert r.content[0].text == "done 3"
            with pytest.raises(MCPError, match="Unknown tool: no-such-tool") as info:
                await c.call_tool("no-such-tool", {})
            assert info.value.code == -32602
            r = await c.call_tool("echo", {"text": "still fine"})
            assert r.content[0].text == "still fine"

    run(main())
    assert progress.seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


# --------------------------------------------------------------------------------------------
# runtime client <-> npm server-everything (streamableHttp)
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@needs_peer(NODE is None or not EVERYTHING_JS.exists(), "node or tests/peers/node_modules (run `make setup`)")
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_runtime_client_everything_streamable_http(spawn: Any, protocol: str) -> None:
    # server-everything listens on every interface; the preload pins it to 127.0.0.1.
    argv = [NODE, "--import", LOOPBACK_ONLY_MJS.as_uri(), str(EVERYTHING_JS), "streamableHttp"]
    server = spawn(argv, port_env="PORT")
    progress = Progress()

    async def main() -> None:
        async with connect_http(server.url, protocol=protocol) as s:
            assert s.era == "legacy"  # the TypeScript server has no server/discover
            assert s.server_info["name"] == "mcp-servers/everything"
            assert s.transport.session_id  # type: ignore[attr-defined]
            tools = {t["name"] for t in await s.list_tools()}
            assert {"echo", "get-sum", "trigger-long-running-operation"} <= tools
            assert text_of(await s.call_tool("echo", {"message": "héllo"})) == "Echo: héllo"
            assert "42" in text_of(await s.call_tool("get-sum", {"a": 40, "b": 2}))
            long = await s.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 3}, progress=progress)
            assert long.get("isError") in (None, False)
            results = await asyncio.gather(*(s.call_tool("get-sum", {"a": i, "b": 1}) for i in range(10)))
            assert all(str(i + 1) in text_of(r) for i, r in enumerate(results))
            await s.ping()

    run(main(), timeout=60)
    assert [p for p, _, _ in progress.seen] == [1, 2, 3]


# --------------------------------------------------------------------------------------------
# raw HTTP against the runtime server: DNS rebinding, stateless-era errors, sessions
# --------------------------------------------------------------------------------------------

_ACCEPT_BOTH = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _initialize(request_id: int = 1) -> dict[str, Any]:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def _modern(
    method: str, params: dict[str, Any] | None = None, version: str = MODERN, request_id: int = 7
) -> dict[str, Any]:
    meta = {
        PV_META: version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": meta}}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example.com", "origin": "http://evil.example.com"}, 403),
        ({"host": "evil.example.com"}, 403),
        ({"origin": "http://evil.example.com"}, 403),
        ({"origin": "http://evil.example.com:8080"}, 403),
        ({}, 200),
        ({"origin": "http://127.0.0.1"}, 200),
        ({"origin": "http://localhost:3000"}, 200),
    ],
)
def test_dns_rebinding_protection(runtime_http: ServerProcess, headers: dict[str, str], status: int) -> None:
    with httpx.Client(timeout=10) as http:
        r = http.post(runtime_http.url, json=_initialize(), headers={**_ACCEPT_BOTH, **headers})
        assert r.status_code == status, r.text
        if status == 200:
            assert r.json()["result"]["serverInfo"]["name"] == "runtime-test-server"
            http.delete(runtime_http.url, headers={"mcp-session-id": r.headers["mcp-session-id"]})


def _modern_headers(message: dict[str, Any], **override: str) -> dict[str, str]:
    headers = {
        **_ACCEPT_BOTH,
        "mcp-protocol-version": message["params"]["_meta"][PV_META],
        "mcp-method": message["method"],
    }
    if "name" in message["params"]:
        headers["mcp-name"] = message["params"]["name"]
    headers.update({k.replace("_", "-"): v for k, v in override.items()})
    return headers


@pytest.mark.parametrize(
    "with_header",
    [
        pytest.param(True, id="version-header"),
        pytest.param(False, id="meta-only"),
    ],
)
def test_stateless_unsupported_version(runtime_http: ServerProcess, with_header: bool) -> None:
    message = _modern("tools/list", version="2099-01-01")
    headers = _modern_headers(message)
    if not with_header:
        del headers["mcp-protocol-version"]
    r = httpx.post(runtime_http.url, json=message, headers=headers, timeout=10)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"]["code"] == -32022
    assert body["id"] == message["id"]
    assert MODERN in body["error"].get("data", {}).get("supported", [])


def test_stateless_unknown_method(runtime_http: ServerProcess) -> None:
    message = _modern("no/such/method")
    r = httpx.post(runtime_http.url, json=message, headers=_modern_headers(message), timeout=10)
    assert r.status_code == 404, r.text
    assert r.json()["error"]["code"] == -32601


@pytest.mark.parametrize("drop", ["_meta", "version"])
def test_stateless_request_with_broken_meta_is_invalid_params_with_its_id(
    runtime_http: ServerProcess, drop: str
) -> None:
    # The version header says 2026-07-28, so the body's missing _meta (or version) is -32602, not a session error.
    message = _modern("tools/list", request_id=101)
    headers = _modern_headers(message)
    if drop == "_meta":
        del message["params"]["_meta"]
    else:
        del message["params"]["_meta"][PV_META]
    r = httpx.post(runtime_http.url, json=message, headers=headers, timeout=10)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == -32602 and r.json()["id"] == 101


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/subscribe"])
def test_methods_removed_in_2026_07_28_are_not_found(runtime_http: ServerProcess, method: str) -> None:
    message = _modern(method, request_id=102)
    r = httpx.post(runtime_http.url, json=message, headers=_modern_headers(message), timeout=10)
    assert r.status_code == 404, r.text
    assert r.json()["error"]["code"] == -32601 and r.json()["id"] == 102


@pytest.mark.parametrize(
    ("message", "override"),
    [
        (_modern("tools/list"), {"mcp_method": "tools/call"}),
        (_modern("tools/call", {"name": "echo", "arguments": {"text": "x"}}), {"mcp_name": "add"}),
        (_modern("tools/list"), {"mcp_protocol_version": "2025-11-25"}),
    ],
    ids=["method", "name", "version"],
)
def test_stateless_header_mismatch(
    runtime_http: ServerProcess, message: dict[str, Any], override: dict[str, str]
) -> None:
    r = httpx.post(runtime_http.url, json=message, headers=_modern_headers(message, **override), timeout=10)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == -32020


def test_stateless_request_with_matching_headers_succeeds(runtime_http: ServerProcess) -> None:
    message = _modern("tools/call", {"name": "echo", "arguments": {"text": "raw"}})
    r = httpx.post(runtime_http.url, json=message, headers=_modern_headers(message), timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in r.headers
    assert r.json()["result"]["content"][0]["text"] == "raw"


def test_get_without_session_is_405(runtime_http: ServerProcess) -> None:
    r = httpx.get(runtime_http.url, headers={"accept": "text/event-stream"}, timeout=10)
    assert r.status_code == 405


def test_deleted_session_gets_404(runtime_http: ServerProcess) -> None:
    with httpx.Client(timeout=10) as http:
        init = http.post(runtime_http.url, json=_initialize(), headers=_ACCEPT_BOTH)
        session_id = init.headers["mcp-session-id"]
        session = {**_ACCEPT_BOTH, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        assert (
            http.post(
                runtime_http.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            ).status_code
            == 202
        )
        listed = http.post(runtime_http.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session)
        assert listed.status_code == 200 and listed.json()["result"]["tools"]
        assert http.delete(runtime_http.url, headers={"mcp-session-id": session_id}).status_code == 200
        after = http.post(runtime_http.url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=session)
        assert after.status_code == 404
        # without any session id: 400
        no_session = {k: v for k, v in session.items() if k != "mcp-session-id"}
        assert (
            http.post(
                runtime_http.url, json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, headers=no_session
            ).status_code
            == 400
        )


def test_runtime_client_reinitializes_after_session_expiry(runtime_http: ServerProcess) -> None:
    async def main() -> None:
        async with connect_http(runtime_http.url, protocol="legacy") as s:
            old = s.transport.session_id  # type: ignore[attr-defined]
            async with httpx.AsyncClient() as http:
                assert (await http.delete(runtime_http.url, headers={"mcp-session-id": old})).status_code == 200
            # 404 -> the client must initialize again, without the old id, and retry the call
            assert text_of(await s.call_tool("echo", {"text": "again"})) == "again"
            assert s.transport.session_id not in (None, old)  # type: ignore[attr-defined]

    run(main())


# --------------------------------------------------------------------------------------------
# faults: tests/peers/faulty_http_server.py
# --------------------------------------------------------------------------------------------

FAULT_MESSAGES = {"500": "500", "html": "html", "truncated": "200"}


@pytest.mark.parametrize("mode", list(FAULT_MESSAGES))
def test_fault_on_every_post_fails_connect_promptly(spawn: Any, mode: str) -> None:
    server = spawn([PY, FAULTY_HTTP_SERVER, mode])

    async def main() -> None:
        with pytest.raises(
            McpError, match=r"^HTTP (500|200): .*(instead of a JSON-RPC message|invalid or truncated JSON)"
        ) as info:
            async with connect_http(server.url, timeout=30, connect_timeout=30):
                pass
        message = str(info.value)
        assert FAULT_MESSAGES[mode] in message.lower(), message
        assert "Traceback" not in message

    run(main())


@pytest.mark.parametrize("mode", list(FAULT_MESSAGES))
def test_fault_on_tools_call_fails_the_call_promptly(spawn: Any, mode: str) -> None:
    server = spawn([PY, FAULTY_HTTP_SERVER, f"{mode}-call"])

    async def main() -> None:
        async with connect_http(server.url, timeout=30) as s:
            assert s.era == "legacy"
            assert [t["name"] for t in await s.list_tools()] == ["echo"]
            with pytest.raises(
                McpError, match=r"^HTTP (500|200): .*(instead of a JSON-RPC message|invalid or truncated JSON)"
            ) as info:
                await s.call_tool("echo", {"text": "boom"})
            message = str(info.value)
            assert FAULT_MESSAGES[mode] in message.lower(), message
            assert not isinstance(info.value, RequestTimeout)
            # one bad answer does not take the session down
            await s.ping()

    run(main())


def test_truncated_body_is_reported_as_broken_json(spawn: Any) -> None:
    server = spawn([PY, FAULTY_HTTP_SERVER, "truncated-call"])

    async def main() -> None:
        async with connect_http(server.url, timeout=30) as s:
            with pytest.raises(
                McpError, match=r"^HTTP 200: invalid or truncated JSON \(\d+ bytes of application/json\): "
            ) as info:
                await s.call_tool("echo", {"text": "boom"})
            message = str(info.value)
            assert "HTTP 200" in message
            # The message must say what is wrong, not only echo the start of the body (which here
            # happens to contain the text "json" as part of '{"jsonrpc"').
            problem = message.split('{"jsonrpc"', 1)[0]
            words = (
                "invalid json",
                "not valid json",
                "not json",
                "truncated",
                "incomplete",
                "malformed",
                "cannot parse",
            )
            assert any(word in problem.lower() for word in words), message

    run(main())


def test_cut_stream_is_resumed_with_last_event_id(spawn: Any, tmp_path: Path) -> None:
    log = tmp_path / "requests.txt"
    server = spawn([PY, FAULTY_HTTP_SERVER, "cut-stream", "--log", str(log)])

    async def main() -> None:
        async with connect_http(server.url, timeout=30) as s:
            result = await s.call_tool("echo", {"text": "resumed"})
            assert text_of(result) == "resumed"

    run(main())
    requests = read_lines(log)
    assert "POST tools/call" in requests
    assert "GET last-event-id=e1" in requests
    assert requests.index("GET last-event-id=e1") > requests.index("POST tools/call")


def test_a_servers_retry_before_resuming_is_held_to_the_bounds(
    spawn: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server asks to wait 11.6 days before resuming: the client waits its longest instead
    # (here set to 1 s, so that a client ignoring the bound would outlast the call's deadline).
    monkeypatch.setattr(http_client, "LISTEN_RETRY_BOUNDS", (0.25, 1.0))
    log = tmp_path / "requests.txt"
    server = spawn([PY, FAULTY_HTTP_SERVER, "cut-stream-long-retry", "--log", str(log)])

    async def main() -> None:
        async with connect_http(server.url, timeout=20) as s:
            assert text_of(await s.call_tool("echo", {"text": "soon"})) == "soon"

    run(main())
    assert "GET last-event-id=e1" in read_lines(log)


def test_cut_stream_never_resumed_fails_cleanly(spawn: Any, tmp_path: Path) -> None:
    log = tmp_path / "requests.txt"
    server = spawn([PY, FAULTY_HTTP_SERVER, "cut-stream-never", "--log", str(log)])

    async def main() -> None:
        async with connect_http(server.url, timeout=60) as s:
            with pytest.raises(McpError, match="the server closed the response stream before answering") as info:
                await s.call_tool("echo", {"text": "lost"})
            assert not isinstance(info.value, RequestTimeout)
            await s.ping()

    run(main())
    resumes = [line for line in read_lines(log) if line == "GET last-event-id=e1"]
    assert 1 <= len(resumes) <= 10  # it tried, a bounded number of times


def test_slow_server_times_out_promptly(spawn: Any) -> None:
    server = spawn([PY, FAULTY_HTTP_SERVER, "slow"])

    async def main() -> None:
        async with connect_http(server.url, timeout=60) as s:
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.5s$"):
                await s.call_tool("echo", {"text": "late"}, timeout=0.5)
            await s.ping()

    run(main())


def test_connection_refused_fails_promptly() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"

    async def main() -> None:
        with pytest.raises(ConnectionClosed, match="HTTP request failed: LeanHttpError: cannot connect to"):
            async with connect_http(url, connect_timeout=30):
                pass

    run(main())


# --------------------------------------------------------------------------------------------
# a client that goes away cancels the handler
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [MODERN, "legacy"])
def test_timeout_cancels_runtime_http_handler(spawn: Any, tmp_path: Path, protocol: str) -> None:
    cancel_log = tmp_path / "cancel.txt"
    server = spawn([PY, RUNTIME_SERVER, "--http", "--cancel-log", str(cancel_log)])

    async def main() -> None:
        async with connect_http(server.url, protocol=protocol) as s:
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.5s$"):
                await s.call_tool("slow", {"seconds": 30}, timeout=0.5)
            # 2026-07-28: the client closed the stream; legacy: notifications/cancelled
            await wait_until(
                lambda: bool(slow_events(cancel_log, "cancelled")), 5, "the server to cancel the slow handler"
            )
            assert text_of(await s.call_tool("echo", {"text": "alive"})) == "alive"

    run(main())
    assert slow_events(cancel_log, "started") == ["started 30.0"]


def test_task_cancellation_cancels_runtime_http_handler(spawn: Any, tmp_path: Path) -> None:
    cancel_log = tmp_path / "cancel.txt"
    server = spawn([PY, RUNTIME_SERVER, "--http", "--cancel-log", str(cancel_log)])

    async def main() -> None:
        async with connect_http(server.url, protocol=MODERN) as s:
            task = asyncio.ensure_future(s.call_tool("slow", {"seconds": 30}))
            await wait_until(lambda: bool(slow_events(cancel_log, "started")), 10, "slow to start on the server")
            task.cancel()
            with pytest.raises(asyncio.CancelledError, match=r"^$"):
                await task
            await wait_until(
                lambda: bool(slow_events(cancel_log, "cancelled")), 5, "the server to cancel the slow handler"
            )

    run(main())
