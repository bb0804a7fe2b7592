"""The session layer alone, over an in-memory transport: correlation, timeouts, cancellation, progress."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from memory_transport import pair

from mcpgen.runtime import ConnectionClosed, RequestTimeout, RpcError, Session
from mcpgen.runtime.core.jsonrpc import JSONObject, RequestId


def run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(coro_fn(), 20))


def sessions(
    handler: Callable[[str, JSONObject, RequestId], Awaitable[Any]] | None = None, **kw: Any
) -> tuple[Session, Session]:
    a, b = pair()
    client = Session(a, **kw)
    server = Session(b, on_request=handler)
    client.start()
    server.start()
    return client, server


def hanging(
    cancelled: asyncio.Event, started: asyncio.Event | None = None
) -> Callable[[str, JSONObject, RequestId], Awaitable[Any]]:
    """A handler that never answers and records that it started and that it was cancelled."""

    async def hang(method: str, params: JSONObject, rid: RequestId) -> Any:
        if started is not None:
            started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    return hang


def test_many_requests_in_flight_each_get_their_own_answer() -> None:
    async def main() -> None:
        async def echo(method: str, params: JSONObject, rid: RequestId) -> Any:
            await asyncio.sleep(0.001 * (int(params["n"]) % 7))  # answer out of order
            return {"n": params["n"]}

        client, server = sessions(echo)
        results = await asyncio.gather(*(client.request("echo", {"n": i}) for i in range(500)))
        assert [r["n"] for r in results] == list(range(500))
        # ids are never reused while outstanding
        sent_ids = [m["id"] for m in client.transport.sent]  # type: ignore[attr-defined]
        assert len(set(sent_ids)) == 500
        await client.close()

    run(main)


def test_error_response_raises_rpc_error_with_code_and_data() -> None:
    async def main() -> None:
        async def fail(method: str, params: JSONObject, rid: RequestId) -> Any:
            raise RpcError(-32602, "bad", {"field": "x"})

        client, _ = sessions(fail)
        with pytest.raises(RpcError, match=r"^\[-32602\] bad$") as info:
            await client.request("x")
        assert (info.value.code, info.value.message, info.value.data) == (-32602, "bad", {"field": "x"})
        await client.close()

    run(main)


def test_handler_crash_is_an_internal_error_without_details() -> None:
    async def main() -> None:
        async def crash(method: str, params: JSONObject, rid: RequestId) -> Any:
            raise KeyError("secret-path /etc/shadow")

        client, _ = sessions(crash)
        with pytest.raises(RpcError, match=r"^\[-32603\] Internal error$") as info:
            await client.request("x")
        assert info.value.code == -32603
        assert "secret" not in info.value.message
        await client.close()

    run(main)


@pytest.mark.parametrize("shape", ["nan", "self-containing", "too deep"])
def test_a_result_that_is_no_json_is_answered_with_an_error(shape: str) -> None:
    async def main() -> None:
        async def bad(method: str, params: JSONObject, rid: RequestId) -> Any:
            if shape == "nan":
                return {"x": float("nan")}
            if shape == "self-containing":
                looped: list[Any] = []
                looped.append(looped)
                return {"x": looped}
            deep: list[Any] = []
            for _ in range(100_000):
                deep = [deep]
            return {"x": deep}

        client, _ = sessions(bad)
        with pytest.raises(RpcError, match=r"^\[-32603\] Result is not valid JSON$") as info:
            await client.request("x", timeout=10)
        assert (info.value.code, info.value.message) == (-32603, "Result is not valid JSON")
        await client.close()

    run(main)


def test_timeout_raises_locally_and_cancels_on_the_peer() -> None:
    async def main() -> None:
        cancelled = asyncio.Event()
        hang = hanging(cancelled)
        client, _ = sessions(hang)
        with pytest.raises(RequestTimeout, match="slow got no response within"):
            await client.request("slow", timeout=0.2)
        await asyncio.wait_for(cancelled.wait(), 5)
        note = client.transport.sent[-1]  # type: ignore[attr-defined]
        assert note["method"] == "notifications/cancelled"
        assert note["params"]["requestId"] == 1
        await client.close()

    run(main)


def test_caller_cancellation_sends_notifications_cancelled() -> None:
    async def main() -> None:
        cancelled, started = asyncio.Event(), asyncio.Event()
        client, server = sessions(hanging(cancelled, started))
        task = asyncio.ensure_future(client.request("slow"))
        await started.wait()  # the peer is working on it
        task.cancel()
        await asyncio.wait_for(cancelled.wait(), 5)
        # The cancelled request gets no response at all.
        assert all("result" not in m and "error" not in m for m in server.transport.sent)  # type: ignore[attr-defined]
        await client.close()

    run(main)


@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="eager tasks: a handler starts as its request is read, before a cancellation read after it "
    "(test_eager_start covers cancelling one that waits)",
)
def test_a_request_cancelled_before_its_handler_starts_is_forgotten_unanswered() -> None:
    async def main() -> None:
        ran: list[str] = []

        async def handler(method: str, params: JSONObject, rid: RequestId) -> Any:
            ran.append(method)
            return {}

        client, server = sessions(handler)
        # The request and its cancellation arrive together: the handler's task is cancelled
        # before it ever runs (so its own cleanup never runs either).
        await client.transport.send({"jsonrpc": "2.0", "id": 7, "method": "work"})
        await client.transport.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        assert await client.request("ping") == {}  # answered after the cancelled one was dispatched
        await asyncio.sleep(0.05)  # room for a wrongly started handler to show (this cannot fail a right one)
        assert ran == ["ping"]
        assert [m.get("id") for m in server.transport.sent] == [1]  # type: ignore[attr-defined]
        assert server.in_flight == 0
        await client.close()

    run(main)


def test_progress_resets_the_timeout_but_the_hard_maximum_holds() -> None:
    async def main() -> None:
        async def steady(method: str, params: JSONObject, rid: RequestId) -> Any:
            token = params["_meta"]["progressToken"]
            for i in range(1, 100):
                await asyncio.sleep(0.1)
                await server.notify("notifications/progress", {"progressToken": token, "progress": i})
                if params.get("stop") == i:
                    return {"done": i}
            return {}

        client, server = sessions(steady, max_timeout=4)
        seen: list[float] = []
        # Each step (0.1 s) is far under the 2 s timeout (a loaded machine only fails it when one
        # step takes 20 times as long); the 25 steps take longer than it: progress keeps it alive.
        result = await client.request("work", {"stop": 25}, timeout=2, progress=lambda p, t, m: seen.append(p))
        assert result == {"done": 25}
        assert seen == list(range(1, 26))
        # Never past the hard maximum (4 s; the 50 steps take 5 s or more), however much progress arrives.
        with pytest.raises(RequestTimeout, match="work got no response within"):
            await client.request("work", {"stop": 50}, timeout=2, progress=lambda p, t, m: None)
        await client.close()

    run(main)


def test_pending_calls_fail_at_once_when_the_peer_goes_away() -> None:
    async def main() -> None:
        working = 0
        all_working = asyncio.Event()

        async def hang(method: str, params: JSONObject, rid: RequestId) -> Any:
            nonlocal working
            working += 1
            if working == 10:
                all_working.set()
            await asyncio.sleep(60)

        client, server = sessions(hang)
        calls = [asyncio.ensure_future(client.request("slow", timeout=None)) for _ in range(10)]
        await all_working.wait()
        await server.close()
        # No timeout of their own: only the peer going away ends them (run's deadline catches a hang).
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(o, ConnectionClosed) for o in outcomes)
        with pytest.raises(ConnectionClosed, match="memory peer closed"):
            await client.request("again")

    run(main)


def test_late_response_after_timeout_is_ignored() -> None:
    async def main() -> None:
        from mcpgen.runtime.core import jsonrpc

        a, b = pair()
        client = Session(a)
        client.start()
        with pytest.raises(RequestTimeout, match="x got no response within"):
            await client.request("x", timeout=0.1)
        # A raw peer answers the timed-out id late, then answers the next request properly.
        first = jsonrpc.decode(await b.receive() or b"")
        assert jsonrpc.decode(await b.receive() or b"")["method"] == "notifications/cancelled"
        await b.send(jsonrpc.response(first["id"], {"late": True}))
        follow = asyncio.ensure_future(client.request("y", timeout=2))
        second = jsonrpc.decode(await b.receive() or b"")
        await b.send(jsonrpc.response(second["id"], {"fresh": True}))
        assert await follow == {"fresh": True}
        await client.close()

    run(main)


def test_unknown_method_without_handler_is_method_not_found() -> None:
    async def main() -> None:
        a, b = pair()
        client, server = Session(a), Session(b)
        client.start()
        server.start()
        with pytest.raises(RpcError, match=r"^\[-32601\] Method not found: nope$") as info:
            await client.request("nope")
        assert info.value.code == -32601
        await client.close()

    run(main)


def test_a_flood_of_junk_lines_runs_a_bounded_number_of_answers() -> None:
    from mcpgen.runtime.core.session import MAX_INVALID_ANSWERS

    class Lines:
        def __init__(self, lines: list[bytes]) -> None:
            self.lines = lines

        async def receive(self) -> bytes | None:
            return self.lines.pop(0) if self.lines else None

        async def send(self, message: Any) -> None:
            pass

        async def close(self) -> None:
            pass

        def describe_close(self) -> str:
            return "done"

    async def main() -> int:
        running, most = 0, 0
        release = asyncio.Event()

        async def on_invalid(line: bytes) -> None:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await release.wait()
            running -= 1

        session = Session(Lines([b"junk"] * 1000), on_invalid=on_invalid)
        session.start()
        for _ in range(10):
            await asyncio.sleep(0)
        release.set()
        await session.wait_closed()
        return most

    assert run(main) == MAX_INVALID_ANSWERS


def test_a_request_answered_in_its_callers_task_is_cancelled_by_the_peer_and_the_task_lives_on() -> None:
    # answer_here runs the handler in the calling task: the peer's notifications/cancelled stops
    # it (no answer), and the caller's task forgets that cancellation and goes on.
    async def main() -> None:
        cancelled, started = asyncio.Event(), asyncio.Event()
        client, server = sessions(hanging(cancelled, started))
        caller = asyncio.current_task()
        assert caller is not None
        answering = asyncio.ensure_future(server.answer_here({"jsonrpc": "2.0", "id": 7, "method": "slow"}))
        await started.wait()
        assert server.in_flight == 1
        await client.notify("notifications/cancelled", {"requestId": 7})
        assert await answering is None
        assert cancelled.is_set()
        if sys.version_info >= (3, 11):  # (3.10 does not count cancellations)
            assert answering.cancelling() == 0
        assert server.in_flight == 0
        await client.close()

    run(main)


def test_a_request_answered_in_its_callers_task_returns_its_answer_or_error() -> None:
    async def main() -> None:
        async def handler(method: str, params: JSONObject, rid: RequestId) -> Any:
            if method == "bad":
                raise RpcError(-32602, "bad params")
            return {"echo": params["x"]}

        client, server = sessions(handler)
        ok = await server.answer_here({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"x": 3}})
        bad = await server.answer_here({"jsonrpc": "2.0", "id": 2, "method": "bad"})
        assert ok == {"jsonrpc": "2.0", "id": 1, "result": {"echo": 3}}
        assert bad is not None and bad["error"]["code"] == -32602
        assert server.in_flight == 0
        await client.close()

    run(main)


def test_a_cancellation_not_from_the_peer_goes_on_up_from_a_request_answered_in_place() -> None:
    async def main() -> None:
        cancelled, started = asyncio.Event(), asyncio.Event()
        client, server = sessions(hanging(cancelled, started))
        answering = asyncio.ensure_future(server.answer_here({"jsonrpc": "2.0", "id": 9, "method": "slow"}))
        await started.wait()
        answering.cancel()  # e.g. the server shutting down
        with pytest.raises(asyncio.CancelledError, match="^$"):
            await answering
        assert server.in_flight == 0
        await client.close()

    run(main)
