"""Handshake-era sessions (`Mcp-Session-Id`): this worker's copies of them, and their records in
the store every worker sees. Opened by an initialize, restored on any worker from the record,
saved when a request changed what the record holds, pushed back while busy, expired when idle,
ended by a DELETE on any worker."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core.jsonrpc import JSONObject, is_object
from ...core.protocol import HANDSHAKE_VERSIONS
from ..auth.info import current_auth
from ..connection import ConnectionState, ServerConnection
from ..server import Server
from ..store import SessionRecord, Store, StoreUnavailable
from ..store.base import valid_session_id
from .logs import log
from .streams import HttpServerTransport

if TYPE_CHECKING:
    from collections.abc import ItemsView

    from .limits import HttpLimits

# Who opened a session on a protected server: (issuer, subject, client id) of its access token.
Owner = tuple[str | None, str | None, str | None]
# A session a shared store confirmed this recently is taken as live without asking again: a burst
# of requests costs one round trip a second, not one each. Its expiry cannot have passed meanwhile,
# and a DELETE on another worker reaches this one through the store's channel at once.
_CONFIRMED_FOR = 1.0
# Sessions being closed in the background (expired or evicted): kept referenced until done.
_closing: set[asyncio.Task[None]] = set()


@dataclass
class LegacySession:
    connection: ServerConnection
    transport: HttpServerTransport
    last_seen: float = field(default_factory=time.monotonic)
    busy: int = 0  # requests in flight and open GET streams: a busy session never expires
    # Who opened it, on a protected server: another token's holder cannot use its id (the MCP
    # spec binds a session to its user), it gets 404 as for an unknown id.
    owner: Owner | None = None
    # When the shared store last confirmed the session (monotonic): see _CONFIRMED_FOR.
    confirmed: float = 0.0


class SessionTable:
    """This worker's sessions by id (`len`, `in`), and the store their records live in."""

    def __init__(self, server: Server, store: Store, limits: HttpLimits) -> None:
        self.server = server
        self.store = store
        self.limits = limits
        self.started = False  # the store is connected (in the server's event loop)
        self._sessions: dict[str, LegacySession] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._next_sweep = 0.0

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def get(self, session_id: str) -> LegacySession | None:
        """This worker's copy, without asking the store (see `find`)."""
        return self._sessions.get(session_id)

    def items(self) -> ItemsView[str, LegacySession]:
        return self._sessions.items()

    async def start(self) -> None:
        """Connect the store on first use (in the server's event loop)."""
        if self.started:
            return
        name = self.server.info.get("name") if is_object(self.server.info) else None
        await self.store.start(f"mcpgen:{name if isinstance(name, str) else 'server'}:")
        self.started = True
        if self.limits.session_idle_timeout > 0 and self._keeper is None:
            self._keeper = asyncio.get_running_loop().create_task(self._keep_busy_sessions())

    async def open(
        self, connection: ServerConnection, transport: HttpServerTransport, params: JSONObject
    ) -> tuple[str, LegacySession] | None:
        """A new session for an initialize with these params (its id and this worker's copy), or
        None when the store holds `max_sessions` already (logged)."""
        await self.start()
        self.sweep()
        new_id = secrets.token_urlsafe(24)
        # The record is what initialize will agree (every worker must know it before the
        # client's next request, which may reach another one).
        record = _record_of_initialize(params, principal())
        if not await self.store.open_session(
            new_id, record, self.limits.session_idle_timeout, self.limits.max_sessions
        ):
            log.warning("refusing a new session: %d sessions are open", self.limits.max_sessions)
            return None
        self._number_requests(connection)
        opened = self._sessions[new_id] = LegacySession(connection, transport, owner=principal())
        return new_id, opened

    async def find(self, session_id: str) -> LegacySession | None:
        """The live session with this id, its expiry pushed back everywhere; None when the store
        does not know it (never opened, expired, ended on any worker) or another user opened it."""
        if not valid_session_id(session_id):
            return None
        self.sweep()
        legacy = self._sessions.get(session_id)
        now = time.monotonic()
        idle = self.limits.session_idle_timeout
        if legacy is not None and self.store.shared and now - legacy.confirmed < min(_CONFIRMED_FOR, idle / 10 or 1.0):
            if legacy.owner != principal():
                return None
            legacy.last_seen = now
            return legacy
        await self.start()
        record = await self.store.touch_session(session_id, idle)
        legacy = self._sessions.get(session_id)
        if record is None:
            if legacy is not None:
                self.end(session_id, "the session expired")
            return None
        owner = principal()
        if record.owner != (list(owner) if owner is not None else None):
            return None
        if legacy is None:
            legacy = self._restore(session_id, record)
        elif self.store.shared:  # another worker may have changed it
            state = legacy.connection.state
            state.log_level = record.log_level
            # notifications/initialized may have reached another worker: the client moved on.
            state.initialized = state.initialized or state.protocol_version is not None
            legacy.connection.subscribed = set(record.subscribed)
        legacy.last_seen = legacy.confirmed = time.monotonic()
        return legacy

    def _restore(self, session_id: str, record: SessionRecord) -> LegacySession:
        """This worker's copy of a session another worker opened (or this one, earlier)."""
        transport = HttpServerTransport()
        connection = self.server.connection(transport)
        connection.state = ConnectionState(
            protocol_version=record.protocol_version,
            initialized=True,
            client_capabilities=record.client_capabilities,
            client_info=record.client_info,
            log_level=record.log_level,
        )
        connection.subscribed = set(record.subscribed)
        self.server.subscriptions.add_legacy(connection)
        self._number_requests(connection)
        owner = record.owner
        legacy = LegacySession(connection, transport, owner=(owner[0], owner[1], owner[2]) if owner else None)
        self._sessions[session_id] = legacy
        return legacy

    def _number_requests(self, connection: ServerConnection) -> None:
        if self.store.shared:  # each worker's server->client request ids in a range of their own
            connection.session.start_ids_at(secrets.randbelow(2**40) * 1000 + 1)

    async def save(self, session_id: str, legacy: LegacySession) -> None:
        """Write what the session holds now (log level, subscriptions) for the other workers."""
        state = legacy.connection.state
        record = SessionRecord(
            protocol_version=state.protocol_version or HANDSHAKE_VERSIONS[0],
            client_capabilities=state.client_capabilities,
            client_info=state.client_info,
            log_level=state.log_level,
            subscribed=sorted(legacy.connection.subscribed),
            owner=list(legacy.owner) if legacy.owner is not None else None,
        )
        try:
            await self.store.save_session(session_id, record, self.limits.session_idle_timeout)
        except ValueError:
            log.warning("a session's state is too large to share; other workers keep the previous one")

    async def forget(self, session_id: str) -> None:
        """The client ended the session (DELETE): its record goes; this worker's copy too."""
        self._sessions.pop(session_id, None)
        await self.store.end_session(session_id)

    async def _keep_busy_sessions(self) -> None:
        """Push back the expiry of sessions with a request in flight or a GET stream open here:
        a busy session never expires, whichever worker the store sees it from."""
        period = min(max(self.limits.session_idle_timeout / 3, 0.05), 10.0)
        while True:
            await asyncio.sleep(period)
            for session_id in [sid for sid, legacy in self._sessions.items() if legacy.busy > 0]:
                try:
                    await self.store.touch_session(session_id, self.limits.session_idle_timeout)
                except StoreUnavailable as exc:
                    log.warning("%s", exc)
                    break

    def end(self, session_id: str, reason: str) -> None:
        """Close this worker's copy of a session (in the background)."""
        legacy = self._sessions.pop(session_id, None)
        if legacy is not None:
            task = asyncio.get_running_loop().create_task(legacy.connection.session.close(reason))
            _closing.add(task)
            task.add_done_callback(_closing.discard)

    def sweep(self) -> None:
        """Drop this worker's copies of idle sessions (the store expires the records itself);
        runs at most every few seconds."""
        idle = self.limits.session_idle_timeout
        now = time.monotonic()
        if idle <= 0 or now < self._next_sweep:
            return
        self._next_sweep = now + min(idle / 4, 30.0)
        for session_id in [sid for sid, legacy in self._sessions.items() if self._expired(legacy, now)]:
            self.end(session_id, "the session expired")

    def _expired(self, legacy: LegacySession, now: float) -> bool:
        idle = self.limits.session_idle_timeout
        return idle > 0 and legacy.busy == 0 and now - legacy.last_seen > idle


def principal() -> Owner | None:
    """The caller a protected server verified for this request (issuer, subject, client), or None."""
    auth = current_auth.get()
    return None if auth is None else (auth.issuer, auth.subject, auth.client_id)


def _record_of_initialize(params: JSONObject, owner: Owner | None) -> SessionRecord:
    """What an initialize with these params agrees (ServerConnection._initialize's rule)."""
    requested = params.get("protocolVersion")
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
    caps, info = params.get("capabilities"), params.get("clientInfo")
    return SessionRecord(
        protocol_version=str(version),
        client_capabilities=caps if is_object(caps) else {},
        client_info=info if is_object(info) else {},
        owner=list(owner) if owner is not None else None,
    )
