"""Coalescing the messages one event-loop turn sends into one write.

A pipe write is a system call that also wakes the reading process; with many requests in flight,
a turn that answers 32 of them would make 32 of each. `TurnWriter` writes the first message of a
turn at once (a lone request or answer is not delayed) and the rest of that turn's messages
together when the turn ends, or as soon as they pass `limit` bytes (memory stays bounded even
for a sender that never yields).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# Queued bytes that are written at once instead of at the end of the turn.
DEFAULT_LIMIT = 64 * 1024


class TurnWriter:
    """Writes through `write`: the first message of a loop turn at once, the rest batched."""

    def __init__(self, write: Callable[[bytes], None], *, limit: int = DEFAULT_LIMIT) -> None:
        self._write = write
        self._limit = limit
        # Are other messages likely to follow in this turn (several requests in flight)? When
        # not, a message is written without opening a turn: one request at a time costs no
        # extra loop turn. None: always batch.
        self.busy: Callable[[], bool] | None = None
        self._queued: list[bytes] | None = None  # None: no message sent yet in this turn
        self._size = 0

    def add(self, data: bytes) -> None:
        """Send `data` (one framed message) in this turn."""
        queued = self._queued
        if queued is None:
            self._write(data)
            busy = self.busy
            if busy is None or busy():
                self._queued = []
                asyncio.get_running_loop().call_soon(self._end_turn)
            return
        queued.append(data)
        self._size += len(data)
        if self._size >= self._limit:
            self._flush()

    def _flush(self) -> None:
        queued = self._queued
        if queued:
            self._queued, self._size = [], 0
            self._write(b"".join(queued))

    def _end_turn(self) -> None:
        self._flush()
        self._queued = None
