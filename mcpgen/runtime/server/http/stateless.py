"""The 2026-07-28 era over HTTP: each request served on its own, answered in its very task, so
any worker or host can answer any request. Nothing outlives its response, so a request needs no
connection or session of its own, no task for its handler and no queue between the two: what
the handler sends before its answer goes straight out (see Exchange)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

from ...core import jsonrpc
from ...core.errors import ConnectionClosed, RpcError
from ...core.jsonrpc import JSONObject, RequestId, is_array, is_object
from ..connection import ServerConnection
from ..server import Server
from .asgi import Receive, Send, json_body, json_reply, plain, sse_event, start_sse, status_of
from .logs import log
from .mirrored_headers import header_error, header_problem
from .streams import ClientLeft, ConnectionLoss


class StatelessEra:
    """Serves the 2026-07-28 POSTs of one app, on one connection they all share (it holds no
    state of its own; built on the first request)."""

    def __init__(self, server: Server, json_response: bool) -> None:
        self.server = server
        self.json_response = json_response
        self._connection: ServerConnection | None = None

    async def post(
        self,
        message: JSONObject,
        kind: str,
        headers: dict[str, str],
        accept: str,
        receive: Receive,
        send: Send,
        loss: ConnectionLoss | None,
    ) -> None:
        problem = header_problem(self.server, message, headers)
        if problem is not None:
            await json_reply(send, 400, header_error(message, *problem))
            return
        if kind != "request":
            # Nothing a stateless notification or response could reach: no request of this
            # exchange is running, and none of another client's may be touched.
            await plain(send, 202, "")
            return
        connection = self._connection
        if connection is None:
            connection = ServerConnection(self.server, StatelessTransport(), stateless_only=True)
            self._connection = connection
        exchange = Exchange(send, receive, message["id"], "text/event-stream" in accept and not self.json_response)
        token = current_exchange.set(exchange)
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
            current_exchange.reset(token)
        await exchange.answer(reply)


class Exchange:
    """One 2026-07-28 request's HTTP response while its handler runs in the request's own task.
    What the handler sends before its answer (progress, logs, listen events) goes out at once as
    SSE events when the client takes a stream (dropped otherwise: a JSON response carries the
    answer only); the answer ends the response. A client that goes away stops the handler (ClientLeft)."""

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
        "left",
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
        self.left: ClientLeft | None = None

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
            await start_sse(self.send, {})
        self.events += 1
        chunk = sse_event(f"{self.request_id}-{self.events}", data)
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
            await json_body(self.send, status_of(reply), body)
            return
        self.events += 1
        chunk = sse_event(f"{self.request_id}-{self.events}", body)
        await self.send({"type": "http.response.body", "body": chunk, "more_body": False})

    def watch(self, loss: ConnectionLoss | None) -> None:
        """Stop the handler when the client goes away (see ClientLeft)."""
        self.task = asyncio.current_task()
        self.left = ClientLeft(self.receive, loss, self._client_left)

    def _client_left(self) -> None:
        if not self.over and self.task is not None:
            self.gone = True
            self.task.cancel()

    def stop(self) -> None:
        self.over = True
        if self.left is not None:
            self.left.stop()


# The stateless exchange whose handler runs in this task (StatelessTransport sends to it).
current_exchange: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar("mcpgen_http_exchange", default=None)


class StatelessTransport:
    """The transport of the connection all 2026-07-28 requests share: a message goes to the
    response of the request whose handler (or a task it started) sends it."""

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        exchange = current_exchange.get()
        if exchange is None:
            log.debug("dropping a message sent outside any request: %.200r", message)
            return
        for item in message if is_array(message) else (message,):
            await exchange.emit(item)

    async def receive(self) -> bytes | None:
        raise RuntimeError("HTTP messages are dispatched, not read")

    async def close(self) -> None:
        # Only the calling request's exchange ends (RequestContext.drop_connection).
        exchange = current_exchange.get()
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
        result = await connection.handle_request(method, params if is_object(params) else {}, request_id)
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
