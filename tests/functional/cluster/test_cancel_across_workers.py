"""A handshake-era client cancels a call, keeping the call's POST open (as the spec lets it),
and its notifications/cancelled reaches another worker than the one running the call (as it may
behind a load balancer without stickiness): the store routes it to that worker, which stops it."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cluster import RedisServer, cluster, needs_nginx, needs_redis

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120), needs_redis, needs_nginx]

LISTEN_SERVER = Path(__file__).resolve().parents[3] / "tests/peers/listen_server.py"
VERSION = "2025-11-25"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def answer_of(response: httpx.Response) -> Any:
    """The JSON-RPC answer in a plain JSON body or the last SSE event carrying one."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    events = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(events[-1])


async def running_naps(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> dict[str, int]:
    """pid -> naps it runs, from 4 calls (round-robin: both workers answer)."""
    counts: dict[str, int] = {}
    for request_id in range(100, 104):
        call = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "running"}}
        reply = answer_of(await client.post(url, json=call, headers=headers))
        pid, count = reply["result"]["content"][0]["text"].split()
        counts[pid] = int(count)
    return counts


def test_a_cancellation_reaches_the_worker_running_the_request(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path).start()
    argv = [sys.executable, str(LISTEN_SERVER), "--http", "--port", "{port}", "--store", redis.url]
    try:
        with cluster(tmp_path, argv) as running:
            url = running.url

            async def main() -> tuple[dict[str, int], dict[str, int]]:
                async with httpx.AsyncClient(timeout=20) as client:
                    init = {
                        "protocolVersion": VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    }
                    opened = await client.post(
                        url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, headers=ACCEPT
                    )
                    headers = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"]}
                    headers["mcp-protocol-version"] = VERSION
                    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                    await client.post(url, json=initialized, headers=headers)
                    nap = {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {"name": "nap", "arguments": {"seconds": 30}},
                    }
                    held = asyncio.ensure_future(client.post(url, json=nap, headers=headers))  # stays open
                    deadline = time.monotonic() + 10
                    while sum((before := await running_naps(client, url, headers)).values()) == 0:
                        assert time.monotonic() < deadline, "the nap never started"
                    # Straight to the worker that does not run the nap (nginx might pick either).
                    (busy,) = [pid for pid, count in before.items() if count]
                    (other,) = [w for w in running.workers if w.proc is not None and f"{w.proc.pid}" != busy]
                    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
                    done = await client.post(other.url, json=cancel, headers=headers)
                    assert done.status_code == 202
                    deadline = time.monotonic() + 10
                    while (
                        sum((after := await running_naps(client, url, headers)).values())
                        and time.monotonic() < deadline
                    ):
                        await asyncio.sleep(0.2)
                    held.cancel()
                    return before, after

            before, after = asyncio.run(asyncio.wait_for(main(), 60))
            assert sum(before.values()) == 1, before
            assert len(after) == 2 and sum(after.values()) == 0, after
    finally:
        redis.stop()
