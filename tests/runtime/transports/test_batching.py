"""A loop turn's messages go out in one write; a lone message at once; memory stays bounded.
And the stdio line splitter: lines split across chunks, CRLF, blank lines, the last line at EOF."""

from __future__ import annotations

import asyncio

from mcpgen.runtime.transports.batching import TurnWriter
from mcpgen.runtime.transports.stdio import _LineSplitter


def test_a_lone_message_is_written_at_once() -> None:
    async def main() -> list[bytes]:
        writes: list[bytes] = []
        out = TurnWriter(writes.append)
        out.add(b"one\n")
        assert writes == [b"one\n"]  # not delayed to the end of the turn
        await asyncio.sleep(0)
        return writes

    assert asyncio.run(main()) == [b"one\n"]


def test_the_rest_of_a_turn_goes_out_in_one_write() -> None:
    async def main() -> list[bytes]:
        writes: list[bytes] = []
        out = TurnWriter(writes.append)
        for i in range(5):
            out.add(b"m%d\n" % i)
        assert writes == [b"m0\n"]
        await asyncio.sleep(0)  # the turn ends
        assert writes == [b"m0\n", b"m1\nm2\nm3\nm4\n"]
        out.add(b"next\n")  # a new turn starts with a write of its own
        await asyncio.sleep(0)
        return writes

    assert asyncio.run(main()) == [b"m0\n", b"m1\nm2\nm3\nm4\n", b"next\n"]


def test_a_sender_that_never_yields_is_written_in_bounded_batches() -> None:
    async def main() -> list[bytes]:
        writes: list[bytes] = []
        out = TurnWriter(writes.append, limit=100)
        for _ in range(50):
            out.add(b"x" * 9 + b"\n")
        assert len(writes) == 5 and all(len(w) <= 100 for w in writes[1:])
        await asyncio.sleep(0)
        return writes

    writes = asyncio.run(main())
    assert b"".join(writes) == (b"x" * 9 + b"\n") * 50


def test_the_splitter_keeps_lines_whole_across_chunks() -> None:
    s = _LineSplitter(1000)
    for chunk in (b'{"a":', b"1}\r\n\n  \n{", b'"b":2}\n{"c"', b":3}"):
        s.feed(chunk)
    assert [s.pop(), s.pop(), s.pop()] == [b'{"a":1}', b'{"b":2}', None]
    s.end()  # the last line counts without its newline
    assert [s.pop(), s.pop()] == [b'{"c":3}', None]


def test_the_splitter_drops_a_line_over_its_limit() -> None:
    s = _LineSplitter(10)
    s.feed(b"x" * 8)
    s.feed(b"y" * 8)  # 16 bytes and no newline yet: dropped
    s.feed(b"z\nok\n")
    assert [s.pop(), s.pop(), s.pop()] == [b"z", b"ok", None]


def test_with_one_request_in_flight_nothing_waits_for_the_end_of_the_turn() -> None:
    async def main() -> None:
        writes: list[bytes] = []
        in_flight = [1]
        out = TurnWriter(writes.append)
        out.busy = lambda: in_flight[0] > 1
        out.add(b"a\n")
        out.add(b"b\n")
        assert writes == [b"a\n", b"b\n"]  # each written at once, no turn opened
        in_flight[0] = 3
        out.add(b"c\n")
        out.add(b"d\n")
        assert writes == [b"a\n", b"b\n", b"c\n"]
        await asyncio.sleep(0)
        assert writes == [b"a\n", b"b\n", b"c\n", b"d\n"]

    asyncio.run(main())
