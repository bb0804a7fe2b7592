"""Change notifications on the client: each open `subscriptions/listen` stream (2026-07-28) as a
Subscription of ChangeEvents, and a session's Listens (its open streams, the stream that carries
`subscribe_resource()`'s uris, and the queues of resource updates in either era)."""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import TYPE_CHECKING, Any

from ..core.errors import ProtocolError, RequestTimeout
from ..core.jsonrpc import JSONObject, RequestId, is_object
from ..core.protocol import ERA_MODERN, META_SUBSCRIPTION_ID, SUBSCRIPTION_ACKNOWLEDGED
from .negotiation import stateless_meta

if TYPE_CHECKING:
    from .session import ClientSession


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

    def __init__(self, request_id: RequestId, *, collect: bool = True, wake: asyncio.Event | None = None) -> None:
        self.request_id = request_id
        # Set by every frame after the acknowledgement (a task handle's wait() wakes on it).
        self.wake = wake
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
        if method == SUBSCRIPTION_ACKNOWLEDGED:
            honored = params.get("notifications")
            self.honored = honored if is_object(honored) else {}
            if not self.acknowledged.done():
                self.acknowledged.set_result(self.honored)
        else:
            if self.wake is not None:
                self.wake.set()
            if self._collect:
                self._queue.put_nowait(ChangeEvent(method, params))

    def _ended(self, task: asyncio.Task[Any]) -> None:
        error: BaseException | None = None
        if task.cancelled():
            error = asyncio.CancelledError()
        elif task.exception() is not None:
            error = task.exception()
        self._error = None if isinstance(error, asyncio.CancelledError) else error
        if not self.acknowledged.done():
            self.acknowledged.set_exception(
                error or ProtocolError("the listen stream ended before it was acknowledged")
            )
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


class Listens:
    """What one ClientSession listens to: its subscriptions/listen streams by request id, the
    one that carries subscribe_resource()'s uris (re-opened with every uri), and one queue per
    open resource_updates() iterator, which notifications/resources/updated fans out to."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client
        self._streams: dict[RequestId, Subscription] = {}
        self._resource_uris: dict[str, None] = {}
        self._resource_stream: Subscription | None = None
        self._update_queues: set[asyncio.Queue[str]] = set()

    async def open(
        self, wanted: JSONObject, *, collect: bool, meta: JSONObject | None = None, wake: asyncio.Event | None = None
    ) -> Subscription:
        """A listen stream for `wanted`, once the server acknowledged it (`meta`: the request's
        `_meta`, when it must declare more than the session does)."""
        client = self.client
        if client.era != ERA_MODERN:
            raise ProtocolError(
                f"subscriptions/listen is a 2026-07-28 method; this server speaks {client.protocol_version}: "
                "use subscribe_resource() and on_list_changed"
            )
        session = client.session
        request_id = session.next_id()
        subscription = Subscription(request_id, collect=collect, wake=wake)
        self._streams[request_id] = subscription
        params: JSONObject = {"notifications": wanted, "_meta": meta or stateless_meta(client)}
        task = asyncio.get_running_loop().create_task(
            session.request("subscriptions/listen", params, timeout=math.inf, request_id=request_id)
        )
        task.add_done_callback(lambda _t: self._streams.pop(request_id, None))
        subscription.attach(task)
        try:
            await asyncio.wait_for(asyncio.shield(subscription.acknowledged), session.timeout)
        except asyncio.TimeoutError:
            await subscription.aclose()
            raise RequestTimeout("the server did not acknowledge subscriptions/listen") from None
        except BaseException:
            await subscription.aclose()
            raise
        return subscription

    async def add_resource(self, uri: str) -> None:
        """Updates of `uri` from now on (2026-07-28), or ProtocolError if the server offers none."""
        self._resource_uris[uri] = None
        try:
            honored = await self._relisten_resources()
        except BaseException:
            self._resource_uris.pop(uri, None)
            raise
        if uri not in honored:
            self._resource_uris.pop(uri, None)
            await self._relisten_resources()
            raise ProtocolError(f"the server does not offer updates of {uri}")

    async def remove_resource(self, uri: str) -> None:
        if self._resource_uris.pop(uri, 0) is None:
            await self._relisten_resources()

    async def _relisten_resources(self) -> list[str]:
        """Open a stream for the current uris before closing the old one, so nothing is missed."""
        old = self._resource_stream
        self._resource_stream = None
        if self._resource_uris:
            wanted: JSONObject = {"resourceSubscriptions": list(self._resource_uris)}
            self._resource_stream = await self.open(wanted, collect=False)
        if old is not None:
            await old.aclose()
        honored = self._resource_stream.honored.get("resourceSubscriptions") if self._resource_stream else None
        return [u for u in honored or () if isinstance(u, str)]

    def updates_queue(self) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue()
        self._update_queues.add(queue)
        return queue

    def discard(self, queue: asyncio.Queue[str]) -> None:
        self._update_queues.discard(queue)

    def route(self, method: str, params: JSONObject) -> None:
        """A notification tagged with a listen request's id goes to that stream."""
        meta = params.get("_meta")
        tag = meta.get(META_SUBSCRIPTION_ID) if is_object(meta) else None
        subscription = self._streams.get(tag) if isinstance(tag, (int, str)) else None
        if subscription is not None:
            subscription.on_frame(method, params)

    def resource_updated(self, uri: str) -> None:
        for queue in list(self._update_queues):
            queue.put_nowait(uri)
