"""The SSE parser (runtime/transports/sse.py) reads what a server sends, which is untrusted: a
`retry` is taken only as the spec writes it (ASCII digits), and never one that is not a number
of milliseconds a reconnection could wait, whatever digits str.isdigit knows; an `id` only when
it could be sent back as a Last-Event-ID header."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mcpgen.runtime.transports import sse


async def _lines(text: str) -> AsyncIterator[str]:
    for line in text.splitlines(keepends=True):
        yield line


def _events(text: str) -> list[sse.Event]:
    async def collect() -> list[sse.Event]:
        return [event async for event in sse.parse(_lines(text))]

    return asyncio.run(collect())


@pytest.mark.parametrize(
    "value",
    ["²", "¹²", "١٢", "12a", "-5", "+5", " 5", "5.0", "", "9" * 10, "9" * 5000],
)
def test_a_retry_that_is_not_a_few_ascii_digits_is_ignored(value: str) -> None:
    events = _events(f"retry: 10\n\nretry: {value}\ndata: x\n\n")
    assert [e.retry for e in events] == [10, None]
    assert events[1].data == "x"


def test_an_ascii_retry_is_read_and_an_id_carries_to_later_events() -> None:
    events = _events("id: e1\nretry: 250\ndata: a\n\ndata: b\n\nid: e\0x\ndata: c\n\n")
    assert [(e.id, e.retry, e.data) for e in events] == [("e1", 250, "a"), ("e1", None, "b"), ("e1", None, "c")]


@pytest.mark.parametrize("value", ["e\0x", "é", "✓", "e\x7f", "e\x01", "e\tx", "x" * 257])
def test_an_id_that_could_not_be_sent_back_as_a_header_is_not_taken(value: str) -> None:
    events = _events(f"id: e1\ndata: a\n\nid: {value}\ndata: b\n\n")
    assert [(e.id, e.data) for e in events] == [("e1", "a"), ("e1", "b")]


def test_a_printable_ascii_id_up_to_256_characters_is_taken() -> None:
    for value in ("", "a b", "~!%", "x" * 256):
        assert _events(f"id: e1\n\nid: {value}\ndata: b\n\n")[-1].id == value
