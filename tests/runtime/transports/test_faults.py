"""Fault tests for the stdio client: peers that crash, hang, print junk, send huge messages,
or never come up; many calls in flight; a client closed with calls pending. After every test
the autouse fixture in conftest.py checks that no child process (running or zombie) is left.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import time
from pathlib import Path

import pytest
from rt_support import (
    FAULTY_SERVER,
    PY,
    RUNTIME_SERVER,
    assert_process_gone,
    read_lines,
    run,
    slow_events,
    text_of,
    wait_until,
)

from mcpgen.runtime import ConnectionClosed, McpError, ProtocolError, RequestTimeout, RpcError, connect_stdio

pytestmark = pytest.mark.timeout(120)

MB = 1024 * 1024


def faulty(mode: str, *extra: str) -> list[str]:
    return [FAULTY_SERVER, mode, *extra]


# --------------------------------------------------------------------------------------------
# a server that dies mid-call
# --------------------------------------------------------------------------------------------


def test_crash_mid_call_raises_connection_closed_promptly() -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, faulty("crash-mid-call"), timeout=60) as s:
            assert s.era == "legacy"  # discover got -32601, so the client fell back
            assert [t["name"] for t in await s.list_tools()] == ["echo"]
            with pytest.raises(
                ConnectionClosed,
                # Mid-call the exit code is named when the process was reaped before the pipe's end
                # was read (not waited for: the call fails at once); the last stderr line likewise.
                match=r"^server '.+' (exited with code 3|closed its stdout)"
                r"( \(last stderr line: faulty_server: crashing mid-call\))?$",
            ):
                await s.call_tool("echo", {"text": "boom"})
            return s.process_pid

    assert_process_gone(run(main()))


def test_crash_fails_every_pending_call_at_once(tmp_path: Path) -> None:
    cancel_log = tmp_path / "events.txt"

    async def main() -> int | None:
        async with connect_stdio(PY, [RUNTIME_SERVER, "--cancel-log", str(cancel_log)], timeout=60) as s:
            pending = [asyncio.ensure_future(s.call_tool("slow", {"seconds": 50 + i})) for i in range(5)]
            await wait_until(lambda: len(slow_events(cancel_log, "started")) == 5, 15, "5 slow calls to start")
            with pytest.raises(ConnectionClosed, match=r"^server '.+' (closed its stdout|exited with code -?\d+)"):
                await s.call_tool("crash", {})
            results = await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 10)
            assert all(isinstance(r, ConnectionClosed) for r in results), results
            # later calls fail at once too, instead of being written into a dead pipe
            with pytest.raises(ConnectionClosed, match=r"^server '.+' (closed its stdout|exited with code -?\d+)"):
                await asyncio.wait_for(s.call_tool("echo", {"text": "late"}), 5)
            return s.process_pid

    assert_process_gone(run(main()))


def test_server_killed_externally_fails_pending_calls() -> None:
    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER], timeout=60) as s:
            assert s.process_pid is not None
            task = asyncio.ensure_future(s.call_tool("slow", {"seconds": 60}))
            await asyncio.sleep(0)  # the request is registered; killing before or after it is sent is equally valid
            os.kill(s.process_pid, signal.SIGKILL)
            with pytest.raises(ConnectionClosed, match=r"^server '.+' (was killed by signal 9|closed its stdout)$"):
                await asyncio.wait_for(task, 10)

    run(main())


# --------------------------------------------------------------------------------------------
# a server that never answers
# --------------------------------------------------------------------------------------------


def test_never_answers_times_out_and_sends_cancelled(tmp_path: Path) -> None:
    record = tmp_path / "cancelled.jsonl"
    wire = tmp_path / "wire.jsonl"

    async def main() -> None:
        async with connect_stdio(PY, faulty("hang", str(record)), wire_log=str(wire)) as s:
            start = time.monotonic()
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 1s$") as info:
                await s.call_tool("echo", {"text": "anyone?"}, timeout=1.0)
            elapsed = time.monotonic() - start
            assert elapsed >= 0.9, elapsed  # never before its deadline (a loaded machine only makes it later)
            # a local timeout must not look like an error response from the peer
            assert not isinstance(info.value, RpcError)
            await wait_until(lambda: bool(read_lines(record)), 5, "notifications/cancelled at the server")
            # the session survives a timed-out call
            assert [t["name"] for t in await s.list_tools()] == ["echo"]

    run(main())
    cancelled = [json.loads(line) for line in read_lines(record)]
    assert len(cancelled) == 1
    # the cancellation names the request that timed out: find its id in the wire log
    call_ids = [
        msg.get("id") for msg in _wire_messages(wire) if isinstance(msg, dict) and msg.get("method") == "tools/call"
    ]
    assert cancelled[0]["requestId"] in call_ids, (cancelled, call_ids)


def test_max_timeout_caps_a_longer_per_call_timeout(tmp_path: Path) -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("hang", str(tmp_path / "c.jsonl")), max_timeout=1.0) as s:
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 1s$"):
                await s.call_tool("echo", {"text": "x"}, timeout=60)

    run(main())


def test_default_timeout_applies_when_call_gives_none(tmp_path: Path) -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("hang", str(tmp_path / "c.jsonl")), timeout=1.0) as s:
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 1s$"):
                await s.call_tool("echo", {"text": "x"})

    run(main())


def test_cancelled_task_sends_notifications_cancelled(tmp_path: Path) -> None:
    cancel_log = tmp_path / "events.txt"

    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER, "--cancel-log", str(cancel_log)]) as s:
            task = asyncio.ensure_future(s.call_tool("slow", {"seconds": 60}))
            await wait_until(lambda: bool(slow_events(cancel_log, "started")), 10, "slow to start")
            task.cancel()
            with pytest.raises(asyncio.CancelledError, match=r"^$"):
                await task
            await wait_until(lambda: bool(slow_events(cancel_log, "cancelled")), 10, "the handler to be cancelled")

    run(main())


# --------------------------------------------------------------------------------------------
# junk on stdout
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_junk_lines_on_stdout_are_skipped(protocol: str) -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("junk"), protocol=protocol) as s:
            assert s.era == "legacy"
            assert s.server_info["name"] == "faulty-junk"
            assert [t["name"] for t in await s.list_tools()] == ["echo"]
            for i in range(5):
                assert text_of(await s.call_tool("echo", {"text": f"call {i}"})) == f"call {i}"
            texts = [f"c{i}" for i in range(20)]
            results = await asyncio.gather(*(s.call_tool("echo", {"text": t}) for t in texts))
            assert [text_of(r) for r in results] == texts

    run(main())


def test_server_stderr_and_junk_lines_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("junk")) as s:
            assert text_of(await s.call_tool("echo", {"text": "x"})) == "x"

    with caplog.at_level(logging.DEBUG):
        run(main())
    messages = [r.getMessage() for r in caplog.records]
    # stderr goes to a logger, line by line (not treated as protocol or as an error)
    assert any("faulty_server: mode=junk" in m for m in messages), messages[:20]
    # skipped stdout junk is logged, not silently swallowed
    assert any("Starting server... {not json either" in m for m in messages), messages[:20]


def test_wire_log_from_environment_records_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wire = tmp_path / "env-wire.jsonl"
    monkeypatch.setenv("MCPGEN_WIRE_LOG", str(wire))

    async def main() -> None:
        async with connect_stdio(PY, faulty("junk")) as s:
            await s.call_tool("echo", {"text": "teed"})

    run(main())
    entries = [json.loads(line) for line in read_lines(wire)]
    assert {e["dir"] for e in entries} == {"c2s", "s2c"}
    assert all(isinstance(e["t"], (int, float)) for e in entries)
    lines = [e["line"] for e in entries]
    # raw traffic: the junk the client skipped is in the tee too, which is how it gets diagnosed
    assert "Starting server... {not json either" in lines
    assert any('"teed"' in line for line in lines)


# --------------------------------------------------------------------------------------------
# the era probe falls back on any error, and on silence
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["-32600", "-32602", "-32603", "-32000"])
def test_probe_fallback_is_not_keyed_to_one_error_code(code: str) -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("junk"), env={"FAULTY_DISCOVER": code}) as s:
            assert s.era == "legacy"
            assert s.protocol_version == "2025-11-25"
            assert text_of(await s.call_tool("echo", {"text": code})) == code

    run(main())


@pytest.mark.slow
def test_probe_fallback_on_an_unanswered_discover() -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("junk"), env={"FAULTY_DISCOVER": "ignore"}, connect_timeout=40) as s:
            assert s.era == "legacy"
            assert text_of(await s.call_tool("echo", {"text": "late start"})) == "late start"

    run(main())


# --------------------------------------------------------------------------------------------
# big messages
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_20mb_result_from_raw_server() -> None:
    async def main() -> None:
        async with connect_stdio(PY, faulty("big")) as s:
            result = await s.call_tool("echo", {"text": "ignored"}, timeout=60)
            text = text_of(result)
            assert len(text) == 20 * MB and set(text) == {"y"}

    run(main(), timeout=100)


@pytest.mark.slow
def test_20mb_message_both_directions() -> None:
    # Non-ASCII, quotes, backslashes and newlines: JSON escapes must keep it on one line.
    unit = 'abc "quoted" back\\slash\nnewline\ttab é中😀 '
    payload = (unit * (20 * MB // len(unit) + 1))[: 20 * MB]

    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER]) as s:
            result = await s.call_tool("echo", {"text": payload}, timeout=90)
            assert text_of(result) == payload
            # and the connection is still in a good state afterwards
            assert text_of(await s.call_tool("echo", {"text": "small"})) == "small"

    run(main(), timeout=110)


# --------------------------------------------------------------------------------------------
# many calls in flight
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_1000_calls_in_flight() -> None:
    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER]) as s:
            texts = [f"call-{i}-{random.random()}" for i in range(1000)]
            results = await asyncio.gather(*(s.call_tool("echo", {"text": t}, timeout=90) for t in texts))
            assert [text_of(r) for r in results] == texts

    run(main(), timeout=110)


def test_out_of_order_responses_are_matched_by_id() -> None:
    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER]) as s:
            # later requests finish first, so responses arrive in reverse order
            delays = [round(0.05 * (10 - i), 2) for i in range(10)]
            results = await asyncio.gather(*(s.call_tool("slow", {"seconds": d}) for d in delays))
            assert [text_of(r) for r in results] == [f"slept {float(d)}" for d in delays]

    run(main())


# --------------------------------------------------------------------------------------------
# the client goes away with calls pending
# --------------------------------------------------------------------------------------------


def test_aclose_with_pending_calls_fails_them() -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, [RUNTIME_SERVER]) as s:
            pending = [asyncio.ensure_future(s.call_tool("slow", {"seconds": 60})) for _ in range(10)]
            await asyncio.sleep(0)  # registered; whether already sent or not, they must fail the same way
            await asyncio.wait_for(s.aclose(), 15)
            results = await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 5)
            assert all(isinstance(r, ConnectionClosed) for r in results), results
            with pytest.raises(ConnectionClosed, match="the session was closed"):
                await s.call_tool("echo", {"text": "after close"})
            pid = s.process_pid
        return pid

    assert_process_gone(run(main()), timeout=2)


def test_leaving_context_with_pending_calls_fails_them() -> None:
    pending: list[asyncio.Future[dict]] = []

    async def main() -> int | None:
        async with connect_stdio(PY, [RUNTIME_SERVER]) as s:
            pending.extend(asyncio.ensure_future(s.call_tool("slow", {"seconds": 60})) for _ in range(3))
            await asyncio.sleep(0)
            pid = s.process_pid
        results = await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 5)
        assert all(isinstance(r, ConnectionClosed) for r in results), results
        return pid

    assert_process_gone(run(main()), timeout=2)


def test_server_ignoring_eof_and_sigterm_is_killed() -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, faulty("stubborn")) as s:
            assert text_of(await s.call_tool("echo", {"text": "hi"})) == "hi"
            pid = s.process_pid
        return pid

    pid = run(main(), timeout=60)
    # close stdin -> wait -> SIGTERM (ignored) -> wait -> SIGKILL; bounded by the shutdown grace
    assert_process_gone(pid, timeout=2)


# --------------------------------------------------------------------------------------------
# servers that never come up
# --------------------------------------------------------------------------------------------


def test_exit_at_once_gives_a_clear_error_quickly() -> None:
    async def main() -> None:
        with pytest.raises(
            McpError, match=r"^server '.+' exited with code 1 \(last stderr line: faulty_server: exiting at once\)$"
        ) as info:
            async with connect_stdio(PY, faulty("exit-at-once"), connect_timeout=20):
                pass
        assert isinstance(info.value, (ConnectionClosed, ProtocolError)), repr(info.value)
        assert str(info.value)

    run(main())


def test_missing_command_gives_an_error() -> None:
    async def main() -> None:
        with pytest.raises((McpError, OSError), match="cannot start"):
            async with connect_stdio("/nonexistent/mcp-server-binary", connect_timeout=5):
                pass

    run(main())


@pytest.mark.parametrize("protocol", ["auto", "legacy", "2026-07-28"])
def test_silent_server_fails_within_connect_timeout(protocol: str) -> None:
    async def main() -> None:
        start = time.monotonic()
        with pytest.raises(McpError, match="the server did not complete the MCP handshake within") as info:
            async with connect_stdio(PY, faulty("silent"), protocol=protocol, connect_timeout=2):
                pass
        elapsed = time.monotonic() - start
        assert elapsed >= 1.5, elapsed  # never before its deadline (a loaded machine only makes it later)
        assert str(info.value)

    run(main())


def _wire_messages(path: Path) -> list[object]:
    """Every JSON-RPC message found in a wire log, whatever the entry's envelope looks like."""
    found: list[object] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("jsonrpc") == "2.0":
                found.append(node)
                return
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and node.startswith("{"):
            try:
                walk(json.loads(node))
            except ValueError:
                pass

    for line in read_lines(path):
        walk(json.loads(line))
    return found
