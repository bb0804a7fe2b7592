"""A line over the stdio cap is dropped whole, up to its newline: its tail is never read as a
message of its own, and the buffer never grows past the cap (issue 34, minor: a 1 GB line
peaked at ~490 MiB and its tail was parsed as a new message). A real pipe from a child
process, read by the client transport, and the splitter fed in pieces of every size."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from mcpgen.runtime.transports.stdio import StdioClientTransport, _LineSplitter

pytestmark = pytest.mark.timeout(60)

CAP = 64 * 1024
FORGED = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"forged": True}})
GOOD = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"ok": True}})
# A line over the cap whose tail is a whole JSON-RPC message, then an honest one.
WRITER = f"""
import sys
out = sys.stdout.buffer
out.write(b"x" * {CAP * 3} + {FORGED.encode()!r} + b"\\n")
out.write({GOOD.encode()!r} + b"\\n")
out.flush()
"""


def test_the_tail_of_a_dropped_line_is_not_a_message() -> None:
    async def main() -> list[bytes]:
        transport = StdioClientTransport(sys.executable, ["-c", WRITER], max_message_bytes=CAP)
        await transport.start()
        try:
            lines = []
            while (got := await asyncio.wait_for(transport.receive(), 30)) is not None:
                lines.append(got)
            return lines
        finally:
            await transport.close()

    assert asyncio.run(main()) == [GOOD.encode()]


@pytest.mark.parametrize("piece", [1, 7, 4096, CAP - 1, CAP, CAP + 1, 10 * CAP])
def test_the_splitter_drops_a_long_line_whole_in_any_pieces(piece: int) -> None:
    data = b"a\n" + b"x" * (CAP * 3) + FORGED.encode() + b"\n" + GOOD.encode() + b"\n" + b"y" * CAP + b"z\nb\n"
    splitter = _LineSplitter(CAP)
    most = 0
    for at in range(0, len(data), piece):
        splitter.feed(data[at : at + piece])
        most = max(most, len(splitter._buffer))
    splitter.end()
    lines = []
    while (line := splitter.pop()) is not None:
        lines.append(line)
    assert lines == [b"a", GOOD.encode(), b"b"]
    assert most <= CAP
