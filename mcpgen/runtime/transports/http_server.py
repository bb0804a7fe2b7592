"""Streamable HTTP server: a plain ASGI app over the same `Server` as stdio.

One endpoint (POST, GET, DELETE). A stateless-era request (2026-07-28 `_meta`) is
served on its own, so several workers or hosts can share the load. An `initialize`
opens a handshake-era session (`Mcp-Session-Id`). Each request gets its own response:
plain JSON when the handler answers without streaming anything first, otherwise an
SSE stream carrying its progress, logs and server->client requests, then the result.
A client that disconnects cancels its handler.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import collections
import logging
import math
import os
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core import jsonrpc
from ..core.errors import ConnectionClosed
from ..core.headers import param_headers_of
from ..core.jsonrpc import JSONObject, RequestId
from ..core.protocol import HANDSHAKE_VERSIONS, META_PROTOCOL_VERSION, MODERN_VERSIONS
from ..core.session import current_request
from ..server.auth.info import current_auth
from ..server.server import Server, ServerConnection

if TYPE_CHECKING:
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


@dataclass(frozen=True)
class HttpLimits:
    """What one HTTP server process grants its clients. Every field has a flag and an environment
    variable in a generated server's `__main__` (see `add_limit_arguments`)."""

    # A POST body over this gets 413: at once when Content-Length says so, else when the
    # (chunked) body passes it. The official SDK's default, 4 MiB.
    max_body_bytes: int = 4 * 1024 * 1024
    # Handshake-era sessions open at once; an initialize beyond them gets 503 (the SDK's 10,000).
    max_sessions: int = 10_000
    # A session with no request in flight and no open GET stream for this long is closed; its id
    # then answers 404 like an unknown one (the SDK's 30 minutes). 0 turns expiry off.
    session_idle_timeout: float = 30 * 60.0
    # A connection that has not sent a request's complete headers this long after it opened (or
    # after its previous response) is closed: slowloris sockets cannot pile up.
    header_timeout: float = 10.0
    # An idle keep-alive connection is closed after this long (uvicorn's default, 5 s).
    keep_alive_timeout: float = 5.0
    # Connections open at once; one more is closed as soon as it is accepted (kept below the
    # process's file descriptor limit by serve_http).
    max_connections: int = 1000


# Each limit's flag, environment variable and help text, declared once.
_LIMIT_OPTIONS: dict[str, tuple[str, str, str]] = {
    "max_body_bytes": ("--max-body-bytes", "MCPGEN_MAX_BODY_BYTES", "largest POST body; more gets 413"),
    "max_sessions": ("--max-sessions", "MCPGEN_MAX_SESSIONS", "most open HTTP sessions; one more gets 503"),
    "session_idle_timeout": (
        "--session-idle-timeout",
        "MCPGEN_SESSION_IDLE_TIMEOUT",
        "seconds a session may sit idle before it is closed (0: never)",
    ),
    "header_timeout": (
        "--header-timeout",
        "MCPGEN_HEADER_TIMEOUT",
        "seconds a connection gets to send complete request headers",
    ),
    "keep_alive_timeout": (
        "--keep-alive-timeout",
        "MCPGEN_KEEP_ALIVE_TIMEOUT",
        "seconds an idle keep-alive connection stays open",
    ),
    "max_connections": ("--max-connections", "MCPGEN_MAX_CONNECTIONS", "most connections open at once"),
}


def add_limit_arguments(parser: argparse.ArgumentParser, environ: Mapping[str, str] | None = None) -> None:
    """Add a flag for every HttpLimits field; its default comes from its environment variable."""
    env = os.environ if environ is None else environ
    defaults = HttpLimits()
    group = parser.add_argument_group("HTTP limits (each also read from the environment variable named)")
    for item in fields(HttpLimits):
        flag, var, text = _LIMIT_OPTIONS[item.name]
        kind = int if isinstance(getattr(defaults, item.name), int) else float
        raw = env.get(var)
        default = getattr(defaults, item.name)
        if raw is not None and raw.strip():
            try:
                default = kind(raw)
            except ValueError:
                parser.error(f"{var} must be a number, not {raw!r}")
        group.add_argument(
            flag,
            type=kind,
            default=default,
            dest=f"limit_{item.name}",
            metavar="N" if kind is int else "SECONDS",
            help=f"{text} (env {var}; default: {getattr(defaults, item.name):{'d' if kind is int else 'g'}})",
        )


def limits_from_args(args: argparse.Namespace) -> HttpLimits:
    """The HttpLimits that `add_limit_arguments`' flags parsed to; refuses negative values."""
    values = {item.name: getattr(args, f"limit_{item.name}") for item in fields(HttpLimits)}
    for name, value in values.items():
        if not math.isfinite(value) or value < 0:
            raise SystemExit(f"{_LIMIT_OPTIONS[name][0]} must be a non-negative number, not {value}")
    return HttpLimits(**values)


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

    __slots__ = ("items", "waiter", "gone")

    def __init__(self) -> None:
        self.items: collections.deque[JSONObject] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.gone = False  # the client disconnected

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
    ) -> None:
        self.server = server
        self.limits = limits or HttpLimits()
        self._next_sweep = 0.0
        self.path = path.rstrip("/") or "/"
        self.security = security or HttpSecurity()
        self.json_response = json_response
        # Stateless: handshake-era requests are served without a session, so any worker can answer.
        self.stateless = stateless
        self.sessions: dict[str, _LegacySession] = {}

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
        if method == "POST":
            await self._post(headers, receive, send)
        elif method == "GET":
            await self._get(headers, receive, send)
        elif method == "DELETE":
            await self._delete(headers, send)
        else:
            await _plain(send, 405, "Method not allowed", {"allow": "GET, POST, DELETE"})

    # -- POST ----------------------------------------------------------------------

    async def _post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
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
            # Stateless: a fresh connection per request; nothing outlives the response.
            transport = HttpServerTransport()
            connection = ServerConnection(self.server, transport, stateless_only=True)
            await self._serve(connection, transport, message, kind, accept, receive, send, session_id=None)
            return

        session_id = headers.get("mcp-session-id")
        if message.get("method") == "initialize":
            transport = HttpServerTransport()
            connection = self.server.connection(transport)
            new_id = None
            if not self.stateless:
                if not self._room_for_a_session():
                    log.warning("refusing a new session: %d sessions are open", len(self.sessions))
                    await _json(
                        send, 503, jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Too many open sessions")
                    )
                    return
                new_id = secrets.token_urlsafe(24)
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
        legacy = self._session(session_id)
        if legacy is None:
            await _json(
                send, 404, jsonrpc.error_response(request_id, jsonrpc.INVALID_REQUEST, "Unknown or expired session")
            )
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

    # -- sessions ------------------------------------------------------------------

    def _expired(self, legacy: _LegacySession, now: float) -> bool:
        idle = self.limits.session_idle_timeout
        return idle > 0 and legacy.busy == 0 and now - legacy.last_seen > idle

    def _session(self, session_id: str) -> _LegacySession | None:
        """The live session with this id; an idle-expired one is closed here and counts as unknown."""
        self._sweep()
        legacy = self.sessions.get(session_id)
        if legacy is None or legacy.owner != _principal():
            return None
        now = time.monotonic()
        if self._expired(legacy, now):
            self._end(session_id, "the session expired")
            return None
        legacy.last_seen = now
        return legacy

    def _end(self, session_id: str, reason: str) -> None:
        legacy = self.sessions.pop(session_id, None)
        if legacy is not None:
            task = asyncio.get_running_loop().create_task(legacy.connection.session.close(reason))
            _closing.add(task)
            task.add_done_callback(_closing.discard)

    def _sweep(self, *, force: bool = False) -> None:
        """Close every idle-expired session; runs at most every few seconds (or when full)."""
        idle = self.limits.session_idle_timeout
        now = time.monotonic()
        if idle <= 0 or (now < self._next_sweep and not force):
            return
        self._next_sweep = now + min(idle / 4, 30.0)
        for session_id in [sid for sid, legacy in self.sessions.items() if self._expired(legacy, now)]:
            self._end(session_id, "the session expired")

    def _room_for_a_session(self) -> bool:
        if len(self.sessions) < self.limits.max_sessions:
            self._sweep()
            return True
        self._sweep(force=True)
        return len(self.sessions) < self.limits.max_sessions

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
            await self._respond(connection, stream, request_id, accept, receive, send, extra)
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
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": _header_list(
                        {
                            "content-type": "text/event-stream",
                            "cache-control": "no-cache",
                            "x-accel-buffering": "no",
                            **extra,
                        }
                    ),
                }
            )
            message: JSONObject | None = first
            event = 0
            while message is not None:
                event += 1
                chunk = (
                    b"id: "
                    + f"{request_id}-{event}".encode()
                    + b"\nevent: message\ndata: "
                    + jsonrpc.encode(message)
                    + b"\n\n"
                )
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if _is_final(message, request_id):
                    break
                message = await watch.next()
            if message is None:
                connection.session.cancel_incoming(request_id)
                return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watch.stop()

    # -- GET and DELETE ------------------------------------------------------------

    async def _get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if "text/event-stream" not in headers.get("accept", ""):
            await _plain(send, 406, "GET needs Accept: text/event-stream")
            return
        session_id = headers.get("mcp-session-id")
        legacy = self._session(session_id) if session_id else None
        if legacy is None:
            # Stateless era: no standalone stream.
            await _plain(send, 405 if session_id is None else 404, "No standalone stream", {"allow": "POST"})
            return
        if legacy.transport.standalone is not None:
            await _plain(send, 409, "A stream is already open for this session")
            return
        queue: asyncio.Queue[JSONObject] = asyncio.Queue()
        legacy.transport.standalone = queue
        legacy.busy += 1
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": _header_list(
                    {
                        "content-type": "text/event-stream",
                        "cache-control": "no-cache",
                        "x-accel-buffering": "no",
                        "mcp-session-id": session_id or "",
                    }
                ),
            }
        )
        disconnect = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, disconnect}, timeout=15.0, return_when=asyncio.FIRST_COMPLETED)
                if disconnect in done:
                    getter.cancel()
                    break
                if getter in done:
                    data = b"event: message\ndata: " + jsonrpc.encode(getter.result()) + b"\n\n"
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

    async def _delete(self, headers: dict[str, str], send: Send) -> None:
        session_id = headers.get("mcp-session-id")
        legacy = self._session(session_id) if session_id else None
        if session_id and legacy is not None:
            self.sessions.pop(session_id, None)
        if legacy is None:
            await _plain(send, 404 if session_id else 405, "No such session")
            return
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


async def _plain(send: Send, status: int, text: str, extra: dict[str, str] | None = None) -> None:
    body = text.encode()
    headers = {"content-type": "text/plain; charset=utf-8", "content-length": str(len(body)), **(extra or {})}
    await send({"type": "http.response.start", "status": status, "headers": _header_list(headers)})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
    body = jsonrpc.encode(payload)
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
) -> None:
    """Run the server under uvicorn (blocking). Binds 127.0.0.1 unless told otherwise; with
    `auth`, an OAuth resource server (every request to `path` needs a valid access token).

    With `announce`, one line on stderr says where it listens once the socket is bound
    (`serving MCP on http://127.0.0.1:8000/mcp`, the real port when `port` is 0). `access_log`
    logs one line per request to stderr: off by default, since formatting every line costs speed.
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
    server_class(config).run()


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
    and a connection beyond `max_connections` is closed as soon as it is accepted."""
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

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                log.warning("refusing a connection: %d are open (--max-connections)", len(self.connections) - 1)
                transport.abort()
                return
            self._writer = _OneWrite(transport, self.loop)
            self._arm()

        def _write_through_one(self) -> None:
            # The request just parsed writes its response through the coalescing writer.
            cycle = self.cycle
            if cycle is not None and self._writer is not None and cycle.transport is self.transport:
                cycle.transport = self._writer

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
            if not self.transport.is_closing():
                self._arm()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

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
