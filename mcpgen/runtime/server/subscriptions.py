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

from ..core.errors import McpError
from ..core.jsonrpc import JSONObject, RequestId, is_array, is_object
from ..core.protocol import LIST_KINDS, META_SUBSCRIPTION_ID
from ..core.session import Session, current_request

# A stream whose client stopped reading is ended (it re-listens and refetches: no replay).
MAX_BACKLOG = 1024
# The Tasks extension's status notifications (tasks.py): only on listen streams that named the
# task (the filter agreed only the caller's own tasks), never to handshake-era connections.
TASK_STATUS = "notifications/tasks"

log = logging.getLogger("mcpgen.runtime.subscriptions")


def honored_filter(requested: Any, offered: set[str]) -> JSONObject:
    """The part of a listen filter the server will honor; `offered` holds the kinds it serves."""
    wanted: JSONObject = requested if is_object(requested) else {}
    honored: JSONObject = {}
    for kind in LIST_KINDS:
        if wanted.get(f"{kind}ListChanged") is True and kind in offered:
            honored[f"{kind}ListChanged"] = True
    uris = wanted.get("resourceSubscriptions")
    if "resources" in offered and is_array(uris):
        kept = [u for u in dict.fromkeys(uris) if isinstance(u, str)]
        if kept:
            honored["resourceSubscriptions"] = kept
    return honored


def _wants(honored: JSONObject, method: str, params: JSONObject) -> bool:
    if method == TASK_STATUS:
        return params.get("taskId") in (honored.get("taskIds") or ())
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
        # A task's status notification not sent yet: a newer one replaces it (one per task).
        self.task_status: dict[str, JSONObject] = {}

    def offer(self, method: str, params: JSONObject) -> None:
        if not _wants(self.honored, method, params):
            return
        if method == TASK_STATUS:
            task_id = str(params["taskId"])
            queued = task_id in self.task_status
            self.task_status[task_id] = params
            if queued:
                return
            params = {"taskId": task_id}  # the latest status is read when it is sent
        if self.queue.qsize() >= MAX_BACKLOG:
            log.warning("a listen stream's client is not reading; ending the stream")
            self.end()
            return
        self.queue.put_nowait((method, params))

    def end(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


class SubscriptionHub:
    """One per Server: every open listen stream and every handshake-era connection."""

    def __init__(self) -> None:
        self._streams: set[ListenStream] = set()
        # Handshake-era connections, weakly: a connection that ends simply drops out.
        self._legacy: weakref.WeakSet[Any] = weakref.WeakSet()
        # Set by an HTTP server sharing a store with other workers: an event goes to the store,
        # which hands it to every worker's `deliver` (this one's included).
        self.relay: Callable[[str, JSONObject], Awaitable[None]] | None = None

    def add_legacy(self, connection: Any) -> None:
        """`connection.deliver_legacy(method, params)` is called for every event."""
        self._legacy.add(connection)

    async def publish(self, method: str, params: JSONObject) -> None:
        if self.relay is not None:
            await self.relay(method, params)
            return
        await self.deliver(method, params)

    async def deliver(self, method: str, params: JSONObject) -> None:
        """Hand an event to this process's listen streams and handshake-era connections."""
        for stream in list(self._streams):
            stream.offer(method, params)
        if method == TASK_STATUS:
            return
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
                if method == TASK_STATUS:
                    params = stream.task_status.pop(str(params["taskId"]), params)
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
        # Task copies the context it is created in; create_task(context=) is 3.11+ only.
        await context.run(asyncio.get_running_loop().create_task, _awaited(send))


async def _awaited(send: Awaitable[None]) -> None:
    await send
