"""Streamable HTTP server: a plain ASGI app over the same `Server` as stdio.

One endpoint (POST, GET, DELETE). A stateless-era request (2026-07-28 `_meta`) is
served on its own, so several workers or hosts can share the load. An `initialize`
opens a handshake-era session (`Mcp-Session-Id`). Each request gets its own response:
plain JSON when the handler answers without streaming anything first, otherwise an
SSE stream carrying its progress, logs and server->client requests, then the result.
A client that disconnects cancels its handler, except in a session: there the stream is
logged in the store and the request goes on, so the client can resume it (GET with
Last-Event-ID) on this worker or any other sharing the store.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import contextlib
import contextvars
import json
import logging
import math
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core import jsonrpc
from ..core.errors import ConnectionClosed, RpcError
from ..core.headers import param_headers_of
from ..core.jsonrpc import JSONObject, RequestId
from ..core.protocol import HANDSHAKE_VERSIONS, LIST_KINDS, META_PROTOCOL_VERSION, MODERN_VERSIONS
from ..core.session import current_request
from ..server.auth.info import current_auth
from ..server.server import ConnectionState, Server, ServerConnection
from ..server.store import MemoryStore, SessionRecord, Store, StoreUnavailable
from ..server.store.base import (
    CHANNEL_NOTIFY,
    CHANNEL_ROUTE,
    MAX_RECORD_BYTES,
    parse_event_id,
    stream_key,
    valid_session_id,
)

# The limits and their flags live in http_limits (a stdio server builds its command line without
# this module); they are still importable from here.
from .http_limits import HttpLimits as HttpLimits
from .http_limits import add_limit_arguments as add_limit_arguments
from .http_limits import limits_from_args as limits_from_args

if TYPE_CHECKING:
    import socket

    from ..server.auth.settings import AuthSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

log = logging.getLogger("mcpgen.runtime.http")

_ERROR_STATUS = {
    jsonrpc.METHOD_NOT_FOUND: 404,
    jsonrpc.HEADER_MISMATCH: 400,
    jsonrpc.MISSING_CLIENT_CAPABILITY: 400,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
    jsonrpc.INVALID_PARAMS: 400,
}
_NAME_HEADER_FOR = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")


class _RateLimited(logging.Filter):
    """Lets one record per message template through per period; the next one that passes says how
    many were held back. A flood of identical failures (accept errors, refused connections) costs
    one log line per period, not one per failure."""

    def __init__(self, period: float = 10.0) -> None:
        super().__init__()
        self.period = period
        self._last: dict[tuple[str, str], float] = {}
        self._held: collections.Counter[tuple[str, str]] = collections.Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.period:
            self._held[key] += 1
            return False
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like this in the last {self.period:g} s)"
        return True


rate_limited = _RateLimited()
log.addFilter(rate_limited)
logging.getLogger("mcpgen.runtime.store").addFilter(rate_limited)

# Handshake-era methods that change what a session record holds: saved after they are served.
_STATEFUL = frozenset({"logging/setLevel", "resources/subscribe", "resources/unsubscribe"})
# A cut SSE stream of a request keeps being logged for a resume (on any worker) this long at most;
# then the request is cancelled. A resume follows a log for as long.
_RESUME_WINDOW = 300.0
# Requests that outlive their client's connection (waiting for a resume) in one worker; past
# this, a disconnect cancels the request as it does outside a session: a client cannot keep
# opening and dropping streams to pile up running handlers.
MAX_DETACHED_REQUESTS = 100
# A stream's log outlives its last event this long when sessions never expire.
_LOG_TTL = 3600.0
# While a logged request is quiet, its worker writes a heartbeat into the log this often; a resume
# that sees none for three periods takes the worker for dead, marks the log abandoned and ends.
_HEARTBEAT = 5.0
_HEARTBEAT_MARK = b"."
_ABANDONED_MARK = b"!"


@dataclass
class HttpSecurity:
    """DNS-rebinding protection: which Host and Origin headers are acceptable.

    Empty lists mean "loopback names only", the safe default for a local server.
    """

    allowed_hosts: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=list)

    def host_ok(self, host: str | None) -> bool:
        if host is None:
            return False
        if self.allowed_hosts:
            return host in self.allowed_hosts or host.rsplit(":", 1)[0] in self.allowed_hosts
        return _hostname(host) in _LOOPBACK

    def origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a browser: nothing to rebind
        if self.allowed_origins:
            return origin in self.allowed_origins
        return _hostname(urlsplit(origin).netloc) in _LOOPBACK


def _hostname(netloc: str) -> str:
    if netloc.startswith("["):
        return netloc.split("]", 1)[0] + "]"
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


# A handler that has not answered after this long gets a task watching for the client to go
# away (which cancels it). Quick answers, nearly all of them, never pay for that task.
_WATCH_AFTER = 0.02


class _RequestStream:
    """Messages bound for one POST's response, in order; a waiter woken by each, or by a disconnect."""

    __slots__ = ("items", "waiter", "gone", "detached")

    def __init__(self) -> None:
        self.items: collections.deque[JSONObject] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.gone = False  # the client disconnected
        self.detached = False  # and the request runs on for a resume (counted by the app)

    def put(self, message: JSONObject) -> None:
        self.items.append(message)
        self.wake()

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class HttpServerTransport:
    """The transport of one ServerConnection: routes each outgoing message to a stream."""

    def __init__(self) -> None:
        self.streams: dict[RequestId, _RequestStream] = {}
        self.standalone: asyncio.Queue[JSONObject] | None = None  # the GET stream, if open
        self.closed = False

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        if self.closed:
            raise ConnectionClosed("the HTTP session is closed")
        if isinstance(message, list):  # batch replies go to the first request's stream
            for item in message:
                await self.send(item)
            return
        target: RequestId | None = None
        if "method" not in message and "id" in message:
            target = message["id"]
        else:
            target = current_request.get()
        stream = self.streams.get(target) if target is not None else None
        if stream is not None:
            stream.put(message)
        elif self.standalone is not None:
            self.standalone.put_nowait(message)
        else:
            log.debug("dropping a message with no stream to carry it: %.200r", message)

    async def receive(self) -> bytes | None:
        raise RuntimeError("HTTP messages are dispatched, not read")

    async def close(self) -> None:
        self.closed = True

    def describe_close(self) -> str:
        return "the HTTP session ended"


@dataclass
class _LegacySession:
    connection: ServerConnection
    transport: HttpServerTransport
    last_seen: float = field(default_factory=time.monotonic)
    busy: int = 0  # requests in flight and open GET streams: a busy session never expires
    # Who opened it, on a protected server: another token's holder cannot use its id (the MCP
    # spec binds a session to its user), it gets 404 as for an unknown id.
    owner: tuple[str | None, str | None, str | None] | None = None
    # When the shared store last confirmed the session (monotonic): see _CONFIRMED_FOR.
    confirmed: float = 0.0


# A session a shared store confirmed this recently is taken as live without asking again: a burst
# of requests costs one round trip a second, not one each. Its expiry cannot have passed meanwhile,
# and a DELETE on another worker reaches this one through the store's channel at once.
_CONFIRMED_FOR = 1.0


class StreamableHttpApp:
    """ASGI application serving one `Server` at `path` (default /mcp)."""

    def __init__(
        self,
        server: Server,
        *,
        path: str = "/mcp",
        security: HttpSecurity | None = None,
        json_response: bool = False,
        stateless: bool = False,
        limits: HttpLimits | None = None,
        store: Store | None = None,
    ) -> None:
        self.server = server
        self.limits = limits or HttpLimits()
        # Sessions, stream logs and notifications shared with the other workers (memory: none).
        self.store: Store = store if store is not None else MemoryStore()
        self._store_ready = False
        self._keeper: asyncio.Task[None] | None = None
        self.store.subscribe(CHANNEL_ROUTE, self._on_route)
        if self.store.shared:
            self.store.subscribe(CHANNEL_NOTIFY, self._on_notify)
            server.subscriptions.relay = self._relay
        self._next_sweep = 0.0
        self._detached = 0  # requests running on after their client left (MAX_DETACHED_REQUESTS)
        self.path = path.rstrip("/") or "/"
        self.security = security or HttpSecurity()
        self.json_response = json_response
        # Stateless: handshake-era requests are served without a session, so any worker can answer.
        self.stateless = stateless
        # This worker's copies of sessions (the store holds the records every worker sees).
        self.sessions: dict[str, _LegacySession] = {}
        # The connection every 2026-07-28 request is served on (built on the first one).
        self._stateless_connection: ServerConnection | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = _headers(scope)
        if scope["method"] == "POST" and _declared_length(headers) > self.limits.max_body_bytes:
            # Refused before the body is read or anything else is checked.
            await _too_large(send)
            return
        if not self.security.host_ok(headers.get("host")) or not self.security.origin_ok(headers.get("origin")):
            await _plain(send, 403, "Forbidden: Host or Origin not allowed")
            return
        if scope["path"].rstrip("/") != self.path.rstrip("/") and scope["path"] != self.path:
            await _plain(send, 404, "Not found")
            return
        method = scope["method"]
        try:
            if not self._store_ready:
                # On the first request of any kind: a worker that only ever holds 2026-07-28
                # listen streams must still hear the notifications other workers publish.
                await self._ready()
            if method == "POST":
                await self._post(headers, receive, send, scope.get(_LOSS_KEY))
            elif method == "GET":
                await self._get(headers, receive, send)
            elif method == "DELETE":
                await self._delete(headers, send)
            else:
                await _plain(send, 405, "Method not allowed", {"allow": "GET, POST, DELETE"})
        except StoreUnavailable as exc:
            # The server goes on; this request gets the reason (when its answer has not started).
            log.warning("%s", exc)
            with contextlib.suppress(Exception):
                await _json(send, 503, jsonrpc.error_response(None, jsonrpc.INTERNAL_ERROR, str(exc)))

    # -- POST ----------------------------------------------------------------------

    async def _post(
        self, headers: dict[str, str], receive: Receive, send: Send, loss: _ConnectionLoss | None = None
    ) -> None:
        accept = headers.get("accept", "")
        # As the official SDK: the client must take both response kinds (JSON only in
        # json_response mode), and send JSON.
        has_json, has_sse = _accepts(accept)
        if not has_json or not (has_sse or self.json_response):
            wanted = "application/json" if self.json_response else "both application/json and text/event-stream"
            await _json(
                send, 406, jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, f"Not Acceptable: accept {wanted}")
            )
            return
        if not _is_json(headers.get("content-type", "")):
            await _json(
                send,
                415,
                jsonrpc.error_response(
                    None, jsonrpc.INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json"
                ),
            )
            return
        body = await _read_body(receive, self.limits.max_body_bytes)
        if body is None:
            await _too_large(send)
            return
        try:
            message = jsonrpc.decode(body)
        except (ValueError, UnicodeDecodeError):
            await _json(send, 400, jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, "Parse error"))
            return
        kind = jsonrpc.classify(message)
        if isinstance(message, list):
            await _json(
                send, 400, jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Batches are not supported over HTTP")
            )
            return
        if kind == "invalid":
            await _json(send, 400, jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Invalid request"))
            return
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        # The 2026-07-28 version header marks the request stateless even when its _meta is broken.
        header_modern = headers.get("mcp-protocol-version") in MODERN_VERSIONS
        body_modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta and message.get("method") != "initialize"
        modern = header_modern or body_modern
        request_id = message.get("id") if kind == "request" else None

        if modern:
            problem = _modern_header_problem(self.server, message, headers)
            if problem is not None:
                await _json(send, 400, _header_error(message, *problem))
                return
            if kind != "request":
                # Nothing a stateless notification or response could reach: no request of this
                # exchange is running, and none of another client's may be touched.
                await _plain(send, 202, "")
                return
            await self._serve_stateless(message, accept, receive, send, loss)
            return

        session_id = headers.get("mcp-session-id")
        if message.get("method") == "initialize":
            transport = HttpServerTransport()
            connection = self.server.connection(transport)
            new_id = None
            if not self.stateless:
                await self._ready()
                self._sweep()
                new_id = secrets.token_urlsafe(24)
                # The record is what initialize will agree (every worker must know it before the
                # client's next request, which may reach another one).
                record = _record_of_initialize(params, _principal())
                if not await self.store.open_session(
                    new_id, record, self.limits.session_idle_timeout, self.limits.max_sessions
                ):
                    log.warning("refusing a new session: %d sessions are open", self.limits.max_sessions)
                    await _json(
                        send, 503, jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Too many open sessions")
                    )
                    return
                self._number_requests(connection)
                opened = _LegacySession(connection, transport, owner=_principal())
                self.sessions[new_id] = opened
                opened.busy += 1
                try:
                    await self._serve(connection, transport, message, kind, accept, receive, send, session_id=new_id)
                finally:
                    opened.busy -= 1
                    opened.last_seen = time.monotonic()
                return
            await self._serve(connection, transport, message, kind, accept, receive, send, session_id=new_id)
            return
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            await _json(
                send,
                400,
                jsonrpc.error_response(
                    request_id, jsonrpc.INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {version}"
                ),
            )
            return
        if self.stateless:
            transport = HttpServerTransport()
            connection = self.server.connection(transport)
            connection.state.protocol_version = version or "2025-03-26"
            connection.state.initialized = True
            await self._serve(connection, transport, message, kind, accept, receive, send, session_id=None)
            return
        if session_id is None:
            await _json(
                send, 400, jsonrpc.error_response(request_id, jsonrpc.INVALID_REQUEST, "Missing Mcp-Session-Id header")
            )
            return
        legacy = await self._session(session_id)
        if legacy is None:
            await _json(
                send, 404, jsonrpc.error_response(request_id, jsonrpc.INVALID_REQUEST, "Unknown or expired session")
            )
            return
        if kind != "request" and "method" not in message and not legacy.connection.session.awaits(message.get("id")):
            # A client's answer to a request another worker sent: that worker waits for it.
            await self._route(session_id, message)
            await _plain(send, 202, "", {"mcp-session-id": session_id})
            return
        cancelled = _cancelled_id(message)
        if cancelled is not None and cancelled not in legacy.transport.streams:
            # Cancelling a request another worker runs: that worker stops it.
            await self._route(session_id, message)
            await _plain(send, 202, "", {"mcp-session-id": session_id})
            return
        if request_id is not None and request_id in legacy.transport.streams:
            # Its answer could only reach one of the two POSTs: refuse the second, keep the first.
            await _json(
                send,
                409,
                jsonrpc.error_response(
                    request_id, jsonrpc.INVALID_REQUEST, "A request with this id is already in progress"
                ),
                {"mcp-session-id": session_id},
            )
            return
        legacy.busy += 1
        try:
            await self._serve(
                legacy.connection, legacy.transport, message, kind, accept, receive, send, session_id=session_id
            )
        finally:
            legacy.busy -= 1
            legacy.last_seen = time.monotonic()
        if message.get("method") in _STATEFUL:
            await self._save(session_id, legacy)

    # -- sessions ------------------------------------------------------------------

    def _expired(self, legacy: _LegacySession, now: float) -> bool:
        idle = self.limits.session_idle_timeout
        return idle > 0 and legacy.busy == 0 and now - legacy.last_seen > idle

    async def _ready(self) -> None:
        """Connect the store on first use (in the server's event loop)."""
        if self._store_ready:
            return
        name = self.server.info.get("name") if isinstance(self.server.info, dict) else None
        await self.store.start(f"mcpgen:{name if isinstance(name, str) else 'server'}:")
        self._store_ready = True
        if self.limits.session_idle_timeout > 0 and self._keeper is None:
            self._keeper = asyncio.get_running_loop().create_task(self._keep_busy_sessions())

    async def _session(self, session_id: str) -> _LegacySession | None:
        """The live session with this id, its expiry pushed back everywhere; None when the store
        does not know it (never opened, expired, ended on any worker) or another user opened it."""
        if not valid_session_id(session_id):
            return None
        self._sweep()
        legacy = self.sessions.get(session_id)
        now = time.monotonic()
        idle = self.limits.session_idle_timeout
        if legacy is not None and self.store.shared and now - legacy.confirmed < min(_CONFIRMED_FOR, idle / 10 or 1.0):
            if legacy.owner != _principal():
                return None
            legacy.last_seen = now
            return legacy
        await self._ready()
        record = await self.store.touch_session(session_id, idle)
        legacy = self.sessions.get(session_id)
        if record is None:
            if legacy is not None:
                self._end(session_id, "the session expired")
            return None
        owner = _principal()
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

    def _restore(self, session_id: str, record: SessionRecord) -> _LegacySession:
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
        legacy = _LegacySession(connection, transport, owner=(owner[0], owner[1], owner[2]) if owner else None)
        self.sessions[session_id] = legacy
        return legacy

    def _number_requests(self, connection: ServerConnection) -> None:
        if self.store.shared:  # each worker's server->client request ids in a range of their own
            connection.session.start_ids_at(secrets.randbelow(2**40) * 1000 + 1)

    async def _save(self, session_id: str, legacy: _LegacySession) -> None:
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

    async def _keep_busy_sessions(self) -> None:
        """Push back the expiry of sessions with a request in flight or a GET stream open here:
        a busy session never expires, whichever worker the store sees it from."""
        period = min(max(self.limits.session_idle_timeout / 3, 0.05), 10.0)
        while True:
            await asyncio.sleep(period)
            for session_id in [sid for sid, legacy in self.sessions.items() if legacy.busy > 0]:
                try:
                    await self.store.touch_session(session_id, self.limits.session_idle_timeout)
                except StoreUnavailable as exc:
                    log.warning("%s", exc)
                    break

    def _end(self, session_id: str, reason: str) -> None:
        legacy = self.sessions.pop(session_id, None)
        if legacy is not None:
            task = asyncio.get_running_loop().create_task(legacy.connection.session.close(reason))
            _closing.add(task)
            task.add_done_callback(_closing.discard)

    def _sweep(self, *, force: bool = False) -> None:
        """Drop this worker's copies of idle sessions (the store expires the records itself);
        runs at most every few seconds."""
        idle = self.limits.session_idle_timeout
        now = time.monotonic()
        if idle <= 0 or (now < self._next_sweep and not force):
            return
        self._next_sweep = now + min(idle / 4, 30.0)
        for session_id in [sid for sid, legacy in self.sessions.items() if self._expired(legacy, now)]:
            self._end(session_id, "the session expired")

    # -- what workers tell each other ---------------------------------------------

    async def _route(self, session_id: str, message: JSONObject) -> None:
        if self.store.shared:
            await self.store.publish(CHANNEL_ROUTE, _pack({"session": session_id, "message": message}))
        else:
            log.debug("dropping an answer no request waits for: %.200r", message)

    async def _on_route(self, data: bytes) -> None:
        """A client's answer that reached another worker, or a session ended there."""
        item = _unpack(data)
        session_id = item.get("session") if item else None
        if item is None or not isinstance(session_id, str):
            return
        if item.get("end") is True:
            self._end(session_id, "the client ended the session")
            return
        legacy = self.sessions.get(session_id)
        message = item.get("message")
        if legacy is None or not isinstance(message, dict):
            return
        kind = jsonrpc.classify(message)
        if kind in ("response", "error") and legacy.connection.session.awaits(message.get("id")):
            legacy.connection.session.dispatch(message)
        elif kind == "notification" and _cancelled_id(message) in legacy.transport.streams:
            legacy.connection.session.dispatch(message)

    async def _relay(self, method: str, params: JSONObject) -> None:
        """A change event raised here: to every worker through the store (a lost one is logged)."""
        try:
            await self._ready()
            await self.store.publish(CHANNEL_NOTIFY, _pack({"method": method, "params": params}))
        except StoreUnavailable as exc:
            log.warning("a change notification was not delivered: %s", exc)

    async def _on_notify(self, data: bytes) -> None:
        item = _unpack(data)
        method = item.get("method") if item else None
        params = item.get("params") if item else None
        if not isinstance(method, str) or not isinstance(params, dict) or not _is_change_event(method, params):
            return
        if method == "notifications/resources/updated":
            # Subscriptions may have been made through another worker: read them again for the
            # sessions whose GET stream this worker holds.
            for session_id, legacy in list(self.sessions.items()):
                if legacy.transport.standalone is None:
                    continue
                with contextlib.suppress(StoreUnavailable):
                    record = await self.store.touch_session(session_id, self.limits.session_idle_timeout)
                    if record is not None:
                        legacy.connection.subscribed = set(record.subscribed)
        await self.server.subscriptions.deliver(method, params)

    async def _serve(
        self,
        connection: ServerConnection,
        transport: HttpServerTransport,
        message: JSONObject,
        kind: str,
        accept: str,
        receive: Receive,
        send: Send,
        *,
        session_id: str | None,
    ) -> None:
        extra = {"mcp-session-id": session_id} if session_id else {}
        if kind != "request":
            # Notifications and responses (to our sampling/elicitation requests): accepted, no body.
            connection.session.dispatch(message)
            await _plain(send, 202, "", extra)
            return
        request_id = message["id"]
        stream = _RequestStream()
        transport.streams[request_id] = stream
        try:
            connection.session.dispatch(message)
            await self._respond(connection, stream, request_id, accept, receive, send, extra, session_id)
        finally:
            transport.streams.pop(request_id, None)

    async def _respond(
        self,
        connection: ServerConnection,
        stream: _RequestStream,
        request_id: RequestId,
        accept: str,
        receive: Receive,
        send: Send,
        extra: dict[str, str],
        session_id: str | None = None,
    ) -> None:
        watch = _DisconnectWatch(stream, receive)
        try:
            first = await watch.next()
            if first is None:
                connection.session.cancel_incoming(request_id)
                return
            sse_ok = "text/event-stream" in accept
            if _is_final(first, request_id) or not sse_ok or self.json_response:
                # Answered straight away (or the client cannot take a stream): one JSON body.
                while not _is_final(first, request_id):
                    nxt = await watch.next()
                    if nxt is None:
                        connection.session.cancel_incoming(request_id)
                        return
                    first = nxt
                await _json(send, _status_of(first), first, extra)
                return
            await _start_sse(send, extra)
            message: JSONObject | None = first
            event = 0
            # A session's stream is logged in the store: cut, it resumes (GET + Last-Event-ID)
            # on any worker, and its request goes on meanwhile.
            log_key = token = None
            gone = False
            if session_id is not None:
                token = "p" + secrets.token_urlsafe(12)
                log_key = stream_key(session_id, token)
            deadline = time.monotonic() + _RESUME_WINDOW
            while message is not None:
                event += 1
                data = jsonrpc.encode(message)
                event_id = f"{request_id}-{event}"
                if log_key is not None:
                    try:
                        event_id = f"{token}.{await self.store.append_event(log_key, data, self._log_ttl())}"
                    except StoreUnavailable as exc:
                        log.warning("%s", exc)
                        log_key = None
                if not gone:
                    chunk = _sse_event(event_id, data)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if _is_final(message, request_id):
                    break
                if log_key is None:
                    message = await watch.next() if not gone else await _next_until(stream, deadline)
                else:
                    message, gone = await self._next_logged(watch, stream, log_key, gone, deadline)
            if message is None:
                connection.session.cancel_incoming(request_id)
                return
            if not gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watch.stop()
            if stream.detached:
                self._detached -= 1

    # -- the stateless era ------------------------------------------------------------

    async def _serve_stateless(
        self, message: JSONObject, accept: str, receive: Receive, send: Send, loss: _ConnectionLoss | None
    ) -> None:
        """A 2026-07-28 request, answered in this very task: nothing outlives its response, so it
        needs no connection or session of its own, no task for its handler and no queue between
        the two. What the handler sends before its answer goes straight out (see _Exchange)."""
        connection = self._stateless_connection
        if connection is None:
            # One for every stateless request of this app: it holds no state of its own.
            connection = ServerConnection(self.server, _StatelessTransport(), stateless_only=True)
            self._stateless_connection = connection
        exchange = _Exchange(send, receive, message["id"], "text/event-stream" in accept and not self.json_response)
        token = _current_exchange.set(exchange)
        exchange.watch(loss)
        try:
            reply = await _reply(connection, message)
        except asyncio.CancelledError:
            if not exchange.gone:
                raise  # the server is shutting down
            _uncancel()  # the client left: its handler was stopped, nothing is answered
            return
        finally:
            exchange.stop()
            _current_exchange.reset(token)
        await exchange.answer(reply)

    # -- GET and DELETE ------------------------------------------------------------

    def _log_ttl(self) -> float:
        return max(self.limits.session_idle_timeout, 60.0) if self.limits.session_idle_timeout > 0 else _LOG_TTL

    async def _get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if "text/event-stream" not in headers.get("accept", ""):
            await _plain(send, 406, "GET needs Accept: text/event-stream")
            return
        session_id = headers.get("mcp-session-id")
        legacy = await self._session(session_id) if session_id else None
        if legacy is None or session_id is None:
            # Stateless era: no standalone stream.
            await _plain(send, 405 if session_id is None else 404, "No standalone stream", {"allow": "POST"})
            return
        last_event = headers.get("last-event-id")
        resumed = parse_event_id(last_event)
        if last_event is not None:
            if resumed is None or not await self.store.has_stream(stream_key(session_id, resumed[0])):
                await _plain(send, 404, "Unknown Last-Event-ID: the stream cannot be resumed")
                return
            if resumed[0].startswith("p"):
                await self._resume_request_stream(session_id, resumed, receive, send)
                return
        if legacy.transport.standalone is not None:
            await _plain(send, 409, "A stream is already open for this session")
            return
        queue: asyncio.Queue[JSONObject] = asyncio.Queue()
        legacy.transport.standalone = queue
        legacy.busy += 1
        token = resumed[0] if resumed is not None else "g" + secrets.token_urlsafe(12)
        log_key: str | None = stream_key(session_id, token)
        await _start_sse(send, {"mcp-session-id": session_id})
        disconnect = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
            if resumed is not None:
                await self._replay(stream_key(session_id, token), token, resumed[1], send, disconnect, follow=False)
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, disconnect}, timeout=15.0, return_when=asyncio.FIRST_COMPLETED)
                if disconnect in done:
                    getter.cancel()
                    break
                if getter in done:
                    payload = jsonrpc.encode(getter.result())
                    event_id = None
                    if log_key is not None:
                        try:
                            event_id = f"{token}.{await self.store.append_event(log_key, payload, self._log_ttl())}"
                        except StoreUnavailable as exc:
                            log.warning("%s", exc)
                            log_key = None
                    data = _sse_event(event_id, payload)
                else:
                    getter.cancel()
                    data = b": keep-alive\n\n"
                await send({"type": "http.response.body", "body": data, "more_body": True})
        finally:
            disconnect.cancel()
            legacy.busy -= 1
            legacy.last_seen = time.monotonic()
            if legacy.transport.standalone is queue:
                legacy.transport.standalone = None

    async def _resume_request_stream(
        self, session_id: str, resumed: tuple[str, str], receive: Receive, send: Send
    ) -> None:
        """A request's cut stream, from its log: what the client missed, then what comes, up to
        the request's answer (the worker serving it may be another one)."""
        await _start_sse(send, {"mcp-session-id": session_id})
        disconnect = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            key = stream_key(session_id, resumed[0])
            await self._replay(key, resumed[0], resumed[1], send, disconnect, follow=True)
        finally:
            disconnect.cancel()
        with contextlib.suppress(Exception):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _next_logged(
        self, watch: _DisconnectWatch, stream: _RequestStream, log_key: str, gone: bool, deadline: float
    ) -> tuple[JSONObject | None, bool]:
        """A logged request's next message (and whether its client left: it keeps being logged
        for a resume); a heartbeat goes into the log every _HEARTBEAT seconds without one."""
        while True:
            waiting = asyncio.ensure_future(_next_until(stream, deadline) if gone else watch.next())
            done, _ = await asyncio.wait({waiting}, timeout=_HEARTBEAT)
            if not done:
                waiting.cancel()  # nothing is taken from the stream until next() returns
                with contextlib.suppress(asyncio.CancelledError):
                    await waiting
                try:
                    await self.store.append_event(log_key, _HEARTBEAT_MARK, self._log_ttl())
                except StoreUnavailable as exc:
                    log.warning("%s", exc)
                continue
            message = waiting.result()
            if message is None and not gone:
                if self._detached >= MAX_DETACHED_REQUESTS:
                    return None, False  # too many outlive their clients already: cancelled
                self._detached += 1
                stream.detached = True
                gone = True
                continue
            return message, gone

    async def _replay(
        self, key: str, token: str, after: str, send: Send, disconnect: asyncio.Future[None], *, follow: bool
    ) -> None:
        """Send a log's events after `after`; with `follow`, wait for more until a final answer
        (a message with no method), the client leaves, or the resume window ends."""
        deadline = time.monotonic() + _RESUME_WINDOW
        heard = time.monotonic()
        while not disconnect.done() and time.monotonic() < deadline:
            events = await self.store.read_events(key, after, 2.0 if follow else 0)
            if events:
                heard = time.monotonic()
            elif follow and time.monotonic() - heard > 3 * _HEARTBEAT:
                # The worker serving the request stopped (it died): later resumes end at once.
                with contextlib.suppress(StoreUnavailable):
                    await self.store.append_event(key, _ABANDONED_MARK, self._log_ttl())
                return
            for entry, payload in events:
                after = entry
                if payload == _HEARTBEAT_MARK:
                    continue
                if payload == _ABANDONED_MARK:
                    return
                try:
                    message = jsonrpc.decode(payload)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    continue  # not written by a worker: never sent
                if not isinstance(message, dict):
                    continue
                chunk = _sse_event(f"{token}.{entry}", payload)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if follow and "method" not in message:
                    return
            if not events and not follow:
                return

    async def _delete(self, headers: dict[str, str], send: Send) -> None:
        session_id = headers.get("mcp-session-id")
        legacy = await self._session(session_id) if session_id else None
        if legacy is None or session_id is None:
            await _plain(send, 404 if session_id else 405, "No such session")
            return
        self.sessions.pop(session_id, None)
        await self.store.end_session(session_id)
        if self.store.shared:  # the other workers drop their copies (and close its GET stream)
            await self.store.publish(CHANNEL_ROUTE, _pack({"session": session_id, "end": True}))
        await legacy.connection.session.close("the client ended the session")
        await _plain(send, 200, "")


class _DisconnectWatch:
    """Waits for a request's next message; notices a client that went away, lazily."""

    __slots__ = ("stream", "receive", "timer", "task")

    def __init__(self, stream: _RequestStream, receive: Receive) -> None:
        self.stream = stream
        self.receive = receive
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None

    async def next(self) -> JSONObject | None:
        """The next message for this request, or None if the client went away first."""
        stream = self.stream
        while not stream.items:
            if stream.gone:
                return None
            loop = asyncio.get_running_loop()
            if self.task is None and self.timer is None:
                self.timer = loop.call_later(_WATCH_AFTER, self._start)
            stream.waiter = loop.create_future()
            try:
                await stream.waiter
            finally:
                stream.waiter = None
        return stream.items.popleft()

    def _start(self) -> None:
        self.timer = None
        self.task = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        await _wait_disconnect(self.receive)
        self.stream.gone = True
        self.stream.wake()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None:
            self.task.cancel()


class _ConnectionLoss:
    """Told by serve_http's protocol the moment its connection is lost: the request it is serving
    learns that its client left without a timer or a task watching for it."""

    __slots__ = ("callback",)

    def __init__(self) -> None:
        self.callback: Callable[[], None] | None = None

    def fire(self) -> None:
        callback, self.callback = self.callback, None
        if callback is not None:
            callback()


# Where serve_http's protocol puts a connection's _ConnectionLoss in each request's scope.
_LOSS_KEY = "mcpgen.connection_loss"


class _Exchange:
    """One 2026-07-28 request's HTTP response while its handler runs in the request's own task.
    What the handler sends before its answer (progress, logs, listen events) goes out at once as
    SSE events when the client takes a stream (dropped otherwise: a JSON response carries the
    answer only); the answer ends the response. A client that goes away stops the handler: after
    _WATCH_AFTER, a task watches for the disconnect (quick answers never pay for it)."""

    __slots__ = (
        "send",
        "receive",
        "request_id",
        "streams",
        "started",
        "events",
        "closed",
        "over",
        "gone",
        "task",
        "timer",
        "watcher",
        "loss",
    )

    def __init__(self, send: Send, receive: Receive, request_id: RequestId, streams: bool) -> None:
        self.send = send
        self.receive = receive
        self.request_id = request_id
        self.streams = streams  # the client takes an SSE stream
        self.started = False  # the SSE response has begun
        self.events = 0
        self.closed = False  # the handler dropped its connection (RequestContext.drop_connection)
        self.over = False  # the handler has returned: later messages have nowhere to go
        self.gone = False  # the client disconnected
        self.task: asyncio.Task[Any] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.loss: _ConnectionLoss | None = None

    async def emit(self, message: JSONObject) -> None:
        """A message the handler sends before its answer."""
        if self.closed:
            raise ConnectionClosed("the HTTP exchange is closed")
        if self.over or self.gone or not self.streams:
            log.debug("dropping a message with no stream to carry it: %.200r", message)
            return
        data = jsonrpc.encode(message)  # (ValueError, NaN in it: the sender's problem, nothing sent)
        if not self.started:
            self.started = True
            await _start_sse(self.send, {})
        self.events += 1
        chunk = _sse_event(f"{self.request_id}-{self.events}", data)
        await self.send({"type": "http.response.body", "body": chunk, "more_body": True})

    async def answer(self, reply: JSONObject) -> None:
        """The request's answer: one JSON body, or the last event of the stream begun."""
        if self.closed:
            return  # dropped: the client sees no answer, as from a crashed server
        try:
            body = jsonrpc.encode(reply)
        except ValueError:  # e.g. NaN in a result
            reply = jsonrpc.error_response(self.request_id, jsonrpc.INTERNAL_ERROR, "Result is not valid JSON")
            body = jsonrpc.encode(reply)
        if not self.started:
            await _json_body(self.send, _status_of(reply), body)
            return
        self.events += 1
        chunk = _sse_event(f"{self.request_id}-{self.events}", body)
        await self.send({"type": "http.response.body", "body": chunk, "more_body": False})

    def watch(self, loss: _ConnectionLoss | None) -> None:
        """Stop the handler when the client goes away: told at once by the connection when it is
        ours (serve_http's protocol), else found by a task watching after _WATCH_AFTER."""
        loop = asyncio.get_running_loop()
        self.task = asyncio.current_task(loop)
        if loss is not None:
            self.loss = loss
            loss.callback = self._client_left
        else:
            self.timer = loop.call_later(_WATCH_AFTER, self._watch_now)

    def _client_left(self) -> None:
        if not self.over and self.task is not None:
            self.gone = True
            self.task.cancel()

    def _watch_now(self) -> None:
        self.timer = None
        if not self.over:
            self.watcher = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        await _wait_disconnect(self.receive)
        self._client_left()

    def stop(self) -> None:
        self.over = True
        if self.loss is not None:
            self.loss.callback = None
        if self.timer is not None:
            self.timer.cancel()
        if self.watcher is not None:
            self.watcher.cancel()


# The stateless exchange whose handler runs in this task (_StatelessTransport sends to it).
_current_exchange: contextvars.ContextVar[_Exchange | None] = contextvars.ContextVar(
    "mcpgen_http_exchange", default=None
)


class _StatelessTransport:
    """The transport of the connection all 2026-07-28 requests share: a message goes to the
    response of the request whose handler (or a task it started) sends it."""

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        exchange = _current_exchange.get()
        if exchange is None:
            log.debug("dropping a message sent outside any request: %.200r", message)
            return
        for item in message if isinstance(message, list) else (message,):
            await exchange.emit(item)

    async def receive(self) -> bytes | None:
        raise RuntimeError("HTTP messages are dispatched, not read")

    async def close(self) -> None:
        # Only the calling request's exchange ends (RequestContext.drop_connection).
        exchange = _current_exchange.get()
        if exchange is not None:
            exchange.closed = True

    def describe_close(self) -> str:
        return "the HTTP exchange ended"


async def _reply(connection: ServerConnection, message: JSONObject) -> JSONObject:
    """The answer to a request, by Session._answer's rules: its result, the RpcError it raised,
    or -32603 for any other failure (logged; a traceback never reaches the client)."""
    request_id = message["id"]
    method = message["method"]
    params = message.get("params")
    try:
        result = await connection.handle_request(method, params if isinstance(params, dict) else {}, request_id)
    except RpcError as exc:
        return jsonrpc.error_response(request_id, exc.code, exc.message, exc.data)
    except Exception:
        log.exception("handler for %s failed", method)
        return jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
    return jsonrpc.response(request_id, result)


def _uncancel() -> None:
    """Forget a cancellation this task has handled (Python 3.11+ counts them)."""
    task = asyncio.current_task()
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()


_SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no"}


async def _next_until(stream: _RequestStream, deadline: float) -> JSONObject | None:
    """The request's next message with no client to watch (it left; a resume may come), or None
    once `deadline` passes."""
    while not stream.items:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        stream.waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(stream.waiter, remaining)
        except asyncio.TimeoutError:
            return None
        finally:
            stream.waiter = None
    return stream.items.popleft()


def _record_of_initialize(params: JSONObject, owner: tuple[str | None, str | None, str | None] | None) -> SessionRecord:
    """What an initialize with these params agrees (ServerConnection._initialize's rule)."""
    requested = params.get("protocolVersion")
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
    caps, info = params.get("capabilities"), params.get("clientInfo")
    return SessionRecord(
        protocol_version=str(version),
        client_capabilities=caps if isinstance(caps, dict) else {},
        client_info=info if isinstance(info, dict) else {},
        owner=list(owner) if owner is not None else None,
    )


def _is_change_event(method: str, params: JSONObject) -> bool:
    if method == "notifications/resources/updated":
        return isinstance(params.get("uri"), str)
    kind = method.removeprefix("notifications/").removesuffix("/list_changed")
    return method == f"notifications/{kind}/list_changed" and kind in LIST_KINDS


def _pack(item: JSONObject) -> bytes:
    return jsonrpc.encode(item)


def _unpack(data: bytes) -> JSONObject | None:
    """A message another worker published, if it is a JSON object of a sane size."""
    if len(data) > MAX_RECORD_BYTES * 64:
        return None
    try:
        item = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return item if isinstance(item, dict) else None


def _principal() -> tuple[str | None, str | None, str | None] | None:
    """The caller a protected server verified for this request (issuer, subject, client), or None."""
    auth = current_auth.get()
    return None if auth is None else (auth.issuer, auth.subject, auth.client_id)


def _modern_header_problem(server: Server, message: JSONObject, headers: dict[str, str]) -> tuple[int, str] | None:
    """2026-07-28 requests repeat key body fields in headers; they must be there and agree."""
    raw_params = message.get("params")
    params: JSONObject = raw_params if isinstance(raw_params, dict) else {}
    meta = params.get("_meta")
    version = headers.get("mcp-protocol-version")
    body_version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    is_request = "id" in message
    # A missing body version is the body's own problem (-32602), reported by the server.
    if version is not None and body_version is not None and version != body_version:
        return jsonrpc.HEADER_MISMATCH, "MCP-Protocol-Version header does not match params._meta"
    # (An unsupported body version is answered first: -32022 lets the client step down.)
    if version is None and is_request and body_version in MODERN_VERSIONS:
        return jsonrpc.HEADER_MISMATCH, "Missing MCP-Protocol-Version header"
    method_header = _field(headers, "mcp-method")
    if method_header is None and is_request:
        return jsonrpc.HEADER_MISMATCH, "Missing Mcp-Method header"
    if method_header is not None and method_header != message.get("method"):
        return jsonrpc.HEADER_MISMATCH, "Mcp-Method header does not match the body"
    problem = _name_problem(message, params, headers)
    if problem is None and message.get("method") == "tools/call":
        problem = _param_problem(server, params, headers)
    if problem is not None:
        return jsonrpc.HEADER_MISMATCH, problem
    if version is not None and version not in MODERN_VERSIONS:
        return jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, f"Unsupported protocol version: {version}"
    return None


def _name_problem(message: JSONObject, params: JSONObject, headers: dict[str, str]) -> str | None:
    """Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read)."""
    field_name = _NAME_HEADER_FOR.get(str(message.get("method")))
    if field_name is None:
        return None
    name_header = _field(headers, "mcp-name")
    body_value = params.get(field_name)
    if name_header is None:
        return "Missing Mcp-Name header" if body_value is not None and "id" in message else None
    if _decode_header(name_header) != body_value:
        return "Mcp-Name header does not match the body"
    return None


def _param_problem(server: Server, params: JSONObject, headers: dict[str, str]) -> str | None:
    """Each `x-mcp-header` argument of the called tool is mirrored in its Mcp-Param-* header:
    present exactly when the argument is, and equal to it once decoded."""
    name = params.get("name")
    tool = server.tool_definition(name) if isinstance(name, str) else None
    mirrored = param_headers_of(tool) if tool is not None else None
    raw_arguments = params.get("arguments")
    arguments: JSONObject = raw_arguments if isinstance(raw_arguments, dict) else {}
    for argument, header in (mirrored or {}).items():
        raw = _field(headers, f"mcp-param-{header.lower()}")
        value = arguments.get(argument)
        if raw is None:
            if value is not None:
                return f"Missing Mcp-Param-{header} header"
            continue
        decoded = _decode_header(raw)
        if decoded is None:
            return f"Mcp-Param-{header} header is not valid"
        if value is None or not _same_value(decoded, value):
            return f"Mcp-Param-{header} header does not match the body"
    return None


def _same_value(header: str, value: Any) -> bool:
    # Booleans as true/false, integers compared as numbers (42 and 42.0 agree), else text.
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return float(header) == value
        except ValueError:
            return False
    return isinstance(value, str) and header == value


def _field(headers: dict[str, str], name: str) -> str | None:
    """A header's value without surrounding whitespace (RFC 9110 optional whitespace)."""
    value = headers.get(name)
    return value.strip(" \t") if value is not None else None


def _header_error(message: JSONObject, code: int, text: str) -> JSONObject:
    data = None
    if code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        # The client steps down to a version named here, exactly as for the body check.
        meta = (message.get("params") or {}).get("_meta") or {}
        data = {"supported": [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS], "requested": meta.get(META_PROTOCOL_VERSION)}
    return jsonrpc.error_response(message.get("id"), code, text, data)


def _decode_header(value: str) -> str | None:
    """A plain value as is, a =?base64?...?= one decoded; None if either is malformed."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (ValueError, binascii.Error):
            return None
    # Plain values are visible ASCII, spaces and tabs only (RFC 9110 field values).
    if not all(c == "\t" or " " <= c <= "~" for c in value):
        return None
    return value


def _cancelled_id(message: JSONObject) -> RequestId | None:
    """The request a notifications/cancelled names (None for any other message)."""
    if message.get("method") != "notifications/cancelled" or "id" in message:
        return None
    params = message.get("params")
    request_id = params.get("requestId") if isinstance(params, dict) else None
    return request_id if jsonrpc.is_valid_id(request_id) else None


def _is_final(message: JSONObject, request_id: RequestId) -> bool:
    return "method" not in message and message.get("id") == request_id


def _status_of(message: JSONObject) -> int:
    error = message.get("error")
    if isinstance(error, dict):
        return _ERROR_STATUS.get(error.get("code"), 200)  # type: ignore[arg-type]
    return 200


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _header_list(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


# Sessions being closed in the background (expired or evicted): kept referenced until done.
_closing: set[asyncio.Task[None]] = set()


def _declared_length(headers: dict[str, str]) -> int:
    try:
        return int(headers.get("content-length", "0"))
    except ValueError:
        return 0  # h11 refuses a malformed Content-Length before we see it


def _accepts(accept: str) -> tuple[bool, bool]:
    """(takes JSON, takes SSE) by an Accept header, wildcards included."""
    types = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    anything = "*/*" in types
    return (
        anything or "application/json" in types or "application/*" in types,
        anything or "text/event-stream" in types or "text/*" in types,
    )


def _is_json(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() == "application/json"


async def _too_large(send: Send) -> None:
    # The unread rest of the body makes the connection useless: close it after this answer.
    await _json(
        send,
        413,
        jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Request body too large"),
        {"connection": "close"},
    )


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` bytes (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _start_sse(send: Send, extra: dict[str, str]) -> None:
    """The head of an SSE response (unbuffered by proxies: `x-accel-buffering: no`)."""
    await send({"type": "http.response.start", "status": 200, "headers": _header_list(_SSE_HEADERS | extra)})


def _sse_event(event_id: str | None, payload: bytes) -> bytes:
    """One SSE `message` event carrying a JSON-RPC message (with its id, when it has one)."""
    head = b"id: " + event_id.encode() + b"\n" if event_id is not None else b""
    return head + b"event: message\ndata: " + payload + b"\n\n"


async def _plain(send: Send, status: int, text: str, extra: dict[str, str] | None = None) -> None:
    body = text.encode()
    headers = {"content-type": "text/plain; charset=utf-8", "content-length": str(len(body)), **(extra or {})}
    await send({"type": "http.response.start", "status": status, "headers": _header_list(headers)})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
    await _json_body(send, status, jsonrpc.encode(payload), extra)


async def _json_body(send: Send, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if extra:
        headers += _header_list(extra)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def serve_http(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    stateless: bool = False,
    json_response: bool = False,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    log_level: str = "warning",
    limits: HttpLimits | None = None,
    access_log: bool = False,
    announce: bool = True,
    auth: AuthSettings | None = None,
    store: Store | None = None,
    sockets: list[socket.socket] | None = None,
) -> None:
    """Run the server under uvicorn (blocking). Binds 127.0.0.1 unless told otherwise; with
    `auth`, an OAuth resource server (every request to `path` needs a valid access token).

    With `announce`, one line on stderr says where it listens once the socket is bound
    (`serving MCP on http://127.0.0.1:8000/mcp`, the real port when `port` is 0). `access_log`
    logs one line per request to stderr: off by default, since formatting every line costs speed.
    `store` shares sessions, stream logs and notifications with other workers (default: in memory).
    `sockets` are listening sockets bound already (a worker of `--workers` serves its
    supervisor's); `host` and `port` then only name them.
    """
    import uvicorn

    limits = limits or HttpLimits()
    app: Any = StreamableHttpApp(
        server,
        path=path,
        stateless=stateless,
        json_response=json_response,
        security=HttpSecurity(list(allowed_hosts), list(allowed_origins)),
        limits=limits,
        store=store,
    )
    if auth is not None:
        try:
            from ..server.auth.resource import protect
        except ImportError as exc:  # joserfc: the `oauth` extra
            raise SystemExit(f"auth needs the oauth extra (pip install 'mcpgen[oauth]'): {exc}") from None
        app = protect(app, server, auth, path=path, max_body_bytes=limits.max_body_bytes)
    # uvicorn formats every access-log line's arguments before the logger drops them by level:
    # turned off unless asked for or that level would show it anyway.
    access_log = access_log or log_level.lower() in ("trace", "debug", "info")
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="off",
        access_log=access_log,
        http=guarded_protocol(limits.header_timeout, _connection_cap(limits.max_connections)),
        timeout_keep_alive=max(1, math.ceil(limits.keep_alive_timeout)),
        # X-Forwarded-* only rewrite the client address and scheme in the scope, which nothing but
        # the access log reads: without it, uvicorn's middleware would parse them on every request.
        proxy_headers=access_log,
        server_header=False,  # "server: uvicorn" on every response tells a client nothing it needs
    )
    # The loggers exist once uvicorn configured logging: floods of one failure become one line
    # per period (accept errors when descriptors run out, refused connections, bad requests).
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addFilter(rate_limited)
    if access_log:
        # uvicorn's access handler writes to stdout; every other line of the server goes to stderr.
        access = logging.getLogger("uvicorn.access")
        access.setLevel(logging.INFO)
        for handler in access.handlers:
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(sys.stderr)
    server_class = _announcing_server(uvicorn.Server, path) if announce else uvicorn.Server
    server_class(config).run(sockets=sockets)


def _announcing_server(base: type[Any], path: str) -> type[Any]:
    """uvicorn's Server, saying on stderr where it listens once its sockets are bound."""

    class AnnouncingServer(base):  # type: ignore[misc]
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:  # binding failed: uvicorn has logged why
                return
            for url in _listening_urls(self.servers, path):
                print(f"serving MCP on {url}", file=sys.stderr, flush=True)

    return AnnouncingServer


def _listening_urls(servers: Iterable[Any], path: str) -> list[str]:
    """One http:// URL per bound socket (IPv6 addresses in brackets)."""
    urls: list[str] = []
    for server in servers:
        for sock in getattr(server, "sockets", None) or ():
            address = sock.getsockname()
            if not isinstance(address, tuple):
                continue
            host, port = str(address[0]), int(address[1])
            shown = f"[{host}]" if ":" in host else host
            urls.append(f"http://{shown}:{port}{path}")
    return urls


def _connection_cap(wanted: int) -> int:
    """`wanted`, kept below the process's descriptor limit so that accept() never runs out."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return wanted
    return max(1, min(wanted, soft - 64))


def guarded_protocol(header_timeout: float, max_connections: int) -> type[Any]:
    """uvicorn's HTTP/1.1 protocol with two guards it lacks: a connection that has not sent a complete
    request head `header_timeout` seconds after it opened (or after its last response) is closed,
    and a connection beyond `max_connections` is closed as soon as it is accepted.

    After a response, uvicorn's keep-alive timer closes a connection that stays silent; when that
    comes first (keep-alive timeout <= header timeout, the defaults), the head timer starts only
    once the next request's first bytes arrive without its whole head: a request that arrives in
    one piece, nearly every one, costs no timer of ours."""
    base: type[Any]
    try:  # uvicorn's faster parser when httptools is installed, as its "auto" would pick
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        base = H11Protocol

    class GuardedProtocol(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None
        _writer: _OneWrite | None = None
        _loss: _ConnectionLoss | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                log.warning("refusing a connection: %d are open (--max-connections)", len(self.connections) - 1)
                transport.abort()
                return
            self._writer = _OneWrite(transport, self.loop)
            self._loss = _ConnectionLoss()
            self._arm()

        def _write_through_one(self) -> None:
            # The request just parsed writes its response through the coalescing writer, and hears
            # through the connection's loss hook when its client goes away.
            cycle = self.cycle
            if cycle is not None and self._writer is not None and cycle.transport is self.transport:
                cycle.transport = self._writer
                cycle.scope[_LOSS_KEY] = self._loss

        def _arm(self) -> None:
            self._disarm()
            if header_timeout > 0:
                self._head_timer = self.loop.call_later(header_timeout, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                log.info("closing a connection that sent no complete request head in %g s", header_timeout)
                self.transport.abort()

        def handle_events(self) -> None:  # h11
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # a request head arrived
                self._write_through_one()

        def on_headers_complete(self) -> None:  # httptools
            super().on_headers_complete()
            self._disarm()
            self._write_through_one()

        def on_response_complete(self) -> None:
            # Armed first: a pipelined request handled inside super() disarms it again.
            if not self.transport.is_closing() and self.timeout_keep_alive > header_timeout:
                self._arm()
            super().on_response_complete()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_timer is None and header_timeout > 0 and not self.transport.is_closing():
                cycle = self.cycle
                if cycle is None or cycle.response_complete:  # a request head begun, not complete
                    self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)
            if self._loss is not None:
                self._loss.fire()

    return GuardedProtocol


class _OneWrite:
    """The transport uvicorn writes a response through, sending what one event-loop step wrote in
    one write. uvicorn writes a response's head and its body separately: two segments, and a client
    waiting for the answer wakes up for the head only, then again for the body. Held bytes leave at
    the end of the step (before the loop reads the socket again), at once past _ONE_WRITE_MAX bytes
    (uvicorn's write flow control then sees them), and before the connection is closed."""

    __slots__ = ("transport", "loop", "pending", "size")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self.loop = loop
        self.pending: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> None:
        if not self.pending:
            self.loop.call_soon(self.flush)
        self.pending.append(data)
        self.size += len(data)
        if self.size > _ONE_WRITE_MAX:
            self.flush()

    def flush(self) -> None:
        pending = self.pending
        if not pending:
            return
        self.pending = []
        self.size = 0
        if not self.transport.is_closing():
            self.transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def close(self) -> None:
        self.flush()
        self.transport.close()


_ONE_WRITE_MAX = 64 * 1024
