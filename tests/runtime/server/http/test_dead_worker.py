"""A worker killed mid-call (SIGKILL), with `--workers 2` sharing a real redis-server: the
client's resume of the cut stream lands on the other worker, which knows the owner is dead (its
liveness key in the store is gone, resumption.py): the resume ends, and the next one is refused
with 410 and a reason, each read within 5 s (before, the resume followed an empty log for ~16 s)."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import ServerProcess, started

from tests.cluster import needs_redis, redis_server
from tests.generation import scaffold_server

pytestmark = [pytest.mark.slow, needs_redis]

PY = sys.executable
PKG = "slow_server"
SCHEMA = """[{"name": "slow", "description": "Says its pid in a progress notification, then takes a minute.",
  "inputSchema": {"type": "object", "properties": {}}}]"""
HANDLERS = """
from __future__ import annotations

import asyncio
import os

from ._generated import Context, ToolOutput, ToolsBase, models


class Handlers(ToolsBase):
    async def slow(self, args: models.SlowArgs, ctx: Context) -> ToolOutput:
        await ctx.report_progress(0, message=str(os.getpid()))
        await asyncio.sleep(60)
        return "done"
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scaffold_server(tmp_path_factory.mktemp("dead_worker"), SCHEMA, PKG, HANDLERS)


@pytest.fixture
def two_workers(package: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    with redis_server(tmp_path) as url:
        argv = [PY, "-m", PKG, "--http", "--port", "{port}", "--workers", "2", "--store", url]
        with started(argv, cwd=package, log_dir=tmp_path) as server:
            yield server


HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def events(response: httpx.Response) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """(id, message) of each SSE event of a streamed response."""
    event_id: str | None = None
    for line in response.iter_lines():
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            yield event_id, json.loads(line[5:])


def open_session(client: httpx.Client, url: str) -> dict[str, str]:
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answer = client.post(url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    assert answer.status_code == 200, answer.text
    headers = {**HEADERS, "mcp-session-id": answer.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


def test_a_resume_of_a_killed_workers_call_fails_at_once(two_workers: ServerProcess) -> None:
    url = two_workers.url
    # Every read below ends within 5 s (httpx's own deadline): a resume that followed the dead
    # worker's log until three heartbeats were missed (~16 s) fails the test with ReadTimeout.
    with httpx.Client(timeout=5.0) as client:
        headers = open_session(client, url)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "t"}},
        }
        with client.stream("POST", url, headers=headers, json=call) as stream:
            last_id, progress = next(events(stream))
            assert progress["method"] == "notifications/progress" and last_id is not None
            os.kill(int(progress["params"]["message"]), signal.SIGKILL)  # the worker serving the call
        # The client resumes, as a client whose stream was cut does, until the stream is refused.
        statuses: list[int] = []
        for _ in range(5):
            get = {**headers, "accept": "text/event-stream", "last-event-id": last_id}
            with client.stream("GET", url, headers=get) as resumed:
                statuses.append(resumed.status_code)
                if resumed.status_code != 200:
                    assert "worker serving this request stopped" in resumed.read().decode()
                    break
                got = list(events(resumed))
                assert all("method" in m for _, m in got), got  # no answer: the request died with its worker
                last_id = next((i for i, _ in reversed(got) if i), last_id)
        assert statuses[-1] == 410, statuses
        # The session lives on (in the store), served by the other worker.
        ping = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert ping.status_code == 200 and "result" in ping.text, ping.text
