"""Change notifications a server's handlers trigger, delivered in both eras.

Handshake era: `notifications/resources/updated` to connections that `resources/subscribe`d the
uri, `notifications/<kind>/list_changed` to every initialized connection. 2026-07-28: only on
`subscriptions/listen` streams whose filter asked for them, each frame tagged with the listen
request's id under `_meta["io.modelcontextprotocol/subscriptionId"]`, the stream opened by a
`notifications/subscriptions/acknowledged` and ended gracefully by the listen result.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import McpError, ProtocolError
from .jsonrpc import JSONObject, RequestId
from .session import Session, current_request

META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
LIST_KINDS = ("tools", "prompts", "resources")
# A stream whose client stopped reading is ended (it re-listens and refetches: no replay).
MAX_BACKLOG = 1024

log = logging.getLogger("mcpgen.runtime.subscriptions")


def honored_filter(requested: Any, offered: set[str]) -> JSONObject:
    """The part of a listen filter the server will honor; `offered` holds the kinds it serves."""
    wanted: JSONObject = requested if isinstance(requested, dict) else {}
    honored: JSONObject = {}
    for kind in LIST_KINDS:
        if wanted.get(f"{kind}ListChanged") is True and kind in offered:
            honored[f"{kind}ListChanged"] = True
    uris = wanted.get("resourceSubscriptions")
    if "resources" in offered and isinstance(uris, list):
        kept = [u for u in dict.fromkeys(uris) if isinstance(u, str)]
        if kept:
            honored["resourceSubscriptions"] = kept
    return honored


def _wants(honored: JSONObject, method: str, params: JSONObject) -> bool:
    if method == "notifications/resources/updated":
        return params.get("uri") in (honored.get("resourceSubscriptions") or ())
    kind = method.removeprefix("notifications/").removesuffix("/list_changed")
    return honored.get(f"{kind}ListChanged") is True


class ListenStream:
    """One open subscriptions/listen request: its filter and the events waiting to be sent."""

    def __init__(self, honored: JSONObject) -> None:
        self.honored = honored
        # None ends the stream gracefully.
        self.queue: asyncio.Queue[tuple[str, JSONObject] | None] = asyncio.Queue(MAX_BACKLOG + 1)

    def offer(self, method: str, params: JSONObject) -> None:
        if not _wants(self.honored, method, params):
            return
        if self.queue.qsize() >= MAX_BACKLOG:
            log.warning("a listen stream's client is not reading; ending the stream")
            self.end()
            return
        self.queue.put_nowait((method, params))

    def end(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


LegacyTarget = Callable[[str, JSONObject], Awaitable[None]]


class SubscriptionHub:
    """One per Server: every open listen stream and every handshake-era connection."""

    def __init__(self) -> None:
        self._streams: set[ListenStream] = set()
        # Handshake-era connections, weakly: a connection that ends simply drops out.
        self._legacy: weakref.WeakSet[Any] = weakref.WeakSet()

    def add_legacy(self, connection: Any) -> None:
        """`connection.deliver_legacy(method, params)` is called for every event."""
        self._legacy.add(connection)

    async def publish(self, method: str, params: JSONObject) -> None:
        for stream in list(self._streams):
            stream.offer(method, params)
        for connection in list(self._legacy):
            await _outside_request(connection.deliver_legacy(method, params))

    async def serve_listen(self, session: Session, request_id: RequestId, honored: JSONObject) -> JSONObject:
        """Acknowledge, then forward matching events until ended (graceful) or cancelled."""
        tag = {META_SUBSCRIPTION_ID: request_id}
        stream = ListenStream(honored)
        self._streams.add(stream)  # before the ack, so nothing published meanwhile is lost
        try:
            await session.notify("notifications/subscriptions/acknowledged", {"notifications": honored, "_meta": tag})
            while (item := await stream.queue.get()) is not None:
                method, params = item
                await session.notify(method, {**params, "_meta": {**(params.get("_meta") or {}), **tag}})
        finally:
            self._streams.discard(stream)
        return {"_meta": tag}

    def close(self) -> None:
        """End every listen stream gracefully (each answers its request with a result)."""
        for stream in list(self._streams):
            stream.end()


async def _outside_request(send: Awaitable[None]) -> None:
    """Send with no current request: over HTTP the message must not ride whichever request's
    stream happens to be the publisher's (another connection may use the same id)."""
    context = contextvars.copy_context()
    context.run(current_request.set, None)
    with contextlib.suppress(McpError):
        await asyncio.get_running_loop().create_task(_awaited(send), context=context)


async def _awaited(send: Awaitable[None]) -> None:
    await send


# -- the client side ---------------------------------------------------------------------

ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


class ChangeEvent:
    """One notification from a listen stream: `kind` is "tools", "prompts", "resources" (a list
    changed) or "resource" (the resource at `uri` was updated)."""

    __slots__ = ("method", "params", "kind", "uri")

    def __init__(self, method: str, params: JSONObject) -> None:
        self.method = method
        self.params = params
        uri = params.get("uri")
        self.uri: str | None = uri if isinstance(uri, str) else None
        if method == "notifications/resources/updated":
            self.kind = "resource"
        else:
            self.kind = method.removeprefix("notifications/").removesuffix("/list_changed")

    def __repr__(self) -> str:
        return f"ChangeEvent({self.kind!r}, uri={self.uri!r})"


class Subscription:
    """An open subscriptions/listen stream: `async for event in sub` yields ChangeEvents.

    `honored` is the filter the server acknowledged. Iteration ends when the server ends the
    stream gracefully; it raises the error if the stream broke (re-listen and refetch: there is
    no replay). `aclose()` (or leaving `async with`) cancels the listen request.
    """

    def __init__(self, request_id: RequestId, *, collect: bool = True) -> None:
        self.request_id = request_id
        self.honored: JSONObject = {}
        self.acknowledged: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self._collect = collect
        self._queue: asyncio.Queue[ChangeEvent | None] = asyncio.Queue()
        self._task: asyncio.Task[Any] | None = None
        self._error: BaseException | None = None

    def attach(self, task: asyncio.Task[Any]) -> None:
        self._task = task
        task.add_done_callback(self._ended)

    def on_frame(self, method: str, params: JSONObject) -> None:
        if method == ACKNOWLEDGED:
            honored = params.get("notifications")
            self.honored = honored if isinstance(honored, dict) else {}
            if not self.acknowledged.done():
                self.acknowledged.set_result(self.honored)
        elif self._collect:
            self._queue.put_nowait(ChangeEvent(method, params))

    def _ended(self, task: asyncio.Task[Any]) -> None:
        error: BaseException | None = None
        if task.cancelled():
            error = asyncio.CancelledError()
        elif task.exception() is not None:
            error = task.exception()
        self._error = None if isinstance(error, asyncio.CancelledError) else error
        if not self.acknowledged.done():
            self.acknowledged.set_exception(error or ProtocolError("the listen stream ended before it was acknowledged"))
            self.acknowledged.exception()  # retrieved: no "never retrieved" warning
        self._queue.put_nowait(None)

    @property
    def closed(self) -> bool:
        return self._task is not None and self._task.done()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> ChangeEvent:
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # stay ended for every later call
            if self._error is not None:
                raise self._error
            raise StopAsyncIteration
        return item

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

