"""The store contract, run against the in-memory store and a real redis-server: sessions (cap,
expiry, end), event logs (replay after an id, the live tail, trimming), pub/sub, garbled data."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
from collections.abc import Awaitable, Callable

import pytest

from mcpgen.runtime.server.store import MemoryStore, SessionRecord, Store, StoreUnavailable, open_store
from mcpgen.runtime.server.store.base import EVENT_LOG_LENGTH, parse_event_id, redact
from tests.cluster import needs_redis
from tests.serving import free_port
from tests.stores import make_store, redis_url

__all__ = ["make_store", "redis_url"]  # the fixtures this module uses


def run(make_store: Callable[[], Store], body: Callable[[Store], Awaitable[None]]) -> None:
    async def main() -> None:
        store = make_store()
        await store.start(f"mcpgen:test-{secrets.token_hex(4)}:")
        try:
            await body(store)
        finally:
            await store.close()

    asyncio.run(asyncio.wait_for(main(), 30))


def sid() -> str:
    return secrets.token_urlsafe(24)


RECORD = SessionRecord("2025-06-18", {"elicitation": {}}, {"name": "c", "version": "1"})


def test_sessions_open_touch_save_end(make_store: Callable[[], Store]) -> None:
    async def body(store: Store) -> None:
        a = sid()
        assert await store.touch_session(a, 60) is None
        assert await store.open_session(a, RECORD, 60, 10)
        assert await store.touch_session(a, 60) == RECORD
        changed = SessionRecord("2025-06-18", {}, {}, "debug", ["file:///a"])
        await store.save_session(a, changed, 60)
        assert await store.touch_session(a, 60) == changed
        assert await store.end_session(a)
        assert not await store.end_session(a)
        assert await store.touch_session(a, 60) is None
        # Saving an ended session does not bring it back.
        await store.save_session(a, changed, 60)
        assert await store.touch_session(a, 60) is None

    run(make_store, body)


def test_session_cap_counts_live_sessions_only(make_store: Callable[[], Store]) -> None:
    async def body(store: Store) -> None:
        first, second, third = sid(), sid(), sid()
        assert await store.open_session(first, RECORD, 0.3, 2)
        assert await store.open_session(second, RECORD, 60, 2)
        assert not await store.open_session(third, RECORD, 60, 2)
        await asyncio.sleep(0.5)  # the first expires: room again
        assert await store.touch_session(first, 0.3) is None
        assert await store.open_session(third, RECORD, 60, 2)
        assert await store.end_session(second)
        assert await store.open_session(sid(), RECORD, 60, 2)

    run(make_store, body)


def test_touch_pushes_expiry_back(make_store: Callable[[], Store]) -> None:
    async def body(store: Store) -> None:
        # Touches 0.6 s apart keep a 2 s session for 2.4 s, longer than its own TTL: the margin
        # (1.4 s a touch) is for a loaded machine; the expiry's wait is a lower bound (safe).
        loop = asyncio.get_running_loop()
        a = sid()
        assert await store.open_session(a, RECORD, 2.0, 10)
        started = loop.time()
        for _ in range(4):
            await asyncio.sleep(0.6)
            assert await store.touch_session(a, 2.0) == RECORD
        assert loop.time() - started > 2.0  # (it outlived one TTL: the touches kept it)
        await asyncio.sleep(2.5)
        assert await store.touch_session(a, 2.0) is None

    run(make_store, body)


def test_event_log_replays_after_an_id_and_tails(make_store: Callable[[], Store]) -> None:
    async def body(store: Store) -> None:
        stream = f"events:{sid()}:p{secrets.token_hex(6)}"
        assert not await store.has_stream(stream)
        ids = [await store.append_event(stream, f"e{n}".encode(), 60) for n in range(5)]
        assert await store.has_stream(stream)
        assert [d for _, d in await store.read_events(stream, "0", 0)] == [b"e0", b"e1", b"e2", b"e3", b"e4"]
        replay = await store.read_events(stream, ids[1], 0)
        assert replay == [(ids[2], b"e2"), (ids[3], b"e3"), (ids[4], b"e4")]
        assert await store.read_events(stream, ids[4], 0.2) == []  # waited, nothing came

        async def later() -> None:
            await asyncio.sleep(0.2)
            await store.append_event(stream, b"e5", 60)

        task = asyncio.create_task(later())
        tail = await store.read_events(stream, ids[4], 5)
        await task
        assert [d for _, d in tail] == [b"e5"]

    run(make_store, body)


def test_event_log_length_is_bounded(make_store: Callable[[], Store]) -> None:
    async def body(store: Store) -> None:
        stream = f"events:{sid()}:g{secrets.token_hex(6)}"
        for n in range(EVENT_LOG_LENGTH + 300):
            await store.append_event(stream, str(n).encode(), 60)
        kept: list[bytes] = []
        after = "0"
        while batch := await store.read_events(stream, after, 0):
            kept += [d for _, d in batch]
            after = batch[-1][0]
        assert EVENT_LOG_LENGTH <= len(kept) < EVENT_LOG_LENGTH + 300
        assert kept[-1] == str(EVENT_LOG_LENGTH + 299).encode()

    run(make_store, body)


def test_memory_event_logs_are_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.runtime.server.store import memory

    monkeypatch.setattr(memory, "MAX_LOG_BYTES", 10_000)

    async def body() -> None:
        store = MemoryStore()
        streams = [f"events:{sid()}:g{secrets.token_hex(6)}" for _ in range(30)]
        for stream in streams:  # 30 streams x 10 events x 100 bytes: three times the budget
            for _ in range(10):
                await store.append_event(stream, b"x" * 100, 60)
        assert store._log_bytes <= 10_000
        assert not await store.has_stream(streams[0])  # the oldest went first
        assert len(await store.read_events(streams[-1], "0", 0)) == 10  # the newest is whole
        big = f"events:{sid()}:g{secrets.token_hex(6)}"
        for _ in range(200):  # one stream alone over the budget keeps its newest events
            await store.append_event(big, b"y" * 100, 60)
        kept = await store.read_events(big, "0", 0)
        assert store._log_bytes <= 10_000 and 0 < len(kept) <= 100
        assert kept[-1][0] == "200"

    asyncio.run(body())


def test_pubsub_reaches_every_subscriber(make_store: Callable[[], Store]) -> None:
    async def main() -> None:
        namespace = f"mcpgen:test-{secrets.token_hex(4)}:"
        one, two = make_store(), make_store()
        got: dict[str, list[bytes]] = {"one": [], "two": []}
        done = asyncio.Event()

        def collect(name: str) -> Callable[[bytes], Awaitable[None]]:
            async def handler(data: bytes) -> None:
                got[name].append(data)
                if all(got.values()):
                    done.set()

            return handler

        one.subscribe("notify", collect("one"))
        two.subscribe("notify", collect("two"))
        await one.start(namespace)
        await two.start(namespace)
        try:
            if one.shared:
                # start() returns before the server has confirmed the subscription: published
                # again until both heard it, up to a deadline (not a sleep that hopes they are).
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 20
                while not done.is_set():
                    assert loop.time() < deadline, f"not every subscriber heard it: {got}"
                    await one.publish("notify", b"hello")
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(done.wait(), 0.5)
                assert got["one"] and got["two"]
                assert set(got["one"]) == set(got["two"]) == {b"hello"}
            else:  # separate in-process stores share nothing
                await one.publish("notify", b"hello")
                assert got == {"one": [b"hello"], "two": []}
        finally:
            await one.close()
            await two.close()

    asyncio.run(asyncio.wait_for(main(), 30))


@pytest.mark.slow
@needs_redis
def test_garbled_records_are_ignored(redis_url: str) -> None:
    import redis

    namespace = f"mcpgen:test-{secrets.token_hex(4)}:"
    session_id = sid()
    raw = redis.Redis.from_url(redis_url)
    for bad in [b"not json", b"[]", b'{"v": 3, "caps": {}, "info": {}, "subs": []}', b"x" * 70_000]:
        raw.set(f"{namespace}session:{session_id}", bad)

        async def main() -> None:
            store = open_store(redis_url)
            await store.start(namespace)
            try:
                assert await store.touch_session(session_id, 60) is None
            finally:
                await store.close()

        asyncio.run(main())
    raw.close()


@pytest.mark.slow
def test_unreachable_redis_is_a_clear_error() -> None:
    url = f"redis://user:hunter2@127.0.0.1:{free_port()}/0"

    async def main() -> None:
        store = open_store(url)
        await store.start("mcpgen:x:")
        try:
            with pytest.raises(
                StoreUnavailable, match=r"^the store redis://\*\*\*@127\.0\.0\.1:\d+/0 is unavailable: "
            ) as caught:
                await store.touch_session(sid(), 60)
        finally:
            await store.close()
        assert "hunter2" not in str(caught.value) and "unavailable" in str(caught.value)

    asyncio.run(asyncio.wait_for(main(), 30))


def test_urls_are_checked_and_redacted() -> None:
    for bad, reason in [
        ("http://x", "a store URL is memory, redis://HOST:PORT/DB or rediss://...; not http://x"),
        ("redis://", "the store URL names no host: redis://"),
        ("redis://h:99999/0", "not a valid store URL: redis://h:99999/0"),
        ("redis://h/zero", "the store URL's database must be a number: redis://h/zero"),
        ("redis://h/0?prefix=a b", "the store URL's prefix may hold letters, digits and - _ . : (at most 100)"),
    ]:
        with pytest.raises(ValueError, match=f"^{re.escape(reason)}$"):
            open_store(bad)
    with pytest.raises(ValueError, match="a store URL is memory, redis:") as caught:
        open_store("mysql://root:s3cret@db/0")
    assert "s3cret" not in str(caught.value)
    assert redact("redis://u:p@h:1/0") == "redis://***@h:1/0"
    assert open_store("memory").description == "memory"
    assert "pw" not in open_store("rediss://:pw@h:6380/2?prefix=app1").description


def test_event_ids_are_checked() -> None:
    assert parse_event_id("pAbCdEfGh12.1700000000000-3") == ("pAbCdEfGh12", "1700000000000-3")
    assert parse_event_id("gAbCdEfGh12.42") == ("gAbCdEfGh12", "42")
    for bad in [None, "", "1-2", "xAbCdEfGh12.1", "pAbC.1", "pAbCdEfGh12.1\r\nX: y", "pAbCdEfGh12.-1", "p../../..x.1"]:
        assert parse_event_id(bad) is None
