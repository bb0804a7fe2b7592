"""The responses of a handshake-era connection: each POSTed request's (plain JSON when its handler
answers without streaming anything first, else an SSE stream carrying its progress, logs and
server->client requests, then the answer; in a session, logged for a resume), and a session's
GET stream (notifications and requests not tied to a request; a cut one resumes from its log)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time

from ...core import jsonrpc
from ...core.errors import McpError
from ...core.jsonrpc import JSONObject, RequestId
from ..connection import ServerConnection
from ..store.base import parse_event_id, stream_key
from .asgi import Receive, Send, json_reply, plain, sse_event, start_sse, status_of, wait_disconnect
from .resumption import RESUME_WINDOW, StreamLogs
from .sessions import LegacySession, SessionTable
from .streams import (
    ClientLeft,
    ConnectionLoss,
    DisconnectWatch,
    HttpServerTransport,
    RequestStream,
    is_final,
    next_until,
)


class SessionStreams:
    """Writes the answers of handshake-era requests and serves sessions' GET streams."""

    def __init__(self, sessions: SessionTable, logs: StreamLogs, json_response: bool) -> None:
        self.sessions = sessions
        self.logs = logs
        self.json_response = json_response

    async def serve(
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
        loss: ConnectionLoss | None = None,
    ) -> None:
        """Hand `message` to the connection and write what answers it."""
        extra = {"mcp-session-id": session_id} if session_id else {}
        if kind != "request":
            # Notifications and responses (to our sampling/elicitation requests): accepted, no body.
            connection.session.dispatch(message)
            await plain(send, 202, "", extra)
            return
        request_id = message["id"]
        stream = RequestStream()
        transport.streams[request_id] = stream
        try:
            await self._answer_here(connection, stream, message, accept, receive, send, extra, session_id, loss)
        finally:
            transport.streams.pop(request_id, None)

    async def _answer_here(
        self,
        connection: ServerConnection,
        stream: RequestStream,
        message: JSONObject,
        accept: str,
        receive: Receive,
        send: Send,
        extra: dict[str, str],
        session_id: str | None,
        loss: ConnectionLoss | None,
    ) -> None:
        """The request's handler runs in this very task (no task of its own, no wake-up to hand
        its answer over): an answer that comes first goes out as one JSON body. The first message
        it sends before its answer (progress, logs, a request to the client) starts a writer task
        (`_respond`) that streams from then on, exactly as for a handler in a task of its own:
        SSE, the session's stream log, a resume after a cut. Until then a client that leaves
        cancels the handler."""
        request_id = message["id"]
        session = connection.session
        writer: asyncio.Task[None] | None = None

        def client_left() -> None:
            stream.gone = True
            session.cancel_incoming(request_id)

        left = ClientLeft(receive, loss, client_left)

        def start_writer() -> None:
            nonlocal writer
            left.stop()  # the writer watches for its client from now on
            writer = asyncio.get_running_loop().create_task(
                self._respond(connection, stream, request_id, accept, receive, send, extra, session_id)
            )

        stream.starter = start_writer
        try:
            reply = await session.answer_here(message)
        except BaseException:
            if writer is not None:
                writer.cancel()  # the server is shutting down (or a bug): nothing left to write
            raise
        finally:
            stream.starter = None
            left.stop()
        if reply is not None:
            with contextlib.suppress(McpError):  # the session closed meanwhile: no answer
                await session.transport.send(reply)  # routed to `stream`, as any answer
        if writer is not None:
            try:
                await writer
            finally:
                writer.cancel()  # (if this task is cancelled: the server is shutting down)
        elif stream.items:
            answer = stream.items.popleft()
            await json_reply(send, status_of(answer), answer, extra)
        elif not stream.gone:
            # Cancelled, or its session closed: no answer (the spec's rule), and the response
            # waits for its client to leave, as for a handler in a task of its own.
            await wait_disconnect(receive)

    async def _respond(
        self,
        connection: ServerConnection,
        stream: RequestStream,
        request_id: RequestId,
        accept: str,
        receive: Receive,
        send: Send,
        extra: dict[str, str],
        session_id: str | None,
    ) -> None:
        watch = DisconnectWatch(stream, receive)
        try:
            first = await watch.next()
            if first is None:
                connection.session.cancel_incoming(request_id)
                return
            if not is_final(first, request_id) and "text/event-stream" in accept and not self.json_response:
                await start_sse(send, extra)
                if not await self._stream(watch, stream, first, request_id, send, session_id):
                    connection.session.cancel_incoming(request_id)
                return
            # Answered straight away (or the client cannot take a stream): one JSON body.
            while not is_final(first, request_id):
                nxt = await watch.next()
                if nxt is None:
                    connection.session.cancel_incoming(request_id)
                    return
                first = nxt
            await json_reply(send, status_of(first), first, extra)
        finally:
            watch.stop()
            if stream.detached:
                self.logs.release()

    async def _stream(
        self,
        watch: DisconnectWatch,
        stream: RequestStream,
        first: JSONObject,
        request_id: RequestId,
        send: Send,
        session_id: str | None,
    ) -> bool:
        """A request's SSE events from `first` to its answer; False if it ended without one (its
        client left and no resume can come). A session's stream is logged in the store: cut, it
        resumes (GET + Last-Event-ID) on any worker, and its request goes on meanwhile."""
        message: JSONObject | None = first
        event = 0
        log_key = token = None
        gone = False
        if session_id is not None:
            token = await self.logs.new_token()
            log_key = stream_key(session_id, token)
        deadline = time.monotonic() + RESUME_WINDOW
        while message is not None:
            event += 1
            data = jsonrpc.encode(message)
            event_id: str | None = f"{request_id}-{event}"
            if log_key is not None and token is not None:
                logged = await self.logs.log_event(log_key, token, data)
                if logged is None:
                    log_key = None
                else:
                    event_id = logged
            if not gone:
                await send({"type": "http.response.body", "body": sse_event(event_id, data), "more_body": True})
            if is_final(message, request_id):
                break
            if log_key is None:
                message = await watch.next() if not gone else await next_until(stream, deadline)
            else:
                message, gone = await self.logs.next_logged(watch, stream, log_key, gone, deadline)
        if message is None:
            return False
        if not gone:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        return True

    async def get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """GET: a session's standalone stream, or the resume of a cut one."""
        if "text/event-stream" not in headers.get("accept", ""):
            await plain(send, 406, "GET needs Accept: text/event-stream")
            return
        session_id = headers.get("mcp-session-id")
        legacy = await self.sessions.find(session_id) if session_id else None
        if legacy is None or session_id is None:
            # Stateless era: no standalone stream.
            await plain(send, 405 if session_id is None else 404, "No standalone stream", {"allow": "POST"})
            return
        last_event = headers.get("last-event-id")
        resumed = parse_event_id(last_event)
        if last_event is not None:
            if resumed is None or not await self.logs.store.has_stream(stream_key(session_id, resumed[0])):
                await plain(send, 404, "Unknown Last-Event-ID: the stream cannot be resumed")
                return
            if resumed[0].startswith("p"):
                await self.logs.resume(session_id, resumed, receive, send)
                return
        if legacy.transport.standalone is not None:
            await plain(send, 409, "A stream is already open for this session")
            return
        await self._standalone(legacy, session_id, resumed, receive, send)

    async def _standalone(
        self, legacy: LegacySession, session_id: str, resumed: tuple[str, str] | None, receive: Receive, send: Send
    ) -> None:
        """The session's GET stream (logged, so that a cut one resumes), a keep-alive comment
        every 15 s, until the client leaves."""
        queue: asyncio.Queue[JSONObject] = asyncio.Queue()
        legacy.transport.standalone = queue
        legacy.busy += 1
        token = resumed[0] if resumed is not None else "g" + secrets.token_urlsafe(12)
        log_key: str | None = stream_key(session_id, token)
        await start_sse(send, {"mcp-session-id": session_id})
        disconnect = asyncio.ensure_future(wait_disconnect(receive))
        try:
            await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
            if resumed is not None:
                await self.logs.replay(stream_key(session_id, token), token, resumed[1], send, disconnect, follow=False)
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
                        event_id = await self.logs.log_event(log_key, token, payload)
                        log_key = log_key if event_id is not None else None
                    data = sse_event(event_id, payload)
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
