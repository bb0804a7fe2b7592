"""What the workers sharing a store tell each other: a client's answer (or cancellation) that
reached a worker other than the one waiting for it, a session ended on one of them, and change
notifications raised on one for the streams every other holds."""

from __future__ import annotations

import contextlib
import json

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject, RequestId, is_object
from ...core.protocol import LIST_KINDS
from ..server import Server
from ..store import StoreUnavailable
from ..store.base import CHANNEL_NOTIFY, CHANNEL_ROUTE, MAX_RECORD_BYTES
from ..subscriptions import TASK_STATUS
from .logs import log
from .sessions import SessionTable


class WorkerRouter:
    """Publishes to the other workers through the store and acts on what they publish (with an
    in-memory store there are none: answers no request here waits for are dropped)."""

    def __init__(self, server: Server, sessions: SessionTable) -> None:
        self.server = server
        self.sessions = sessions
        self.store = sessions.store
        self.store.subscribe(CHANNEL_ROUTE, self._on_route)
        if self.store.shared:
            self.store.subscribe(CHANNEL_NOTIFY, self._on_notify)
            server.subscriptions.relay = self._relay

    async def route(self, session_id: str, message: JSONObject) -> None:
        """A session's message for the worker whose request it concerns."""
        if self.store.shared:
            await self.store.publish(CHANNEL_ROUTE, _pack({"session": session_id, "message": message}))
        else:
            log.debug("dropping an answer no request waits for: %.200r", message)

    async def announce_end(self, session_id: str) -> None:
        """The client ended a session: the other workers drop their copies (and close its GET stream)."""
        if self.store.shared:
            await self.store.publish(CHANNEL_ROUTE, _pack({"session": session_id, "end": True}))

    async def _on_route(self, data: bytes) -> None:
        """A client's answer that reached another worker, or a session ended there."""
        item = _unpack(data)
        session_id = item.get("session") if item else None
        if item is None or not isinstance(session_id, str):
            return
        if item.get("end") is True:
            self.sessions.end(session_id, "the client ended the session")
            return
        legacy = self.sessions.get(session_id)
        message = item.get("message")
        if legacy is None or not is_object(message):
            return
        kind = jsonrpc.classify(message)
        if kind in ("response", "error") and legacy.connection.session.awaits(message.get("id")):
            legacy.connection.session.dispatch(message)
        elif kind == "notification" and cancelled_id(message) in legacy.transport.streams:
            legacy.connection.session.dispatch(message)

    async def _relay(self, method: str, params: JSONObject) -> None:
        """A change event raised here: to every worker through the store (a lost one is logged)."""
        try:
            await self.sessions.start()
            await self.store.publish(CHANNEL_NOTIFY, _pack({"method": method, "params": params}))
        except StoreUnavailable as exc:
            log.warning("a change notification was not delivered: %s", exc)

    async def _on_notify(self, data: bytes) -> None:
        item = _unpack(data)
        method = item.get("method") if item else None
        params = item.get("params") if item else None
        if not isinstance(method, str) or not is_object(params) or not _is_change_event(method, params):
            return
        if method == "notifications/resources/updated":
            # Subscriptions may have been made through another worker: read them again for the
            # sessions whose GET stream this worker holds.
            for session_id, legacy in list(self.sessions.items()):
                if legacy.transport.standalone is None:
                    continue
                with contextlib.suppress(StoreUnavailable):
                    record = await self.store.touch_session(session_id, self.sessions.limits.session_idle_timeout)
                    if record is not None:
                        legacy.connection.subscribed = set(record.subscribed)
        await self.server.subscriptions.deliver(method, params)


def cancelled_id(message: JSONObject) -> RequestId | None:
    """The request a notifications/cancelled names (None for any other message)."""
    if message.get("method") != "notifications/cancelled" or "id" in message:
        return None
    params = message.get("params")
    request_id = params.get("requestId") if is_object(params) else None
    return request_id if jsonrpc.is_valid_id(request_id) else None


def _is_change_event(method: str, params: JSONObject) -> bool:
    if method == "notifications/resources/updated":
        return isinstance(params.get("uri"), str)
    if method == TASK_STATUS:  # only a stream that named this task id hears it (subscriptions.py)
        return isinstance(params.get("taskId"), str) and isinstance(params.get("status"), str)
    kind = method.removeprefix("notifications/").removesuffix("/list_changed")
    return method == f"notifications/{kind}/list_changed" and kind in LIST_KINDS


def _pack(item: JSONObject) -> bytes:
    return jsonrpc.encode(item)


def _unpack(data: bytes) -> JSONObject | None:
    """A message another worker published, if it is a JSON object of a sane size."""
    if len(data) > MAX_RECORD_BYTES * 64:
        return None
    try:
        item = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return item if is_object(item) else None
