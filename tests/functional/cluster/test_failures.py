"""What a cluster does when a piece of it fails: a worker killed mid-session (its in-flight
calls fail cleanly, the session goes on through the other worker, nothing hangs), and Redis
stopped and started again (clear errors while it is gone, recovery once it is back, and the
stateless 2026-07-28 era never needing it)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import McpError, connect_http
from tests.cluster import RedisServer, cluster, needs_nginx, needs_redis

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), needs_redis, needs_nginx]

LISTEN_SERVER = Path(__file__).resolve().parents[3] / "tests/peers/listen_server.py"
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"


def pid_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_a_killed_worker_fails_its_calls_cleanly_and_the_session_goes_on(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path).start()
    argv = [sys.executable, str(LISTEN_SERVER), "--http", "--port", "{port}", "--store", redis.url]
    try:
        with cluster(tmp_path, argv) as running:
            victim, survivor = running.workers
            assert victim.proc is not None and survivor.proc is not None

            async def main() -> tuple[list[Any], list[str]]:
                async with connect_http(running.url, protocol=HANDSHAKE, timeout=30) as session:
                    assert {pid_of(await session.call_tool("nap", {"seconds": 0})) for _ in range(4)} == {
                        f"pid {victim.proc.pid}",
                        f"pid {survivor.proc.pid}",
                    }
                    in_flight = [asyncio.create_task(session.call_tool("nap", {"seconds": 10})) for _ in range(4)]
                    # Killed once both workers run a nap (asked, not slept for: a loaded machine
                    # starts them later), so the victim's call fails and the survivor's is answered.
                    deadline = time.monotonic() + 30
                    while True:
                        answers = [pid_of(await session.call_tool("running", {})) for _ in range(4)]
                        counts = dict(answer.split() for answer in answers)  # pid -> naps it runs
                        if all(int(counts.get(str(w.proc.pid), 0)) for w in (victim, survivor)):
                            break
                        assert time.monotonic() < deadline, f"the naps never ran on both workers: {counts}"
                    os.kill(victim.proc.pid, signal.SIGKILL)
                    outcomes = await asyncio.wait_for(asyncio.gather(*in_flight, return_exceptions=True), 40)
                    after = [pid_of(await session.call_tool("nap", {"seconds": 0})) for _ in range(6)]
                    return outcomes, after

            outcomes, after = asyncio.run(asyncio.wait_for(main(), 150))
            failed = [o for o in outcomes if isinstance(o, BaseException)]
            answered = [pid_of(o) for o in outcomes if not isinstance(o, BaseException)]
            assert failed and answered, outcomes
            assert all(isinstance(f, McpError) for f in failed), failed  # a clean error, not a crash
            assert set(answered) == {f"pid {survivor.proc.pid}"}
            assert set(after) == {f"pid {survivor.proc.pid}"}  # the same session, on the other worker
            survivor.assert_alive()
    finally:
        redis.stop()


def test_redis_gone_and_back(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path).start()
    argv = [sys.executable, str(LISTEN_SERVER), "--http", "--port", "{port}", "--store", redis.url]
    try:
        with cluster(tmp_path, argv) as running:
            both = {f"pid {w.proc.pid}" for w in running.workers if w.proc is not None}

            async def calls(protocol: str, count: int = 4) -> set[str]:
                """Which workers answered `count` calls of one session (in turn: both, for 2+)."""
                async with connect_http(running.url, protocol=protocol, timeout=10) as session:
                    return {pid_of(await session.call_tool("nap", {"seconds": 0})) for _ in range(count)}

            assert asyncio.run(calls(HANDSHAKE)) == both
            redis.stop()

            # While Redis is gone: a handshake-era session cannot be kept, and says so, promptly.
            # Promptly: the wait_for deadline fails the test when the refusal takes longer.
            with pytest.raises(
                McpError, match=r"^\[-32603\] the store redis://127\.0\.0\.1:\d+/0 is unavailable: "
            ) as refused:
                asyncio.run(asyncio.wait_for(calls(HANDSHAKE), 30))
            assert "store" in str(refused.value).lower() or "503" in str(refused.value), refused.value
            # The stateless era needs no store: its calls go on.
            assert asyncio.run(calls(MODERN)) == both
            running.assert_alive()

            redis.restart()
            deadline = time.monotonic() + 30
            while True:  # the workers reconnect on their own
                try:
                    seen = asyncio.run(calls(HANDSHAKE))
                    break
                except McpError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            assert seen == both
            running.assert_alive()
            logs = running.logs()
            assert logs.count("Traceback") <= 2, logs[-3000:]  # a line or two, not a flood
    finally:
        redis.stop()
