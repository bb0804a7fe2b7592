"""Two workers of a generated server sharing a real Redis, behind a real nginx doing plain
round-robin (no stickiness): a generated client runs a handshake-era session (initialize, list,
50 calls, elicitation round trips, a progress stream) and a 2026-07-28 session (calls, an MRTR
round trip, a subscriptions/listen stream receiving resource_updated raised on either worker);
a request's SSE stream cut mid-way on one worker resumes with Last-Event-ID on the other."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

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
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


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


def test_cut_stream_resumes_on_the_other_worker(tmp_path: Path) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with cluster(tmp_path) as (a, b, _proxy), httpx.Client(timeout=30) as http:
        init = http.post(
            a.url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        session = {**headers, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
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
