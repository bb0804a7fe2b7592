"""Request deadlines under one timer: each expires on time, moved ones at their new time,
answered ones never, and the heap stays bounded however many requests come and go."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from memory_transport import pair

from mcpgen.runtime import RequestTimeout, Session
from mcpgen.runtime.core.deadlines import Deadlines
from mcpgen.runtime.core.jsonrpc import JSONObject, RequestId


def test_keys_expire_in_deadline_order_each_once_unless_moved_or_gone() -> None:
    async def main() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        due: dict[str, float] = {}
        expired: list[tuple[str, float]] = []

        def expire(key: str) -> None:
            expired.append((key, loop.time() - start))
            del due[key]

        deadlines: Deadlines[str] = Deadlines(due.get, expire, lambda: len(due))
        for key, after in [("late", 0.30), ("early", 0.10), ("answered", 0.05), ("moved", 0.15), ("mid", 0.20)]:
            due[key] = start + after
            deadlines.add(key, due[key])
        del due["answered"]  # answered in time: never expires
        due["moved"] = start + 0.40  # progress came: its deadline moved later
        deadlines.add("moved", due["moved"])
        while len(expired) < 4 and loop.time() - start < 5:
            await asyncio.sleep(0.05)
        return expired

    expired = asyncio.run(main())
    assert [key for key, _ in expired] == ["early", "mid", "late", "moved"]
    for (_, at), wanted in zip(expired, [0.10, 0.20, 0.30, 0.40], strict=True):
        assert wanted <= at < wanted + 1.0  # never early; late only by what a loaded machine adds


def test_an_earlier_deadline_rearms_the_timer() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        due: dict[int, float] = {}
        fired = loop.create_future()
        deadlines: Deadlines[int] = Deadlines(due.get, lambda key: fired.set_result(loop.time()), lambda: len(due))
        due[1] = loop.time() + 30
        deadlines.add(1, due[1])
        due[2] = loop.time() + 0.05
        deadlines.add(2, due[2])
        return await asyncio.wait_for(fired, 5) - (due[2] - 0.05)

    assert asyncio.run(main()) < 1


def sessions() -> tuple[Session, Session]:
    async def answer(method: str, params: JSONObject, rid: RequestId) -> Any:
        if method == "hang":
            await asyncio.sleep(60)
        return {}

    a, b = pair()
    client, server = Session(a, timeout=30), Session(b, on_request=answer)
    client.start()
    server.start()
    return client, server


def test_answered_requests_leave_no_growing_heap_behind() -> None:
    async def main() -> int:
        client, _ = sessions()
        biggest = 0
        for _ in range(2000):
            await client.request("ping")
            biggest = max(biggest, len(client._deadlines))
        await asyncio.gather(*(client.request("ping") for _ in range(500)))
        biggest = max(biggest, len(client._deadlines))
        await client.close()
        return biggest

    # Bounded by twice the requests in flight plus a constant, not by the requests made.
    assert asyncio.run(main()) <= 2 * 500 + 64 + 1


def test_many_waiting_requests_time_out_together_on_time() -> None:
    async def main() -> float:
        client, _ = sessions()
        start = time.monotonic()
        results = await asyncio.gather(
            *(client.request("hang", timeout=0.2 + 0.001 * (i % 5)) for i in range(200)), return_exceptions=True
        )
        assert all(isinstance(r, RequestTimeout) for r in results)
        elapsed = time.monotonic() - start
        await client.close()
        return elapsed

    assert asyncio.run(main()) >= 0.2  # never before the deadline; a loaded machine only makes it later


@pytest.mark.parametrize("kind", [1, "a"])
def test_ints_and_strings_as_keys_never_compare(kind: int | str) -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        when = loop.time() + 0.05
        due: dict[Any, float] = {1: when, "a": when, kind: when}
        expired: list[Any] = []
        deadlines: Deadlines[Any] = Deadlines(due.get, expired.append, lambda: len(due))
        for key in (1, "a", kind):
            deadlines.add(key, when)  # equal deadlines: the tie-breaker decides, never the keys
        await asyncio.sleep(0.2)
        return expired

    assert sorted(map(str, asyncio.run(main()))) == sorted(["1", "a", str(kind)])
