"""The Redis (or Valkey) store: workers on one host or many share sessions, event logs and
notifications (`--store redis://HOST:PORT/DB`, rediss:// for TLS).

redis-py's asyncio client is imported when a server starts with this store (the `redis` extra).
Sessions are a string key each (the record, expiring after the idle timeout) plus one sorted set
counting them for the cluster-wide cap; an event log is a Redis Stream (XADD MAXLEN ~, so replay
after Last-Event-ID and the live tail are one XREAD loop); channels are Redis pub/sub. When Redis
cannot be reached, every call raises StoreUnavailable at once (short timeouts, no retry loop in
the request), the subscriber reconnects with backoff, and nothing else of the server stops.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ...core.errors import StoreUnavailable
from .base import (
    EVENT_LOG_LENGTH,
    MAX_EVENT_BYTES,
    MAX_TASK_BYTES,
    MAX_TASK_INBOX,
    MAX_TASK_MESSAGE_BYTES,
    Handler,
    SessionRecord,
    redact,
)

if TYPE_CHECKING:
    import redis.asyncio

log = logging.getLogger("mcpgen.runtime.store")

# How long a command (or a connection attempt) may take before the store counts as unreachable.
TIMEOUT = 3.0
# An XREAD waits at most this long per call; a tail loops.
_BLOCK_MS = 2000
# Events one read returns at most (a replay loops).
_READ_COUNT = 200
# The subscriber's reconnection delays: doubling from the first to the last.
_BACKOFF = (0.1, 5.0)

# Open a session unless `cap` unexpired sessions exist: atomic, so the cap holds cluster-wide.
# KEYS: the sorted set of sessions, the session's key. ARGV: now, expiry score, cap, record, ttl ms.
_OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
if tonumber(ARGV[5]) > 0 then
  redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
else
  redis.call('SET', KEYS[2], ARGV[4])
end
redis.call('ZADD', KEYS[1], ARGV[2], KEYS[2])
return 1
"""

# A session's record with its expiry pushed back, or nil (then it leaves the count too).
# KEYS: the sorted set, the session's key. ARGV: ttl ms, expiry score.
_TOUCH = """
local record = redis.call('GET', KEYS[2])
if not record then
  redis.call('ZREM', KEYS[1], KEYS[2])
  return false
end
if tonumber(ARGV[1]) > 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], KEYS[2])
end
return record
"""


# Append to a task's inbox unless the task is gone or the inbox is full (atomic: the bound holds
# with every worker posting). KEYS: the task's key, its inbox. ARGV: message, max length, ttl ms.
_POST = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""


def parse_url(url: str) -> tuple[str, str]:
    """(the URL redis-py connects to, the key prefix from its `?prefix=`); ValueError with a
    redacted one-line reason when it is not a redis:// or rediss:// URL with a host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError(f"not a valid store URL: {redact(url)}") from None
    if parts.scheme not in ("redis", "rediss"):
        raise ValueError(f"a store URL is memory, redis://HOST:PORT/DB or rediss://...; not {redact(url)}")
    if not parts.hostname:
        raise ValueError(f"the store URL names no host: {redact(url)}")
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"the store URL's port is out of range: {redact(url)}")
    db = parts.path.strip("/")
    if db and not db.isdigit():
        raise ValueError(f"the store URL's database must be a number: {redact(url)}")
    query = parse_qsl(parts.query)
    prefix = "".join(value for key, value in query if key == "prefix")
    if len(prefix) > 100 or not all(c.isalnum() or c in "-_.:" for c in prefix):
        raise ValueError("the store URL's prefix may hold letters, digits and - _ . : (at most 100)")
    rest = urlencode([(key, value) for key, value in query if key != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


class RedisStore:
    shared = True

    def __init__(self, url: str) -> None:
        self._url, self._prefix = parse_url(url)
        self.description = redact(url)
        self._client: redis.asyncio.Redis | None = None
        self._namespace = ""
        self._handlers: dict[str, list[Handler]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()
        self._open_script: Any = None
        self._touch_script: Any = None
        self._post_script: Any = None

    def check(self) -> None:
        """Ping the server once, synchronously (at start-up): StoreUnavailable if it does not answer."""
        import redis

        sync_redis: Any = redis.Redis  # (redis-py's annotations leave parts of from_url unknown)
        client = sync_redis.from_url(self._url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
        try:
            client.ping()
        except (redis.RedisError, OSError) as exc:
            raise StoreUnavailable(self._reason(exc)) from None
        finally:
            client.close()

    def _reason(self, exc: BaseException) -> str:
        text = " ".join(str(exc).split())[:200] or type(exc).__name__
        return f"the store {self.description} is unavailable: {text}"

    def _key(self, name: str) -> str:
        return f"{self._namespace}{name}"

    async def start(self, namespace: str) -> None:
        if self._client is not None:
            return
        async with self._starting:
            if self._client is not None:
                return
            import redis.asyncio
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            self._namespace = f"{self._prefix}{namespace}"
            async_redis: Any = redis.asyncio.Redis  # (redis-py's annotations: parts of from_url unknown)
            client: redis.asyncio.Redis = async_redis.from_url(
                self._url,
                socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT,
                # One quick retry on a dropped connection (Redis restarted), then the error.
                retry=Retry(NoBackoff(), 1),
                max_connections=1000,
            )
            self._client = client
            self._open_script = client.register_script(_OPEN)
            self._touch_script = client.register_script(_TOUCH)
            self._post_script = client.register_script(_POST)
            if self._handlers:
                self._listener = asyncio.get_running_loop().create_task(self._listen())

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _redis(self) -> redis.asyncio.Redis:
        if self._client is None:
            raise StoreUnavailable("the store is not started")
        return self._client

    async def _call(self, action: Any) -> Any:
        import redis

        try:
            return await action
        except (redis.RedisError, OSError) as exc:
            raise StoreUnavailable(self._reason(exc)) from None

    # -- sessions -------------------------------------------------------------------

    async def open_session(self, session_id: str, record: SessionRecord, idle: float, cap: int) -> bool:
        now = time.time()
        score = now + idle if idle > 0 else math.inf
        keys = [self._key("sessions"), self._key(f"session:{session_id}")]
        args = [repr(now), "+inf" if math.isinf(score) else repr(score), cap, record.encode(), _ms(idle)]
        return bool(await self._call(self._open_script(keys=keys, args=args)))

    async def touch_session(self, session_id: str, idle: float) -> SessionRecord | None:
        keys = [self._key("sessions"), self._key(f"session:{session_id}")]
        args = [_ms(idle), repr(time.time() + idle) if idle > 0 else "+inf"]
        raw = await self._call(self._touch_script(keys=keys, args=args))
        record = SessionRecord.decode(raw)
        if raw is not None and record is None:
            log.warning("a garbled session record in the store was ignored")
        return record

    async def save_session(self, session_id: str, record: SessionRecord, idle: float) -> None:
        key = self._key(f"session:{session_id}")
        if idle > 0:
            await self._call(self._redis().set(key, record.encode(), px=_ms(idle), xx=True))
        else:
            await self._call(self._redis().set(key, record.encode(), xx=True))

    async def end_session(self, session_id: str) -> bool:
        key = self._key(f"session:{session_id}")
        pipe = self._redis().pipeline(transaction=False)
        pipe.delete(key)
        pipe.zrem(self._key("sessions"), key)
        return bool((await self._call(pipe.execute()))[0])

    # -- event logs -----------------------------------------------------------------

    async def append_event(self, stream: str, data: bytes, ttl: float) -> str:
        key = self._key(stream)
        pipe = self._redis().pipeline(transaction=False)
        pipe.xadd(key, {"d": data}, maxlen=EVENT_LOG_LENGTH, approximate=True)
        pipe.pexpire(key, _ms(ttl) or 3_600_000)
        entry = (await self._call(pipe.execute()))[0]
        return entry.decode() if isinstance(entry, bytes) else str(entry)

    async def has_stream(self, stream: str) -> bool:
        return bool(await self._call(self._redis().exists(self._key(stream))))

    async def read_events(self, stream: str, after: str, wait: float) -> list[tuple[str, bytes]]:
        block = max(1, min(_BLOCK_MS, int(wait * 1000))) if wait > 0 else None
        reply = await self._call(self._redis().xread({self._key(stream): after}, count=_READ_COUNT, block=block))
        events: list[tuple[str, bytes]] = []
        for _name, entries in reply or ():
            for entry_id, values in entries:
                # (a worker's entry is {b"d": bytes}; anything else is checked and skipped below)
                data = cast("dict[bytes, object]", values).get(b"d") if isinstance(values, dict) else None
                if not isinstance(data, bytes) or len(data) > MAX_EVENT_BYTES:
                    continue  # not written by a worker: skipped, never sent
                events.append((entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id), data))
        return events

    # -- tasks ----------------------------------------------------------------------
    # The same counted-set scheme as sessions (the cap holds cluster-wide), under task keys.

    async def create_task(self, task_id: str, data: bytes, ttl: float, cap: int) -> bool:
        now = time.time()
        keys = [self._key("tasks"), self._key(f"task:{task_id}")]
        args = [repr(now), repr(now + ttl), cap, data, _ms(ttl) or 1]
        return bool(await self._call(self._open_script(keys=keys, args=args)))

    async def load_task(self, task_id: str) -> bytes | None:
        raw = await self._call(self._redis().get(self._key(f"task:{task_id}")))
        return raw if isinstance(raw, bytes) and len(raw) <= MAX_TASK_BYTES else None

    async def save_task(self, task_id: str, data: bytes, ttl: float) -> None:
        await self._call(self._redis().set(self._key(f"task:{task_id}"), data, px=_ms(ttl) or 1, xx=True))

    async def post_to_task(self, task_id: str, data: bytes, ttl: float) -> bool:
        keys = [self._key(f"task:{task_id}"), self._key(f"inbox:{task_id}")]
        args = [data, MAX_TASK_INBOX, _ms(ttl) or 1]
        return bool(await self._call(self._post_script(keys=keys, args=args)))

    async def task_inbox(self, task_id: str) -> list[bytes]:
        raw = await self._call(self._redis().lrange(self._key(f"inbox:{task_id}"), 0, MAX_TASK_INBOX - 1))
        return [m for m in raw or () if isinstance(m, bytes) and len(m) <= MAX_TASK_MESSAGE_BYTES]

    async def trim_task_inbox(self, task_id: str, count: int) -> None:
        if count > 0:
            await self._call(self._redis().ltrim(self._key(f"inbox:{task_id}"), count, -1))

    # -- pub/sub --------------------------------------------------------------------

    async def publish(self, channel: str, data: bytes) -> None:
        client: Any = self._redis()  # (redis-py's publish and pubsub are partly unannotated)
        await self._call(client.publish(self._key(channel), data))

    def subscribe(self, channel: str, handler: Handler) -> None:
        self._handlers.setdefault(channel, []).append(handler)

    async def _listen(self) -> None:
        """Deliver published messages; on a lost connection, reconnect (with backoff) and
        subscribe again. Messages published while disconnected are lost (notifications only)."""
        import redis

        delay = _BACKOFF[0]
        names = {self._key(channel).encode(): channel for channel in self._handlers}
        while True:
            client: Any = self._redis()  # (redis-py's publish and pubsub are partly unannotated)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(*names)
                delay = _BACKOFF[0]
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    raw = message.get("channel")
                    channel = names.get(raw) if isinstance(raw, bytes) else None
                    data = message.get("data")
                    if channel is None or not isinstance(data, bytes) or len(data) > MAX_EVENT_BYTES:
                        continue
                    for handler in self._handlers[channel]:
                        try:
                            await handler(data)
                        except Exception:
                            log.exception("a store subscriber failed")
            except asyncio.CancelledError:
                raise
            except (redis.RedisError, OSError) as exc:
                log.warning("store subscription lost (%s); reconnecting", self._reason(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, _BACKOFF[1])
            finally:
                try:
                    await pubsub.aclose()
                except (redis.RedisError, OSError):
                    pass


def _ms(seconds: float) -> int:
    return int(seconds * 1000) if seconds > 0 else 0
