"""Streamable HTTP server: a plain ASGI app over the same `Server` as stdio.

One endpoint (POST, GET, DELETE). A stateless-era request (2026-07-28 `_meta`) is served on its
own (`stateless.py`), so several workers or hosts can share the load. An `initialize` opens a
handshake-era session (`handshake.py`, `sessions.py`). Each request gets its own response:
plain JSON when the handler answers without streaming anything first, otherwise an SSE stream
carrying its progress, logs and server->client requests, then the result
(`session_streams.py`). A client that disconnects cancels its handler, except in a session:
there the stream is logged in the store and the request goes on, so the client can resume it
(GET with Last-Event-ID) on this worker or any other sharing the store (`resumption.py`,
`routing.py`).
"""

from __future__ import annotations

import contextlib

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject, is_array, is_object
from ...core.protocol import META_PROTOCOL_VERSION, MODERN_VERSIONS
from ..server import Server
from ..store import MemoryStore, Store, StoreUnavailable
from .asgi import (
    Receive,
    Scope,
    Send,
    accepts,
    declared_length,
    headers_of,
    is_json,
    json_reply,
    lifespan,
    plain,
    refuse,
    remember,
    too_large,
)
from .handshake import HandshakeEra
from .limits import HttpLimits
from .logs import log
from .request_body import parse_request, refuse_unparsed
from .resumption import StreamLogs
from .routing import WorkerRouter
from .security import HttpSecurity
from .session_streams import SessionStreams
from .sessions import SessionTable
from .stateless import StatelessEra
from .streams import LOSS_KEY


class StreamableHttpApp:
    """ASGI application serving one `Server` at `path` (default /mcp).

    It checks what every request must pass (size, Host and Origin, path, media types, the body)
    and hands it to its era: `modern` (2026-07-28) or `handshake`. Those share the collaborators
    that hold the state: `sessions` (this worker's handshake-era sessions and the store),
    `router` (what workers tell each other), `logs` (stream logs for resumption) and `streams`
    (the responses and GET streams of sessions).
    """

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
        self.path = path.rstrip("/") or "/"
        self._bare_path = self.path.rstrip("/")
        # Host and Origin pairs judged already (HttpSecurity's verdict is a function of the two
        # strings): bounded like asgi.py's memos, a client sending ever new ones only empties it.
        self._allowed: dict[tuple[str | None, str | None], bool] = {}
        self.security = security or HttpSecurity()
        self.json_response = json_response
        # Sessions, stream logs and notifications shared with the other workers (memory: none).
        self.store: Store = store if store is not None else MemoryStore()
        server.tasks.use_store(self.store)  # tasks live where the sessions do (shared by workers)
        self.sessions = SessionTable(server, self.store, self.limits)
        self.router = WorkerRouter(server, self.sessions)
        self.logs = StreamLogs(self.store, self.limits)
        self.streams = SessionStreams(self.sessions, self.logs, json_response)
        self.handshake = HandshakeEra(server, self.sessions, self.router, self.streams, stateless)
        self.modern = StatelessEra(server, json_response)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if len(scope["headers"]) > self.limits.max_headers > 0:
            await plain(send, 431, "Request header fields too large", {"connection": "close"})
            return
        headers = headers_of(scope)
        if scope["method"] == "POST" and declared_length(headers) > self.limits.max_body_bytes:
            # Refused before the body is read or anything else is checked.
            await too_large(send)
            return
        if not self._host_and_origin_ok(headers.get("host"), headers.get("origin")):
            await plain(send, 403, "Forbidden: Host or Origin not allowed")
            return
        path = scope["path"]
        if path != self.path and path.rstrip("/") != self._bare_path:
            await plain(send, 404, "Not found")
            return
        method = scope["method"]
        try:
            if not self.sessions.started:
                # On the first request of any kind: a worker that only ever holds 2026-07-28
                # listen streams must still hear the notifications other workers publish.
                await self.sessions.start()
            if method == "POST":
                await self._post(scope, headers, receive, send)
            elif method == "GET":
                await self.streams.get(headers, receive, send)
            elif method == "DELETE":
                await self.handshake.delete(headers, send)
            else:
                await plain(send, 405, "Method not allowed", {"allow": "GET, POST, DELETE"})
        except StoreUnavailable as exc:
            # The server goes on; this request gets the reason (when its answer has not started).
            log.warning("%s", exc)
            with contextlib.suppress(Exception):
                await json_reply(send, 503, jsonrpc.error_response(None, jsonrpc.INTERNAL_ERROR, str(exc)))

    def _host_and_origin_ok(self, host: str | None, origin: str | None) -> bool:
        key = (host, origin)
        found = self._allowed.get(key)
        if found is None:
            found = self.security.host_ok(host) and self.security.origin_ok(origin)
            remember(self._allowed, key, found, len(host or "") + len(origin or ""))
        return found

    async def _post(self, scope: Scope, headers: dict[str, str], receive: Receive, send: Send) -> None:
        accept = headers.get("accept", "")
        # As the official SDK: the client must take both response kinds (JSON only in
        # json_response mode), and send JSON.
        has_json, has_sse = accepts(accept)
        if not has_json or not (has_sse or self.json_response):
            wanted = "application/json" if self.json_response else "both application/json and text/event-stream"
            await refuse(send, 406, None, f"Not Acceptable: accept {wanted}")
            return
        if not is_json(headers.get("content-type", "")):
            await refuse(send, 415, None, "Unsupported Media Type: Content-Type must be application/json")
            return
        # Parsed once per request: behind the auth layer, this is the message it judged.
        parsed = await parse_request(scope, receive, self.limits.max_body_bytes, headers.get("content-encoding"))
        if not parsed.ok:
            await refuse_unparsed(send, parsed)
            return
        message = parsed.message
        kind = jsonrpc.classify(message)
        if is_array(message):
            await refuse(send, 400, None, "Batches are not supported over HTTP")
            return
        if kind == "invalid":
            await refuse(send, 400, None, "Invalid request")
            return
        params: JSONObject = message.get("params") if is_object(message.get("params")) else {}
        meta = params.get("_meta") if is_object(params) else None
        # The 2026-07-28 version header marks the request stateless even when its _meta is broken.
        header_modern = headers.get("mcp-protocol-version") in MODERN_VERSIONS
        body_modern = is_object(meta) and META_PROTOCOL_VERSION in meta and message.get("method") != "initialize"
        loss = scope.get(LOSS_KEY)
        if header_modern or body_modern:
            await self.modern.post(message, kind, headers, accept, receive, send, loss)
        else:
            await self.handshake.post(message, kind, params, headers, accept, receive, send, loss)
