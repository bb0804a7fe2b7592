"""Stream logs: every SSE stream of a handshake-era session is logged in the store, so that a
client whose stream was cut resumes it (GET with Last-Event-ID) on this worker or any other,
while the request it carried goes on. A request stream's token names the worker serving it, and
that worker keeps a liveness key in the store (refreshed every _ALIVE_EVERY s, gone _ALIVE_TTL s
after its last refresh): a resume whose worker's key is gone fails at once (410, or the followed
stream ends), within about 3 s of a SIGKILL instead of the ~16 s three missed heartbeats take.
(The heartbeats a quiet logged request writes into its log stay: a worker alive but stuck.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from typing import TYPE_CHECKING

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject
from ..store import Store, StoreUnavailable
from ..store.base import stream_key
from .asgi import Receive, Send, plain, sse_event, start_sse, wait_disconnect
from .logs import log
from .streams import DisconnectWatch, RequestStream, next_until

if TYPE_CHECKING:
    from .limits import HttpLimits

# A cut SSE stream of a request keeps being logged for a resume (on any worker) this long at most;
# then the request is cancelled. A resume follows a log for as long.
RESUME_WINDOW = 300.0
# Requests that outlive their client's connection (waiting for a resume) in one worker; past
# this, a disconnect cancels the request as it does outside a session: a client cannot keep
# opening and dropping streams to pile up running handlers.
MAX_DETACHED_REQUESTS = 100
# A stream's log outlives its last event this long when sessions never expire.
_LOG_TTL = 3600.0
# While a logged request is quiet, its worker writes a heartbeat into the log this often; a resume
# that sees none for three periods takes the worker for dead, marks the log abandoned and ends.
_HEARTBEAT = 5.0
_HEARTBEAT_MARK = b"."
_ABANDONED_MARK = b"!"
# A worker that serves logged request streams refreshes its liveness key this often; the key
# expires this long after the last refresh (so a dead worker is known within it).
_ALIVE_EVERY = 0.5
_ALIVE_TTL = 2.0
# A request stream's token: "p", the serving worker's tag (this many characters), then random.
_TAG_CHARS = 8
# What a resume of a dead worker's request is answered (the request is lost with the worker).
OWNER_GONE = "The worker serving this request stopped: the request is lost (call it again)"


def alive_key(tag: str) -> str:
    return f"alive:{tag}"


class StreamLogs:
    """One worker's side of the stream logs: writing them, following them for a resume, and the
    count of requests running on after their client left (`detached`)."""

    def __init__(self, store: Store, limits: HttpLimits) -> None:
        self.store = store
        self.limits = limits
        self.detached = 0
        # (pid, tag): a forked worker gets a tag of its own; the task refreshing its liveness key.
        self._tag: tuple[int, str] | None = None
        self._beating: asyncio.Task[None] | None = None

    def tag(self) -> str:
        """This worker process's tag (what its request streams' tokens start with)."""
        if self._tag is None or self._tag[0] != os.getpid():
            self._tag = (os.getpid(), secrets.token_urlsafe(6)[:_TAG_CHARS])
            self._beating = None
        return self._tag[1]

    async def new_token(self) -> str:
        """A token for a request stream served here; this worker's liveness key is in the store
        (and kept fresh) before the first event of it is logged."""
        tag = self.tag()
        if self._beating is None or self._beating.done():
            await self._beat(tag)
            self._beating = asyncio.get_running_loop().create_task(self._keep_alive(tag))
        return "p" + tag + secrets.token_urlsafe(12)

    async def _beat(self, tag: str) -> None:
        try:
            await self.store.append_event(alive_key(tag), _HEARTBEAT_MARK, _ALIVE_TTL)
        except StoreUnavailable as exc:
            log.warning("%s", exc)

    async def _keep_alive(self, tag: str) -> None:
        while True:
            await asyncio.sleep(_ALIVE_EVERY)
            await self._beat(tag)

    async def owner_alive(self, token: str) -> bool:
        """Is the worker that serves the request stream `token` alive? (True when the store
        cannot say: only a key known to be gone means a dead worker.)"""
        try:
            return await self.store.has_stream(alive_key(token[1 : 1 + _TAG_CHARS]))
        except StoreUnavailable:
            return True

    def ttl(self) -> float:
        idle = self.limits.session_idle_timeout
        return max(idle, 60.0) if idle > 0 else _LOG_TTL

    async def log_event(self, key: str, token: str, data: bytes) -> str | None:
        """Log one event of the stream `token`: its event id (`<token>.<entry>`), or None when the
        store failed (logged; the stream goes on unlogged)."""
        try:
            return f"{token}.{await self.store.append_event(key, data, self.ttl())}"
        except StoreUnavailable as exc:
            log.warning("%s", exc)
            return None

    async def next_logged(
        self, watch: DisconnectWatch, stream: RequestStream, log_key: str, gone: bool, deadline: float
    ) -> tuple[JSONObject | None, bool]:
        """A logged request's next message (and whether its client left: it keeps being logged
        for a resume); a heartbeat goes into the log every _HEARTBEAT seconds without one."""
        while True:
            waiting = asyncio.ensure_future(next_until(stream, deadline) if gone else watch.next())
            done, _ = await asyncio.wait({waiting}, timeout=_HEARTBEAT)
            if not done:
                waiting.cancel()  # nothing is taken from the stream until next() returns
                with contextlib.suppress(asyncio.CancelledError):
                    await waiting
                try:
                    await self.store.append_event(log_key, _HEARTBEAT_MARK, self.ttl())
                except StoreUnavailable as exc:
                    log.warning("%s", exc)
                continue
            message = waiting.result()
            if message is None and not gone:
                if self.detached >= MAX_DETACHED_REQUESTS:
                    return None, False  # too many outlive their clients already: cancelled
                self.detached += 1
                stream.detached = True
                gone = True
                continue
            return message, gone

    def release(self) -> None:
        """The request of a detached stream is over: it gives its place back."""
        self.detached -= 1

    async def resume(self, session_id: str, resumed: tuple[str, str], receive: Receive, send: Send) -> None:
        """A request's cut stream, from its log: what the client missed, then what comes, up to
        the request's answer (the worker serving it may be another one)."""
        key = stream_key(session_id, resumed[0])
        if not await self.owner_alive(resumed[0]) and not await self._unsent(key, resumed[1]):
            await plain(send, 410, OWNER_GONE)
            return
        await start_sse(send, {"mcp-session-id": session_id})
        disconnect = asyncio.ensure_future(wait_disconnect(receive))
        try:
            await self.replay(key, resumed[0], resumed[1], send, disconnect, follow=True)
        finally:
            disconnect.cancel()
        with contextlib.suppress(Exception):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def replay(
        self, key: str, token: str, after: str, send: Send, disconnect: asyncio.Future[None], *, follow: bool
    ) -> None:
        """Send a log's events after `after`; with `follow`, wait for more until a final answer
        (a message with no method), the client leaves, or the resume window ends."""
        deadline = time.monotonic() + RESUME_WINDOW
        heard = time.monotonic()
        while not disconnect.done() and time.monotonic() < deadline:
            events = await self.store.read_events(key, after, 1.0 if follow else 0)
            if events:
                heard = time.monotonic()
            elif follow and (time.monotonic() - heard > 3 * _HEARTBEAT or not await self.owner_alive(token)):
                # The worker serving the request stopped (it died): later resumes end at once.
                with contextlib.suppress(StoreUnavailable):
                    await self.store.append_event(key, _ABANDONED_MARK, self.ttl())
                return
            for entry, payload in events:
                after = entry
                if payload == _HEARTBEAT_MARK:
                    continue
                if payload == _ABANDONED_MARK:
                    return
                try:
                    message = jsonrpc.decode(payload)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    continue  # not written by a worker: never sent
                if not isinstance(message, dict):
                    continue
                chunk = sse_event(f"{token}.{entry}", payload)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if follow and "method" not in message:
                    return
            if not events and not follow:
                return

    async def _unsent(self, key: str, after: str) -> bool:
        """Does the log hold a message after `after` (what a dead worker sent before dying)?"""
        try:
            events = await self.store.read_events(key, after, 0)
        except StoreUnavailable:
            return True
        return any(payload not in (_HEARTBEAT_MARK, _ABANDONED_MARK) for _, payload in events)
