"""A bare Session served over stdio, run by a Python with eager tasks (3.12+) by test_eager_start.

Its handlers report what they saw of the task running them: whether they ran while their
request was being dispatched (eagerly), the task and the request id they ran under, and
whether a timeout or a cancellation reached them (and not the session's reader).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repo, not an installed mcpgen

from mcpgen.runtime.core.session import Session, current_request  # noqa: E402
from mcpgen.runtime.transports.stdio import StdioServerTransport  # noqa: E402

leak: contextvars.ContextVar[str] = contextvars.ContextVar("leak", default="unset")


async def main() -> None:
    seen: dict[str, Any] = {"eager": 0, "lazy": 0, "tasks": [], "cancelled": 0}
    dispatching = False

    async def handle(method: str, params: dict[str, Any], request_id: Any) -> Any:
        task = asyncio.current_task()
        if task is None or current_request.get() != request_id:
            raise RuntimeError(f"ran outside its own task: {task!r}, {current_request.get()!r}")
        if method == "echo":
            seen["eager" if dispatching else "lazy"] += 1
            seen["tasks"].append(task)
            before = leak.get()
            leak.set(str(request_id))  # must not reach the next request
            return {"echo": params.get("text"), "leak": before}
        if method == "timeout":
            try:
                async with asyncio.timeout(0.05):
                    await asyncio.sleep(10)
            except TimeoutError:
                return {"timedOut": True}
            return {"timedOut": False}
        if method == "wait":
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                seen["cancelled"] += 1
                raise
            return {}
        if method == "status":
            return {
                "version": list(sys.version_info[:2]),
                "eager": seen["eager"],
                "lazy": seen["lazy"],
                "distinctTasks": len(set(seen["tasks"])),
                "cancelled": seen["cancelled"],
                "inFlight": session.in_flight,
            }
        raise RuntimeError(f"unknown method {method}")

    transport = StdioServerTransport()
    await transport.start()
    session = Session(transport, on_request=handle)
    dispatch = session.dispatch

    def dispatch_marked(message: Any) -> None:
        nonlocal dispatching
        dispatching = True
        try:
            dispatch(message)
        finally:
            dispatching = False

    session.dispatch = dispatch_marked  # type: ignore[method-assign]
    session.start()
    await session.wait_closed()


asyncio.run(main())
