"""What an HTTP server shares with the other workers of its cluster, as one interface.

The HTTP server talks to a `Store` only: handshake-era session records, an event log per SSE
stream (resumption with Last-Event-ID on any worker), and two pub/sub channels (change
notifications; answers to server->client requests that reached another worker). `memory.py`
keeps all of it in the process (one worker, the default); `redis.py` in Redis or Valkey.

Everything read back is untrusted (another process, or whoever can write to the store, put it
there): records and messages are checked for size and types before use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from ...core.jsonrpc import is_array, is_object

# An SSE stream keeps this many events for resumption (older ones are trimmed).
EVENT_LOG_LENGTH = 1000
# A session record, an event, a published message: refused above these sizes.
MAX_RECORD_BYTES = 64 * 1024
MAX_EVENT_BYTES = 4 * 1024 * 1024 + 1024
# Resource subscriptions a session record may hold.
MAX_SUBSCRIPTIONS = 1000
# A task record (its inlined result included) and an inbox message: refused above these sizes;
# messages an inbox holds at once.
MAX_TASK_BYTES = 4 * 1024 * 1024 + 64 * 1024
MAX_TASK_MESSAGE_BYTES = 1024 * 1024
MAX_TASK_INBOX = 64

# Pub/sub channels (under the store's namespace).
CHANNEL_NOTIFY = "notify"  # change notifications: {"method", "params"}
CHANNEL_ROUTE = "route"  # {"session", "message"}: a client's answer for another worker; {"session", "end": true}

# An event id is "<stream token>.<entry id>": the stream rides in it, so any worker finds the log.
_EVENT_ID = re.compile(r"^([gp][A-Za-z0-9_-]{8,40})\.([0-9]{1,20}(?:-[0-9]{1,20})?)$")
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")

Handler = Callable[[bytes], Awaitable[None]]


@dataclass
class SessionRecord:
    """One handshake-era session, as every worker sees it."""

    protocol_version: str
    client_capabilities: dict[str, Any] = field(default_factory=dict[str, Any])
    client_info: dict[str, Any] = field(default_factory=dict[str, Any])
    log_level: str | None = None
    subscribed: list[str] = field(default_factory=list[str])
    # The verified caller (issuer, subject, client id) on a protected server: not a secret, and
    # what binds the session to its user. Tokens are never stored.
    owner: list[str | None] | None = None

    def encode(self) -> bytes:
        data = json.dumps(
            {
                "v": self.protocol_version,
                "caps": self.client_capabilities,
                "info": self.client_info,
                "level": self.log_level,
                "subs": self.subscribed[:MAX_SUBSCRIPTIONS],
                "owner": self.owner,
            },
            separators=(",", ":"),
        ).encode()
        if len(data) > MAX_RECORD_BYTES:
            raise ValueError("the session record is too large")
        return data

    @classmethod
    def decode(cls, raw: bytes | str | None) -> SessionRecord | None:
        """The record, or None when `raw` is missing or not a well-formed record."""
        if raw is None or len(raw) > MAX_RECORD_BYTES:
            return None
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not is_object(data):
            return None
        version, caps, info = data.get("v"), data.get("caps"), data.get("info")
        level, subs, owner = data.get("level"), data.get("subs"), data.get("owner")
        if not isinstance(version, str) or len(version) > 32:
            return None
        if not is_object(caps) or not is_object(info):
            return None
        if level is not None and (not isinstance(level, str) or len(level) > 32):
            return None
        if not is_array(subs) or len(subs) > MAX_SUBSCRIPTIONS or not all(isinstance(s, str) for s in subs):
            return None
        if owner is not None and (
            not is_array(owner) or len(owner) != 3 or not all(o is None or isinstance(o, str) for o in owner)
        ):
            return None
        return cls(version, caps, info, level, list(subs), owner)


class Store(Protocol):
    """What the HTTP server needs from the store; every method may raise StoreUnavailable."""

    # Shown in messages: the URL without its password ("memory" for the in-process store).
    description: str
    # True when other processes see the same data (an SSE stream may then resume elsewhere).
    shared: bool

    async def start(self, namespace: str) -> None:
        """Connect (idempotent); keys and channels live under `namespace`."""

    async def close(self) -> None: ...

    # -- sessions -------------------------------------------------------------------

    async def open_session(self, session_id: str, record: SessionRecord, idle: float, cap: int) -> bool:
        """Store a new session; False when `cap` sessions are open (expired ones not counted).
        `idle` seconds without a touch expire it (0: never)."""
        ...

    async def touch_session(self, session_id: str, idle: float) -> SessionRecord | None:
        """The session's record with its expiry pushed back, or None (unknown, expired, garbled)."""
        ...

    async def save_session(self, session_id: str, record: SessionRecord, idle: float) -> None:
        """Replace a session's record (its state changed: log level, subscriptions)."""
        ...

    async def end_session(self, session_id: str) -> bool:
        """Forget the session; False if it was not there."""
        ...

    # -- event logs -----------------------------------------------------------------

    async def append_event(self, stream: str, data: bytes, ttl: float) -> str:
        """Add an event to a stream's log (created on first use, trimmed to EVENT_LOG_LENGTH,
        forgotten `ttl` seconds after its last event); its entry id, increasing."""
        ...

    async def has_stream(self, stream: str) -> bool: ...

    async def read_events(self, stream: str, after: str, wait: float) -> list[tuple[str, bytes]]:
        """Events after entry `after` ("0" for all), oldest first; if there are none yet, waits
        up to `wait` seconds for the next ones (an empty list: nothing came)."""
        ...

    # -- tasks (the Tasks extension: tasks.py) ---------------------------------------
    # A task is a record, written by the worker running it, and an inbox any worker appends to
    # (answers to its input requests, a cancellation) that the running worker drains.

    async def create_task(self, task_id: str, data: bytes, ttl: float, cap: int) -> bool:
        """Store a new task record for `ttl` seconds; False when `cap` unexpired tasks exist."""
        ...

    async def load_task(self, task_id: str) -> bytes | None:
        """The task's record, or None (unknown, expired)."""
        ...

    async def save_task(self, task_id: str, data: bytes, ttl: float) -> None:
        """Replace an existing task's record (nothing when it expired meanwhile)."""
        ...

    async def post_to_task(self, task_id: str, data: bytes, ttl: float) -> bool:
        """Append a message to the task's inbox; False when it holds MAX_TASK_INBOX already."""
        ...

    async def task_inbox(self, task_id: str) -> list[bytes]:
        """The inbox's messages, oldest first (not removed: see trim_task_inbox)."""
        ...

    async def trim_task_inbox(self, task_id: str, count: int) -> None:
        """Drop the `count` oldest messages (those the running worker has applied)."""
        ...

    # -- pub/sub --------------------------------------------------------------------

    async def publish(self, channel: str, data: bytes) -> None: ...

    def subscribe(self, channel: str, handler: Handler) -> None:
        """Call `handler` with every message published on `channel` by any worker (this one
        too); registered before start()."""


def stream_key(session_id: str, token: str) -> str:
    return f"events:{session_id}:{token}"


def parse_event_id(value: str | None) -> tuple[str, str] | None:
    """(stream token, entry id) of a Last-Event-ID header, or None if it is not one of ours."""
    if value is None:
        return None
    match = _EVENT_ID.match(value.strip())
    return (match.group(1), match.group(2)) if match else None


def valid_session_id(value: str) -> bool:
    return bool(_SESSION_ID.match(value))


def redact(url: str) -> str:
    """The URL with any user name and password replaced by "***"."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an unparsable URL>"
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))
