"""How the stdio client reads its server: an answer reaches its caller in the loop turn it is
read (no hand-over through asyncio's subprocess transport one turn later), and what came just
before the end of the pipe is still delivered before the end."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from rt_support import FAULTY_SERVER, PY, RUNTIME_SERVER, text_of

from mcpgen.runtime import ConnectionClosed, connect_stdio

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts its turns (one poll for I/O and the callbacks it made ready)."""

    turns = 0

    def _run_once(self) -> None:
        self.turns += 1
        super()._run_once()  # type: ignore[misc]


def run_counting(main: Callable[[CountingLoop], Awaitable[Any]]) -> Any:
    loop = CountingLoop()
    try:
        return loop.run_until_complete(asyncio.wait_for(main(loop), 60))
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_one_call_at_a_time_takes_two_loop_turns(protocol: str) -> None:
    # One turn reads the answer and resolves the caller's future, one runs the caller (which
    # sends the next request). A third, asyncio handing the read over with call_soon, is gone.
    calls = 200

    async def main(loop: CountingLoop) -> float:
        async with connect_stdio(PY, [RUNTIME_SERVER], protocol=protocol) as s:
            for i in range(20):
                assert text_of(await s.call_tool("echo", {"text": f"warm {i}"})) == f"warm {i}"
            before = loop.turns
            for i in range(calls):
                assert text_of(await s.call_tool("echo", {"text": str(i)})) == str(i)
            return (loop.turns - before) / calls

    turns = run_counting(main)
    assert turns <= 2.1, f"{turns:.2f} loop turns per call"


def test_an_answer_written_just_before_exit_is_delivered() -> None:
    # The answer and the end of the server's stdout come in one read or two in a row: the
    # answer (read straight into the session) must still come first.
    async def main() -> None:
        async with connect_stdio(PY, [FAULTY_SERVER, "answer-exit"]) as s:
            assert text_of(await s.call_tool("echo", {"text": "last words"})) == "last words"
            with pytest.raises(
                ConnectionClosed,
                # the exit code when the process was reaped before the pipe's end was read (not waited
                # for), the last stderr line when it was read by then
                match=r"^server '.+' (exited with code 0|closed its stdout)"
                r"( \(last stderr line: faulty_server: got tools/call id=3\))?$",
            ):
                await s.call_tool("echo", {"text": "too late"})

    asyncio.run(asyncio.wait_for(main(), 60))
