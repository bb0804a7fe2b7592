"""The in-process store: one worker needs nothing else (the default, `--store memory`)."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from dataclasses import dataclass, field

from .base import EVENT_LOG_LENGTH, MAX_TASK_INBOX, Handler, SessionRecord

log = logging.getLogger("mcpgen.runtime.store")

# Event logs kept at once, and the bytes of all their events: past either, the log written
# longest ago goes first (its stream can no longer be resumed), then the oldest events of the log
# being written.
MAX_STREAMS = 10_000
MAX_LOG_BYTES = 64 * 1024 * 1024


@dataclass
class _Session:
    record: SessionRecord  # kept as is: nothing outside this process wrote it
    expires: float  # monotonic; math.inf when sessions never expire


@dataclass
class _Log:
    events: collections.deque[tuple[int, bytes]] = field(
        default_factory=lambda: collections.deque(maxlen=EVENT_LOG_LENGTH)
    )
    last: int = 0
    size: int = 0  # bytes of the events held
    expires: float = 0.0
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryStore:
    description = "memory"
    shared = False

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._logs: collections.OrderedDict[str, _Log] = collections.OrderedDict()
        self._log_bytes = 0
        self._handlers: dict[str, list[Handler]] = {}
        self._tasks: dict[str, tuple[bytes, float]] = {}  # id -> (record, monotonic expiry)
        self._inboxes: dict[str, list[bytes]] = {}

    async def start(self, namespace: str) -> None:
        return None  # one process: nothing to share, nothing to name

    async def close(self) -> None:
        self._sessions.clear()
        self._logs.clear()
        self._log_bytes = 0
        self._tasks.clear()
        self._inboxes.clear()

    # -- sessions -------------------------------------------------------------------

    def _live(self, session_id: str, now: float) -> _Session | None:
        entry = self._sessions.get(session_id)
        if entry is not None and entry.expires <= now:
            del self._sessions[session_id]
            return None
        return entry

    async def open_session(self, session_id: str, record: SessionRecord, idle: float, cap: int) -> bool:
        now = time.monotonic()
        if len(self._sessions) >= cap:
            for expired in [sid for sid, entry in self._sessions.items() if entry.expires <= now]:
                del self._sessions[expired]
            if len(self._sessions) >= cap:
                return False
        self._sessions[session_id] = _Session(record, _expiry(now, idle))
        return True

    async def touch_session(self, session_id: str, idle: float) -> SessionRecord | None:
        now = time.monotonic()
        entry = self._live(session_id, now)
        if entry is None:
            return None
        entry.expires = _expiry(now, idle)
        return entry.record

    async def save_session(self, session_id: str, record: SessionRecord, idle: float) -> None:
        now = time.monotonic()
        if self._live(session_id, now) is not None:
            self._sessions[session_id] = _Session(record, _expiry(now, idle))

    async def end_session(self, session_id: str) -> bool:
        return self._sessions.pop(session_id, None) is not None

    # -- event logs -----------------------------------------------------------------

    async def append_event(self, stream: str, data: bytes, ttl: float) -> str:
        now = time.monotonic()
        entry = self._logs.get(stream)
        if entry is None or entry.expires <= now:
            if entry is not None:
                self._log_bytes -= entry.size
            entry = _Log()
            self._logs[stream] = entry
        self._logs.move_to_end(stream)
        if len(entry.events) == entry.events.maxlen:
            entry.size -= len(entry.events[0][1])  # the append below drops it
            self._log_bytes -= len(entry.events[0][1])
        entry.last += 1
        entry.events.append((entry.last, data))
        entry.size += len(data)
        self._log_bytes += len(data)
        self._trim(entry)
        entry.expires = _expiry(now, ttl)
        entry.changed.set()
        entry.changed = asyncio.Event()
        return str(entry.last)

    def _trim(self, newest: _Log) -> None:
        """Keep within MAX_STREAMS and MAX_LOG_BYTES: other logs go first, oldest first."""
        while len(self._logs) > 1 and (len(self._logs) > MAX_STREAMS or self._log_bytes > MAX_LOG_BYTES):
            _, dropped = self._logs.popitem(last=False)
            self._log_bytes -= dropped.size
        while self._log_bytes > MAX_LOG_BYTES and len(newest.events) > 1:
            _, data = newest.events.popleft()
            newest.size -= len(data)
            self._log_bytes -= len(data)

    async def has_stream(self, stream: str) -> bool:
        entry = self._logs.get(stream)
        return entry is not None and entry.expires > time.monotonic()

    async def read_events(self, stream: str, after: str, wait: float) -> list[tuple[str, bytes]]:
        try:
            position = int(after.split("-", 1)[0])
        except ValueError:
            return []
        entry = self._logs.get(stream)
        if entry is None:
            return []
        if entry.last <= position and wait > 0:
            try:
                await asyncio.wait_for(entry.changed.wait(), wait)
            except asyncio.TimeoutError:
                return []
        return [(str(number), data) for number, data in entry.events if number > position]

    # -- tasks ----------------------------------------------------------------------

    def _live_task(self, task_id: str, now: float) -> bytes | None:
        entry = self._tasks.get(task_id)
        if entry is not None and entry[1] <= now:
            del self._tasks[task_id]
            self._inboxes.pop(task_id, None)
            return None
        return entry[0] if entry is not None else None

    async def create_task(self, task_id: str, data: bytes, ttl: float, cap: int) -> bool:
        now = time.monotonic()
        if len(self._tasks) >= cap:
            for expired in [tid for tid, (_, expires) in self._tasks.items() if expires <= now]:
                self._live_task(expired, now)
            if len(self._tasks) >= cap:
                return False
        self._tasks[task_id] = (data, _expiry(now, ttl))
        return True

    async def load_task(self, task_id: str) -> bytes | None:
        return self._live_task(task_id, time.monotonic())

    async def save_task(self, task_id: str, data: bytes, ttl: float) -> None:
        now = time.monotonic()
        if self._live_task(task_id, now) is not None:
            self._tasks[task_id] = (data, _expiry(now, ttl))

    async def post_to_task(self, task_id: str, data: bytes, ttl: float) -> bool:
        if self._live_task(task_id, time.monotonic()) is None:
            return False
        inbox = self._inboxes.setdefault(task_id, [])
        if len(inbox) >= MAX_TASK_INBOX:
            return False
        inbox.append(data)
        return True

    async def task_inbox(self, task_id: str) -> list[bytes]:
        return list(self._inboxes.get(task_id, ()))

    async def trim_task_inbox(self, task_id: str, count: int) -> None:
        inbox = self._inboxes.get(task_id)
        if inbox is not None:
            del inbox[:count]

    # -- pub/sub --------------------------------------------------------------------

    async def publish(self, channel: str, data: bytes) -> None:
        for handler in list(self._handlers.get(channel, ())):
            try:
                await handler(data)
            except Exception:  # one bad subscriber must not stop the others
                log.exception("a store subscriber failed")

    def subscribe(self, channel: str, handler: Handler) -> None:
        self._handlers.setdefault(channel, []).append(handler)


def _expiry(now: float, seconds: float) -> float:
    return now + seconds if seconds > 0 else float("inf")
