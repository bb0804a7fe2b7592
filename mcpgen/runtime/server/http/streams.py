"""Where a handshake-era connection's outgoing messages go: one stream per POSTed request (its
response), or the session's GET stream; and how a response notices its client left."""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable

from ...core.errors import ConnectionClosed
from ...core.jsonrpc import JSONObject, RequestId
from ...core.session import current_request
from .asgi import Receive, wait_disconnect
from .logs import log

# A handler that has not answered after this long gets a task watching for the client to go
# away (which cancels it). Quick answers, nearly all of them, never pay for that task.
WATCH_AFTER = 0.02
# Where serve_http's protocol puts a connection's ConnectionLoss in each request's scope.
LOSS_KEY = "mcpgen.connection_loss"


class RequestStream:
    """Messages bound for one POST's response, in order; a waiter woken by each, or by a disconnect."""

    __slots__ = ("items", "waiter", "gone", "detached", "starter")

    def __init__(self) -> None:
        self.items: collections.deque[JSONObject] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.gone = False  # the client disconnected
        self.detached = False  # and the request runs on for a resume (counted by StreamLogs)
        # Called (once) by the first message, when nothing writes the response yet: the handler
        # runs in the request's task, and a response writer starts only for what it streams.
        self.starter: Callable[[], None] | None = None

    def put(self, message: JSONObject) -> None:
        self.items.append(message)
        starter = self.starter
        if starter is not None:
            self.starter = None
            starter()
        self.wake()

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class HttpServerTransport:
    """The transport of one ServerConnection: routes each outgoing message to a stream."""

    def __init__(self) -> None:
        self.streams: dict[RequestId, RequestStream] = {}
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


class DisconnectWatch:
    """Waits for a request's next message; notices a client that went away, lazily."""

    __slots__ = ("stream", "receive", "timer", "task")

    def __init__(self, stream: RequestStream, receive: Receive) -> None:
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
                self.timer = loop.call_later(WATCH_AFTER, self._start)
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
        await wait_disconnect(self.receive)
        self.stream.gone = True
        self.stream.wake()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None:
            self.task.cancel()


async def next_until(stream: RequestStream, deadline: float) -> JSONObject | None:
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


class ClientLeft:
    """Calls `on_left` (once) if the client of a request whose handler runs in the request's own
    task goes away: told at once by the connection when it is ours (serve_http's protocol's
    `loss`), else found by a task watching for the disconnect after WATCH_AFTER (quick answers,
    nearly all of them, never pay for that task)."""

    __slots__ = ("receive", "on_left", "loss", "timer", "task")

    def __init__(self, receive: Receive, loss: ConnectionLoss | None, on_left: Callable[[], None]) -> None:
        self.receive = receive
        self.on_left = on_left
        self.loss = loss
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        if loss is not None:
            loss.callback = on_left
        else:
            self.timer = asyncio.get_running_loop().call_later(WATCH_AFTER, self._start)

    def _start(self) -> None:
        self.timer = None
        self.task = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        await wait_disconnect(self.receive)
        self.on_left()

    def stop(self) -> None:
        """No more watching (the request is answered, or a writer watches from now on)."""
        if self.loss is not None:
            if self.loss.callback is self.on_left:
                self.loss.callback = None
            self.loss = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.task is not None:
            self.task.cancel()
            self.task = None


class ConnectionLoss:
    """Told by serve_http's protocol the moment its connection is lost: the request it is serving
    learns that its client left without a timer or a task watching for it."""

    __slots__ = ("callback",)

    def __init__(self) -> None:
        self.callback: Callable[[], None] | None = None

    def fire(self) -> None:
        callback, self.callback = self.callback, None
        if callback is not None:
            callback()


def is_final(message: JSONObject, request_id: RequestId) -> bool:
    """The answer to `request_id` (a response or an error, not a message sent before it)."""
    return "method" not in message and message.get("id") == request_id
