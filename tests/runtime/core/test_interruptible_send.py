"""A request's deadline, its caller's cancellation and the session's close interrupt its send
too, on transports that say a send may be cancelled at any wait (`interruptible_send`).

The transport here blocks in `send` the way a full pipe or an HTTP exchange does, until the
test releases it; nothing is ever timed, only ordered.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcpgen.runtime import ConnectionClosed, RequestTimeout, Session
from mcpgen.runtime.core.jsonrpc import JSONObject


def run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(coro_fn(), 20))


class BlockingTransport:
    """Sends of requests wait until `release` (a peer that stops reading); every message sent,
    in order, is kept; `answers` makes the send deliver the answer itself (an HTTP exchange)."""

    interruptible_send = True

    def __init__(self, *, answers: bool = False) -> None:
        self.sent: list[JSONObject] = []
        self.blocked = asyncio.Event()
        self.released = asyncio.Event()
        self.answers = answers
        self.session: Session | None = None
        self.sends_cancelled = 0
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    def bind_session(self, session: Session) -> None:
        self.session = session

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        assert isinstance(message, dict)
        self.sent.append(message)
        if "id" not in message or "method" not in message:
            return
        self.blocked.set()
        try:
            await self.released.wait()
        except asyncio.CancelledError:
            self.sends_cancelled += 1
            raise
        if self.answers and self.session is not None:
            self.session.dispatch({"jsonrpc": "2.0", "id": message["id"], "result": {"ok": True}})

    async def receive(self) -> bytes | None:
        return await self._inbox.get()

    async def close(self) -> None:
        self._inbox.put_nowait(None)

    def describe_close(self) -> str:
        return "closed"


def still_cancelled() -> int:
    """How many cancellations the current task still carries (0 on Python 3.10: not counted)."""
    task = asyncio.current_task()
    assert task is not None
    return task.cancelling() if sys.version_info >= (3, 11) else 0


def test_timeout_interrupts_a_send_that_blocks_and_the_caller_lives_on() -> None:
    async def main() -> None:
        transport = BlockingTransport()
        session = Session(transport, timeout=None)
        session.start()
        with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.05s$"):
            await session.request("tools/call", {"name": "echo"}, timeout=0.05)
        assert transport.sends_cancelled == 1
        assert still_cancelled() == 0
        await asyncio.sleep(0)  # no cancellation left over for the caller's next wait
        await asyncio.sleep(0)
        # The peer is told, after the request itself: the stream stays in order.
        assert [m.get("method") for m in transport.sent] == ["tools/call", "notifications/cancelled"]
        assert transport.sent[1]["params"] == {"requestId": 1, "reason": "request timed out"}
        assert session.in_flight == 0
        await session.close()

    run(main)


def test_a_send_that_answers_in_the_callers_task_is_interrupted_at_its_deadline() -> None:
    async def main() -> None:
        transport = BlockingTransport(answers=True)
        session = Session(transport, timeout=None)
        transport.bind_session(session)
        session.start()
        with pytest.raises(RequestTimeout, match=r"^ping got no response within 0\.05s$"):
            await session.request("ping", timeout=0.05)
        transport.released.set()  # the next exchange answers within its send
        assert await session.request("ping", timeout=5) == {"ok": True}
        assert still_cancelled() == 0
        await session.close()

    run(main)


def test_cancelling_the_caller_during_a_blocked_send_is_not_swallowed() -> None:
    async def main() -> None:
        transport = BlockingTransport()
        session = Session(transport, timeout=None)
        session.start()
        call = asyncio.ensure_future(session.request("tools/call", {"name": "echo"}, timeout=30))
        await transport.blocked.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError, match=r"^$"):
            await call
        assert call.cancelled()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert transport.sent[-1]["params"] == {"requestId": 1, "reason": "the caller cancelled the request"}
        await session.close()

    run(main)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10 counts no cancellations")
def test_an_outer_cancellation_at_the_deadline_still_wins() -> None:
    async def main() -> None:
        transport = BlockingTransport()
        session = Session(transport, timeout=None)
        session.start()
        call = asyncio.ensure_future(session.request("tools/call", timeout=30))
        await transport.blocked.wait()
        # The session interrupts the send (as at a deadline) and the caller is cancelled too,
        # before the task runs again: the caller's own cancellation goes on up.
        session._expire(1)  # (the deadline's own callback, without waiting for it)
        call.cancel()
        with pytest.raises(asyncio.CancelledError, match=r"^$"):
            await call
        assert call.cancelled()
        await session.close()

    run(main)


def test_close_interrupts_a_blocked_send() -> None:
    async def main() -> None:
        transport = BlockingTransport()
        session = Session(transport, timeout=None)
        session.start()
        call = asyncio.ensure_future(session.request("tools/call", timeout=None))
        await transport.blocked.wait()
        await session.close("going away")
        with pytest.raises(ConnectionClosed, match=r"^going away$"):
            await call
        assert transport.sends_cancelled == 1

    run(main)


def test_a_transport_that_does_not_say_so_is_never_interrupted() -> None:
    async def main() -> None:
        transport = BlockingTransport()
        transport.interruptible_send = False  # type: ignore[misc]
        session = Session(transport, timeout=None)
        session.start()
        call = asyncio.ensure_future(session.request("tools/call", timeout=0.01))
        await transport.blocked.wait()
        await asyncio.sleep(0.05)
        assert not call.done() and transport.sends_cancelled == 0  # still in its send
        transport.released.set()
        with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.01s$"):
            await call
        await session.close()

    run(main)
