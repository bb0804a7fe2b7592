"""The handshake era over HTTP (up to 2025-11-25): an `initialize` opens a session
(`Mcp-Session-Id`) whose later requests any worker sharing the store can serve, DELETE ends it;
with `stateless`, every request is served without one."""

from __future__ import annotations

import time

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject
from ...core.protocol import HANDSHAKE_VERSIONS
from ..server import Server
from .asgi import Receive, Send, json_reply, plain, refuse
from .routing import WorkerRouter, cancelled_id
from .session_streams import SessionStreams
from .sessions import SessionTable
from .streams import ConnectionLoss, HttpServerTransport

# Handshake-era methods that change what a session record holds: saved after they are served.
_STATEFUL = frozenset({"logging/setLevel", "resources/subscribe", "resources/unsubscribe"})


class HandshakeEra:
    """Serves one app's handshake-era POSTs and DELETEs."""

    def __init__(
        self, server: Server, sessions: SessionTable, router: WorkerRouter, streams: SessionStreams, stateless: bool
    ) -> None:
        self.server = server
        self.sessions = sessions
        self.router = router
        self.streams = streams
        # Stateless: requests are served without a session, so any worker can answer.
        self.stateless = stateless

    async def post(
        self,
        message: JSONObject,
        kind: str,
        params: JSONObject,
        headers: dict[str, str],
        accept: str,
        receive: Receive,
        send: Send,
        loss: ConnectionLoss | None = None,
    ) -> None:
        """`loss`: what tells this request at once that its client left (serve_http's protocol)."""
        request_id = message.get("id") if kind == "request" else None
        if message.get("method") == "initialize":
            await self._initialize(message, kind, params, accept, receive, send, loss)
            return
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            await refuse(send, 400, request_id, f"Unsupported MCP-Protocol-Version: {version}")
            return
        if self.stateless:
            await self._sessionless(message, kind, version, accept, receive, send, loss)
            return
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            await refuse(send, 400, request_id, "Missing Mcp-Session-Id header")
            return
        legacy = await self.sessions.find(session_id)
        if legacy is None:
            await refuse(send, 404, request_id, "Unknown or expired session")
            return
        # A client's answer to a request another worker sent (that worker waits for it), or the
        # cancellation of a request another worker runs (that worker stops it).
        cancelled = cancelled_id(message)
        if (
            kind != "request" and "method" not in message and not legacy.connection.session.awaits(message.get("id"))
        ) or (cancelled is not None and cancelled not in legacy.transport.streams):
            await self.router.route(session_id, message)
            await plain(send, 202, "", {"mcp-session-id": session_id})
            return
        if request_id is not None and request_id in legacy.transport.streams:
            # Its answer could only reach one of the two POSTs: refuse the second, keep the first.
            await refuse(
                send, 409, request_id, "A request with this id is already in progress", {"mcp-session-id": session_id}
            )
            return
        legacy.busy += 1
        try:
            connection, transport = legacy.connection, legacy.transport
            await self.streams.serve(
                connection, transport, message, kind, accept, receive, send, session_id=session_id, loss=loss
            )
        finally:
            legacy.busy -= 1
            legacy.last_seen = time.monotonic()
        if message.get("method") in _STATEFUL:
            await self.sessions.save(session_id, legacy)

    async def _initialize(
        self,
        message: JSONObject,
        kind: str,
        params: JSONObject,
        accept: str,
        receive: Receive,
        send: Send,
        loss: ConnectionLoss | None,
    ) -> None:
        """A new session (none with `stateless`), answering the initialize on it."""
        transport = HttpServerTransport()
        connection = self.server.connection(transport)
        if self.stateless:
            await self.streams.serve(
                connection, transport, message, kind, accept, receive, send, session_id=None, loss=loss
            )
            return
        opened = await self.sessions.open(connection, transport, params)
        if opened is None:
            request_id = message.get("id") if kind == "request" else None
            error = jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Too many open sessions")
            await json_reply(send, 503, error)
            return
        new_id, legacy = opened
        legacy.busy += 1
        try:
            await self.streams.serve(
                connection, transport, message, kind, accept, receive, send, session_id=new_id, loss=loss
            )
        finally:
            legacy.busy -= 1
            legacy.last_seen = time.monotonic()

    async def _sessionless(
        self,
        message: JSONObject,
        kind: str,
        version: str | None,
        accept: str,
        receive: Receive,
        send: Send,
        loss: ConnectionLoss | None,
    ) -> None:
        """`stateless`: a request on a connection of its own, as if its handshake had just been made."""
        transport = HttpServerTransport()
        connection = self.server.connection(transport)
        connection.state.protocol_version = version or "2025-03-26"
        connection.state.initialized = True
        await self.streams.serve(
            connection, transport, message, kind, accept, receive, send, session_id=None, loss=loss
        )

    async def delete(self, headers: dict[str, str], send: Send) -> None:
        """DELETE: the client ends its session, on every worker."""
        session_id = headers.get("mcp-session-id")
        legacy = await self.sessions.find(session_id) if session_id else None
        if legacy is None or session_id is None:
            await plain(send, 404 if session_id else 405, "No such session")
            return
        await self.sessions.forget(session_id)
        await self.router.announce_end(session_id)
        await legacy.connection.session.close("the client ended the session")
        await plain(send, 200, "")
