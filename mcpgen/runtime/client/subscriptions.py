"""The client side of `subscriptions/listen` (2026-07-28): an open stream of ChangeEvents."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..core.errors import ProtocolError
from ..core.jsonrpc import JSONObject, RequestId
from ..core.protocol import SUBSCRIPTION_ACKNOWLEDGED


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
        if method == SUBSCRIPTION_ACKNOWLEDGED:
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
