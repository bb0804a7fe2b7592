"""The stdio server transport opts in to interruptible sends: a request the server sends (an
elicitation, a sampling request) times out at its deadline even when the client has stopped
reading and the send waits for room in a full pipe, and a send cancelled while a regular file's
line is being written leaves that line whole and in its place.

Nothing here is timed: the subprocess either reports its timeout or the test's own bound ends it.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mcpgen.runtime.core.errors import ConnectionClosed
from mcpgen.runtime.transports.stdio import StdioServerTransport, _SerialWriter

pytestmark = pytest.mark.timeout(120)

# A server end whose client never reads: a 1 MiB request cannot fit the pipe, so its send waits
# for room until the session's deadline interrupts it.
SERVER = """
import asyncio, os, sys
from mcpgen.runtime import RequestTimeout, Session
from mcpgen.runtime.transports.stdio import StdioServerTransport

async def main():
    transport = StdioServerTransport()
    await transport.start()
    session = Session(transport, timeout=None)
    session.start()
    try:
        await session.request("elicitation/create", {"pad": "x" * (1 << 20)}, timeout=0.3)
    except RequestTimeout as exc:
        print("timed out:", exc, file=sys.stderr, flush=True)
    os._exit(0)  # (the loop would otherwise try to flush the unread megabyte)

asyncio.run(main())
"""


def test_a_client_that_stops_reading_does_not_hold_a_server_request_past_its_deadline() -> None:
    assert StdioServerTransport.interruptible_send is True
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        # stdout is never read (a client that stopped reading); stdin stays open.
        assert proc.stderr is not None
        report = proc.stderr.readline().decode()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert report == "timed out: elicitation/create got no response within 0.3s\n"


def test_a_cancelled_file_write_is_finished_whole_before_the_next_line() -> None:
    written: list[bytes] = []
    gate = threading.Event()

    def slow_write(data: bytes) -> None:
        if not written:
            assert gate.wait(30)  # the first line's write blocks until its sender gave up
        written.append(data)

    async def main() -> None:
        writer = _SerialWriter(slow_write)
        first = asyncio.ensure_future(writer.write(b"first\n"))
        await asyncio.sleep(0)
        first.cancel()  # (a deadline interrupting the send)
        with pytest.raises(asyncio.CancelledError, match=r"^$"):
            await first
        second = writer.write(b"second\n")
        gate.set()
        await second
        third = writer.write(b"third\n")
        await third

    asyncio.run(asyncio.wait_for(main(), 60))
    assert written == [b"first\n", b"second\n", b"third\n"]


def test_a_failing_file_write_fails_its_send_with_connection_closed() -> None:
    def broken(data: bytes) -> None:
        raise OSError(28, "No space left on device")

    async def main() -> None:
        writer = _SerialWriter(broken)
        with pytest.raises(ConnectionClosed, match=r"^cannot write stdout: No space left on device$"):
            await writer.write(b"line\n")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_server_whose_stdin_and_stdout_are_regular_files_answers_every_request_in_whole_lines(tmp_path: Path) -> None:
    # Both ends regular files: stdin read in a thread, every answer written by _SerialWriter.
    weather = Path(__file__).resolve().parents[3] / "examples/weather"
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    requests = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    requests += [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(2, 52)]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    sink = tmp_path / "out.jsonl"
    with source.open("rb") as stdin, sink.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "weather_server"], cwd=weather, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
            timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = sink.read_bytes().split(b"\n")
    assert lines[-1] == b""  # every line ended by its newline, none cut
    answers = [json.loads(line) for line in lines[:-1]]
    assert sorted(a["id"] for a in answers) == list(range(1, 52))
    assert all(a == {"jsonrpc": "2.0", "id": a["id"], "result": {}} for a in answers if a["id"] != 1)
