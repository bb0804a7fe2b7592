"""How the stdio ends write: each message goes into the pipe as it is sent, none held back to go
out later with others, so the peer starts on it while this side works on the next (with many
requests in flight both processes keep a core busy instead of taking turns)."""

from __future__ import annotations

import asyncio
import os
import select
import sys

import pytest

from mcpgen.runtime.transports.stdio import StdioClientTransport

pytestmark = pytest.mark.timeout(60)

# Echoes every line back at once.
ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"


def _read_lines_blocking(fd: int, count: int, timeout: float) -> list[bytes]:
    """Up to `count` lines from `fd` without running the event loop (select, then os.read)."""
    data = b""
    while data.count(b"\n") < count:
        readable, _, _ = select.select([fd], [], [], timeout)
        if not readable:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data.splitlines()


def test_every_message_reaches_the_peer_before_the_loop_runs_again() -> None:
    async def main() -> list[bytes]:
        transport = StdioClientTransport(sys.executable, ["-c", ECHO])
        await transport.start()
        try:
            for i in range(5):
                await transport.send({"jsonrpc": "2.0", "method": "note", "params": {"i": i}})
            # From here on the loop does not run: only bytes already written can come back.
            assert transport.process is not None
            pipe = transport.process._transport.get_pipe_transport(1)  # type: ignore[attr-defined]
            fd = pipe.get_extra_info("pipe").fileno()
            return _read_lines_blocking(fd, 5, timeout=10)
        finally:
            await transport.close()

    lines = asyncio.run(main())
    assert [line.count(b'"i":') for line in lines] == [1] * 5
    assert [int(line.rsplit(b'"i":', 1)[1].rstrip(b"}")) for line in lines] == [0, 1, 2, 3, 4]
