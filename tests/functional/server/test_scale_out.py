"""Two workers of a generated server sharing a real Redis, behind a real nginx doing plain
round-robin (no stickiness): a generated client runs a handshake-era session (initialize, list,
50 calls, elicitation round trips, a progress stream) and a 2026-07-28 session (calls, an MRTR
round trip, a subscriptions/listen stream receiving resource_updated raised on either worker);
a request's SSE stream cut mid-way on one worker resumes with Last-Event-ID on the other."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from generation import imported

from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.sources.files import load_many
from tests.cluster import needs_nginx, needs_redis, redis_server, round_robin
from tests.serving import ServerProcess

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE.parents[2] / "examples" / "conformance" / "schemas"
STEPS = 10  # cluster_server.STEPS

pytestmark = [pytest.mark.slow, needs_redis, needs_nginx]


@contextmanager
def client_package(folder: Path) -> Iterator[ModuleType]:
    catalog, problems = load_many([SCHEMAS / "tools.yaml", SCHEMAS / "surface.yaml"])
    assert catalog is not None, problems
    name = f"cluster_{uuid.uuid4().hex[:10]}"
    write_atomic(generate_client(catalog, ClientOptions()), folder / name)
    with imported(folder, name) as pkg:
        yield pkg


@contextmanager
def cluster(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess, ServerProcess]]:
    """(worker a, worker b, nginx in front of both), sharing one redis-server."""
    with ExitStack() as stack:
        url = stack.enter_context(redis_server(tmp_path))
        # MRTR's signed requestState: every worker must share the key.
        env = {"MCPGEN_REQUEST_STATE_KEY": uuid.uuid4().hex}
        workers = []
        for name in ("a", "b"):
            argv = [sys.executable, str(HERE / "cluster_server.py"), "--http", "--port", "{port}", "--store", url]
            (tmp_path / name).mkdir()
            worker = ServerProcess(argv, env=env, log_dir=tmp_path / name).start()
            stack.callback(worker.stop)
            workers.append(worker)
        proxy = stack.enter_context(round_robin(tmp_path, [w.base for w in workers]))
        yield workers[0], workers[1], proxy


async def elicit(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"username": "ada", "email": "ada@example.com", "name": "Ada"}}


async def handshake_session(pkg: ModuleType, url: str) -> None:
    async with pkg.AsyncClient.connect_http(url, protocol="legacy", on_elicitation=elicit) as c:
        assert c.session.protocol_version != "2026-07-28"
        assert "test_elicitation" in {t["name"] for t in await c.session.list_tools()}
        for _ in range(50):
            assert (await c.test_simple_text()).text == "This is a simple text response for testing."
        # The call's POST and the client's answer to the elicitation reach the workers in turn:
        # repeated, some answers land on the worker that did not ask.
        for n in range(4):
            result = await c.test_elicitation(message=f"who? {n}")
            assert "ada@example.com" in result.text
        steps: list[float] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            steps.append(value)

        result = await c.with_options(progress=progress).test_tool_with_progress()
        assert result.text == "Tool with progress executed successfully"
        assert steps == [0, 50, 100]
        # resources/subscribe through one worker, the update raised on either, delivered on the
        # session's GET stream wherever it is held.
        updates = c.session.listen_resource_updates()
        await c.session.subscribe_resource("test://watched-resource")
        for _ in range(2):
            assert (await c.test_tool_with_logging()).text == "updated test://watched-resource"
        for _ in range(2):
            assert await asyncio.wait_for(updates.get(), 10) == "test://watched-resource"


async def modern_session(pkg: ModuleType, url: str) -> None:
    async with pkg.AsyncClient.connect_http(url, protocol="2026-07-28", on_elicitation=elicit) as c:
        assert c.session.protocol_version == "2026-07-28"
        for _ in range(10):
            assert (await c.test_simple_text()).text == "This is a simple text response for testing."
        # MRTR: input_required, then the retry with the answer (and the signed state) lands on
        # the other worker.
        for _ in range(2):
            assert (await c.test_streaming_elicitation()).text == "Hello, Ada!"
        listen = await c.session.listen(resource_uris=["test://watched-resource"])
        try:
            # Two calls in a row: one is served by the worker holding the listen stream, the
            # other by the other worker; both updates arrive.
            for _ in range(2):
                assert (await c.test_tool_with_logging()).text == "updated test://watched-resource"
            for _ in range(2):
                event = await asyncio.wait_for(listen.__anext__(), 10)
                assert event.kind == "resource" and event.uri == "test://watched-resource"
        finally:
            await listen.aclose()


def test_two_workers_behind_round_robin_serve_both_eras(tmp_path: Path) -> None:
    with client_package(tmp_path / "client") as pkg, cluster(tmp_path) as (_a, _b, proxy):
        asyncio.run(asyncio.wait_for(handshake_session(pkg, proxy.url), 120))
        asyncio.run(asyncio.wait_for(modern_session(pkg, proxy.url), 120))


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """(id, message) of each SSE event with data."""
    event_id: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield event_id, json.loads("\n".join(data))
            event_id, data = None, []
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def open_raw_session(http: httpx.Client, url: str) -> dict[str, str]:
    """initialize by hand at `url`: the headers every later request of that session carries."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    init = http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    return {**headers, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}


def test_cut_stream_resumes_on_the_other_worker(tmp_path: Path) -> None:
    with cluster(tmp_path) as (a, b, _proxy), httpx.Client(timeout=30) as http:
        session = open_raw_session(http, a.url)
        # The session is known on b too (its record is in Redis).
        assert (
            http.post(
                b.url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
            ).status_code
            == 202
        )
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_reconnection", "arguments": {}, "_meta": {"progressToken": "t"}},
        }
        seen: list[dict[str, Any]] = []
        last_id = None
        with http.stream("POST", a.url, headers=session, json=call) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for event_id, message in sse_events(response.iter_lines()):
                seen.append(message)
                last_id = event_id
                if len(seen) == 3:
                    break  # the client goes away mid-stream
        assert last_id is not None
        resume = {**session, "accept": "text/event-stream", "last-event-id": last_id}
        with http.stream("GET", b.url, headers=resume) as response:
            assert response.status_code == 200
            for _event_id, message in sse_events(response.iter_lines()):
                seen.append(message)
        progress = [m["params"]["progress"] for m in seen if m.get("method") == "notifications/progress"]
        assert progress == list(range(STEPS))  # none lost, none repeated
        assert seen[-1]["id"] == 2 and seen[-1]["result"]["content"][0]["text"] == f"streamed {STEPS} steps"
        # An event id of another session's stream, or a made-up one, resumes nothing.
        assert http.get(b.url, headers={**resume, "last-event-id": "pAAAAAAAAAAAA.1-0"}).status_code == 404
        # DELETE on one worker ends the session on every worker.
        assert http.delete(b.url, headers=session).status_code == 200
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        assert http.post(a.url, headers=session, json=ping).status_code == 404
        assert http.post(b.url, headers=session, json=ping).status_code == 404


async def update_reaches_listener(url: str) -> None:
    from mcpgen.runtime import connect_http

    async with connect_http(url, protocol="2026-07-28") as session:
        listen = await session.listen(resource_uris=["test://watched-resource"])
        try:
            for _ in range(30):
                await session.call_tool("test_tool_with_logging", {})
                try:
                    event = await asyncio.wait_for(listen.__anext__(), 0.5)
                except asyncio.TimeoutError:
                    continue
                assert event.uri == "test://watched-resource"
                return
            raise AssertionError("no update reached the listen stream after Redis came back")
        finally:
            await listen.aclose()


def test_redis_down_is_a_clear_503_and_the_server_recovers(tmp_path: Path) -> None:
    from tests.cluster import redis_argv
    from tests.serving import free_port

    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in redis_argv(tmp_path / "redis")]

    def start_redis() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return proc
            time.sleep(0.05)
        proc.kill()
        raise AssertionError("redis-server did not start")

    redis_proc = start_redis()
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    (tmp_path / "w").mkdir()
    url = f"redis://:secret-pw@127.0.0.1:{port}/0"
    worker = ServerProcess(
        [sys.executable, str(HERE / "cluster_server.py"), "--http", "--port", "{port}", "--store", url],
        log_dir=tmp_path / "w",
    )
    try:
        worker.start()
        with httpx.Client(timeout=30) as http:
            assert http.post(worker.url, headers=headers, json=init).status_code == 200
            redis_proc.terminate()
            redis_proc.wait(10)
            for _ in range(20):  # a flood of failures: each a 503, one log line per period
                down = http.post(worker.url, headers=headers, json=init)
                assert down.status_code == 503
            error = down.json()["error"]["message"]
            assert "unavailable" in error and "secret-pw" not in error and "\n" not in error
            # Stateless-era requests need no store: still served.
            modern = {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/list",
                "params": {
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    }
                },
            }
            modern_headers = {**headers, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
            served = http.post(worker.url, headers=modern_headers, json=modern)
            assert served.status_code == 200, served.text
            redis_proc = start_redis()
            deadline = time.monotonic() + 15
            while True:  # back: new sessions open again
                again = http.post(worker.url, headers=headers, json=init)
                if again.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert again.status_code == 200 and again.headers["mcp-session-id"]
            # The notification subscription is back too: a listen stream gets an update raised
            # through Redis (retried while the subscriber reconnects with its backoff).
            asyncio.run(asyncio.wait_for(update_reaches_listener(worker.url), 60))
        log_text = worker._log_path.read_text() if worker._log_path else ""  # noqa: SLF001
        assert "secret-pw" not in log_text and "Traceback" not in log_text
        assert log_text.count("unavailable") < 10  # rate-limited, not one line per failure
    finally:
        worker.stop()
        redis_proc.terminate()
        redis_proc.wait(10)


async def sdk_sessions(url: str) -> None:
    import mcp.types as types
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def elicit(ctx: Any, params: Any) -> Any:
        content = {"username": "grace", "email": "g@example.com", "name": "Grace"}
        return types.ElicitResult(action="accept", content=content)

    async with Client(streamable_http_client(url), mode="legacy", elicitation_callback=elicit) as c:
        assert "test_elicitation" in {t.name for t in (await c.list_tools()).tools}
        for _ in range(50):
            result = await c.call_tool("test_simple_text", {})
            assert result.content[0].text == "This is a simple text response for testing."  # type: ignore[union-attr]
        for n in range(4):
            result = await c.call_tool("test_elicitation", {"message": f"who? {n}"})
            assert "g@example.com" in result.content[0].text  # type: ignore[union-attr]
        steps: list[float] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            steps.append(value)

        await c.call_tool("test_tool_with_progress", {}, progress_callback=progress)
        assert steps == [0, 50, 100]
    async with Client(streamable_http_client(url), mode="2026-07-28", elicitation_callback=elicit) as c:
        for _ in range(10):
            result = await c.call_tool("test_simple_text", {})
            assert result.content[0].text == "This is a simple text response for testing."  # type: ignore[union-attr]
        for _ in range(2):
            result = await c.call_tool("test_streaming_elicitation", {})
            assert result.content[0].text == "Hello, Grace!"  # type: ignore[union-attr]


def test_the_official_sdk_client_behind_round_robin(tmp_path: Path) -> None:
    with cluster(tmp_path) as (_a, _b, proxy):
        asyncio.run(asyncio.wait_for(sdk_sessions(proxy.url), 120))


async def session_outlives_a_worker(pkg: ModuleType, url: str, victim: ServerProcess) -> None:
    from mcpgen.runtime import McpError

    async with pkg.AsyncClient.connect_http(url, protocol="legacy", on_elicitation=elicit) as c:
        for _ in range(4):
            assert (await c.test_simple_text()).text == "This is a simple text response for testing."
        # Two slow streaming calls at once: round-robin gives one to each worker.
        calls = [asyncio.ensure_future(c.session.call_tool("test_reconnection", {})) for _ in range(2)]
        await asyncio.sleep(0.5)
        assert victim.proc is not None
        os.killpg(victim.proc.pid, signal.SIGKILL)
        # Nothing hangs: the dead worker's call fails as an error the client names, within bounds
        # (a deadline, not a measured time: wait_for fails the test when it passes).
        outcomes = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 45)
        for outcome in outcomes:
            assert isinstance(outcome, (dict, McpError)), repr(outcome)
        assert any(isinstance(outcome, dict) for outcome in outcomes)
        # The session goes on through the other worker.
        for _ in range(10):
            assert (await c.test_simple_text()).text == "This is a simple text response for testing."
        assert "ada@example.com" in (await c.test_elicitation(message="still there?")).text


def test_the_session_goes_on_when_a_worker_dies(tmp_path: Path) -> None:
    with client_package(tmp_path / "client") as pkg, cluster(tmp_path) as (a, _b, proxy):
        asyncio.run(asyncio.wait_for(session_outlives_a_worker(pkg, proxy.url, a), 120))


def test_a_resume_ends_when_the_serving_worker_died(tmp_path: Path) -> None:
    with cluster(tmp_path) as (a, b, _proxy), httpx.Client(timeout=60) as http:
        session = open_raw_session(http, a.url)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_reconnection", "arguments": {}, "_meta": {"progressToken": "t"}},
        }
        last_id = None
        with http.stream("POST", a.url, headers=session, json=call) as response:
            for count, (event_id, _message) in enumerate(sse_events(response.iter_lines()), 1):
                last_id = event_id
                if count == 2:
                    break
        assert a.proc is not None and last_id is not None
        os.killpg(a.proc.pid, signal.SIGKILL)
        resume = {**session, "accept": "text/event-stream", "last-event-id": last_id}
        # What a logged before it died is replayed; no answer comes; the stream ends on its own
        # (its worker's liveness key gone, or three missed heartbeats), not after the five-minute
        # resume window: the deadline is generous for a loaded machine and well inside the window.
        status, replayed = stream_until_it_ends(http, b.url, resume, RESUME_DEADLINE)
        # 410 when a's liveness key is gone already and it had logged nothing after last_id;
        # else what it logged (maybe nothing) is replayed, with no answer.
        assert status in (200, 410)
        assert all(m.get("method") == "notifications/progress" for m in replayed)
        # The log is marked abandoned now: the next resume also ends on its own, with no answer.
        status, again = stream_until_it_ends(http, b.url, resume, RESUME_DEADLINE)
        assert status in (200, 410)
        assert [m for m in again if "method" not in m] == []


# How long a resume of a dead worker's stream may take to end: far more than it takes on a loaded
# machine (seconds), and far less than the resume window (resumption.RESUME_WINDOW, 300 s) a
# stream that never noticed the death would follow.
RESUME_DEADLINE = 120.0


def stream_until_it_ends(
    http: httpx.Client, url: str, headers: dict[str, str], deadline: float
) -> tuple[int, list[dict[str, Any]]]:
    """GET `url` as an SSE stream read in a thread: (status, its messages) once the server ends it.
    Fails when it has not ended within `deadline` seconds (the response is then closed)."""
    ended = threading.Event()
    got: dict[str, Any] = {}
    opened: list[httpx.Response] = []

    def read() -> None:
        try:
            # (the read timeout past the deadline: the deadline decides, not a quiet read)
            with http.stream("GET", url, headers=headers, timeout=deadline + 30) as response:
                opened.append(response)
                got["status"] = response.status_code
                got["messages"] = (
                    [m for _id, m in sse_events(response.iter_lines())] if response.status_code == 200 else []
                )
        except BaseException as exc:  # handed to the test's thread below
            got["error"] = exc
        finally:
            ended.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not ended.wait(deadline):
        for response in opened:
            response.close()
        raise AssertionError(f"the resume stream did not end within {deadline:g} s")
    reader.join()
    if "error" in got:
        raise got["error"]
    return got["status"], got["messages"]
