"""The deadlines of a session's outstanding requests, under one event-loop timer.

A timer per request (`loop.call_later`) costs a TimerHandle, a push onto asyncio's timer heap
(whose entries compare in Python), a cancel and a later pop for every request that is answered
in time, nearly all of them: more than encoding the request. Here a request's deadline is a
tuple on a heap of our own (compared in C), and one timer is armed at the earliest deadline.
An answered request's tuple is left where it is (removing it from the middle of a heap costs
more than skipping it when it comes up) and dropped when it does, or earlier, once the heap
holds more than twice as many tuples as there are requests in flight (memory stays bounded).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Generic, TypeVar

_Key = TypeVar("_Key")

# Stale tuples are swept out once the heap holds more than twice the requests in flight plus this.
_SLACK = 64


class Deadlines(Generic[_Key]):
    """Keys that expire at a loop time each: `expire(key)` is called once a key's deadline has
    passed, unless `due(key)` no longer names that deadline (the request was answered or its
    deadline moved)."""

    def __init__(
        self, due: Callable[[_Key], float | None], expire: Callable[[_Key], None], in_flight: Callable[[], int]
    ) -> None:
        self._due = due
        self._expire = expire
        self._in_flight = in_flight
        self._heap: list[tuple[float, int, _Key]] = []  # (deadline, tie-breaker, key)
        self._order = itertools.count()  # keys never compare: ids may be ints and strings
        self._timer: asyncio.TimerHandle | None = None

    def add(self, key: _Key, when: float) -> None:
        """`key` expires at loop time `when` (a later `add` of the same key moves its deadline)."""
        if len(self._heap) > 2 * self._in_flight() + _SLACK:
            self._sweep()  # (each sweep at least halves the heap: its cost is spread over the adds)
        heapq.heappush(self._heap, (when, next(self._order), key))
        timer = self._timer
        if timer is None or when < timer.when():
            if timer is not None:
                timer.cancel()
            self._timer = asyncio.get_running_loop().call_at(when, self._fire, when)

    def clear(self) -> None:
        self._heap.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def __len__(self) -> int:
        """Tuples held, stale ones included (what memory the deadlines take)."""
        return len(self._heap)

    def _live(self, item: tuple[float, int, _Key]) -> bool:
        return self._due(item[2]) == item[0]

    def _sweep(self) -> None:
        live = [item for item in self._heap if self._live(item)]
        heapq.heapify(live)
        self._heap = live

    def _fire(self, armed_for: float) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        # The loop runs a timer up to a clock tick early: what it was armed for is due too.
        now = max(loop.time(), armed_for)
        while self._heap and self._heap[0][0] <= now:
            item = heapq.heappop(self._heap)
            if self._live(item):
                self._expire(item[2])
        if self._heap and self._timer is None:
            first = self._heap[0][0]
            self._timer = loop.call_at(first, self._fire, first)
