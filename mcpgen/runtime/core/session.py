"""A JSON-RPC peer over one transport: correlation, timeouts, cancellation, progress.

Symmetric on purpose: the client and the server both send and answer requests
(a handshake-era server asks the client for sampling, roots, elicitation, ping).
Incoming requests each run in their own task, so a slow handler never blocks the
reader, pings or cancellations. On Python 3.12 and later that task starts eagerly: a handler
that answers without waiting answers within the read, without a loop turn of its own. A
transport that reads each request in a task of its own (HTTP) answers it there instead
(`answer_here`), cancellable all the same.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import itertools
import logging
import math
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from . import jsonrpc
from .callbacks import ProgressCallback as ProgressCallback
from .deadlines import Deadlines
from .errors import ConnectionClosed, McpError, RequestTimeout, RpcError
from .jsonrpc import JSONObject, RequestId, is_array, is_object
from .transport import Transport

# (method, params, request id) -> result; raise RpcError to answer with an error.
RequestHandler = Callable[[str, JSONObject, RequestId], Awaitable[Any]]
NotificationHandler = Callable[[str, JSONObject], "Awaitable[None] | None"]
# Whole decoded message (list for a batch) -> handled? Lets the owner intercept batches.
RawHandler = Callable[[Any], "Awaitable[bool]"]

log = logging.getLogger("mcpgen.runtime.session")

# Lines that are not JSON answered (on_invalid) at once at most; more are logged and skipped.
MAX_INVALID_ANSWERS = 64

# The id of the incoming request whose handler is running in this task (None elsewhere).
# Transports that give each request its own stream (HTTP) route related messages by it.
current_request: contextvars.ContextVar[RequestId | None] = contextvars.ContextVar(
    "mcpgen_current_request", default=None
)


class _Pending:
    __slots__ = (
        "future",
        "method",
        "progress",
        "deadline",
        "timeout",
        "hard_deadline",
        "token",
        "sender",
        "interrupts",
    )

    def __init__(self, future: asyncio.Future[Any], method: str) -> None:
        self.future = future
        self.method = method
        self.progress: ProgressCallback | None = None
        self.deadline: float | None = None  # loop time it times out at (None: never)
        self.timeout: float | None = None
        self.hard_deadline: float | None = None
        self.token: RequestId | None = None
        # The caller's task while it is inside an interruptible send (see Session.request), and
        # how often the session cancelled it there (a timeout, the session closing).
        self.sender: asyncio.Task[Any] | None = None
        self.interrupts = 0

    def interrupt(self) -> None:
        """Stop the caller's send: its future already holds the outcome (a timeout, a close)."""
        sender = self.sender
        if sender is not None and sender is not asyncio.current_task():
            self.interrupts += 1
            sender.cancel()


class _InTask:
    """A request answered in its caller's task (`Session.answer_here`): what cancels it, and how
    often, so that the caller's task forgets exactly those cancellations and lives on."""

    __slots__ = ("task", "cancels")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.cancels = 0

    def cancel(self) -> None:
        self.cancels += 1
        self.task.cancel()


class Session:
    """Sends requests and notifications, answers the peer's, routes responses."""

    def __init__(
        self,
        transport: Transport,
        *,
        on_request: RequestHandler | None = None,
        on_notification: NotificationHandler | None = None,
        on_invalid: Callable[[bytes], Awaitable[None]] | None = None,
        on_batch: RawHandler | None = None,
        timeout: float | None = 60.0,
        max_timeout: float | None = None,
        reset_timeout_on_progress: bool = True,
        answer_invalid: bool = False,
        drain_timeout: float = 0.0,
        max_in_flight: int | None = None,
    ) -> None:
        self.transport = transport
        self.on_request = on_request
        self.on_notification = on_notification
        self.on_invalid = on_invalid
        self.on_batch = on_batch
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.reset_timeout_on_progress = reset_timeout_on_progress
        # A server answers every message that is not JSON-RPC (42, "x", null) with -32600.
        self.answer_invalid = answer_invalid
        # At the end of the input, requests already read still get their answers (a server:
        # `printf ... | server`), for at most this long; then they are cancelled.
        self.drain_timeout = drain_timeout
        # Requests from the peer handled at once (None: no bound). At the bound the transport
        # stops reading (back-pressure: the peer's writes block), and a request already read
        # beyond it is answered at once with SERVER_BUSY, so memory stays bounded however many
        # the peer sends without reading the answers.
        self.max_in_flight = max_in_flight
        self._reading_held = False
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, _Pending] = {}
        self._deadlines: Deadlines[RequestId] = Deadlines(self._deadline_of, self._expire, lambda: len(self._pending))
        self._by_token: dict[RequestId, _Pending] = {}
        self._handling: dict[RequestId, asyncio.Task[None] | _InTask] = {}
        self._reader: asyncio.Task[None] | None = None
        # The loop the session reads in, once started: asyncio.get_running_loop() costs about as
        # much as making the request's future, on every request.
        self._loop: asyncio.AbstractEventLoop | None = None
        # A transport whose send may be cancelled at any wait without breaking its stream (the
        # message is framed whole before the first wait: stdio, HTTP) lets a timeout or a close
        # interrupt a send that blocks (a peer that stops reading), or an HTTP exchange that
        # answers the request within the send. Others are waited for as before.
        self._interruptible = bool(getattr(transport, "interruptible_send", False))
        self._closed: McpError | None = None
        self._junk_lines = 0
        self._invalid_answers = 0  # on_invalid calls running
        self.closed_event = asyncio.Event()
        bind = getattr(transport, "bind_session", None)
        if bind is not None:
            bind(self)  # transports that can fail one request (HTTP) report it here

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._reader = loop.create_task(self._read_loop())

    @property
    def in_flight(self) -> int:
        """Requests sent and not answered yet, plus requests from the peer being answered."""
        return len(self._pending) + len(self._handling)

    @property
    def is_closed(self) -> bool:
        return self._closed is not None

    async def wait_closed(self) -> None:
        await self.closed_event.wait()

    async def close(self, reason: str = "the session was closed") -> None:
        self._fail_all(ConnectionClosed(reason))
        self._cancel_all_handling()
        await self.transport.close()
        if self._reader is not None and self._reader is not asyncio.current_task():
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass

    def _fail_all(self, error: McpError) -> None:
        if self._closed is None:
            self._closed = error
        pending, self._pending = self._pending, {}
        self._by_token.clear()
        self._deadlines.clear()
        for entry in pending.values():
            if not entry.future.done():
                entry.future.set_exception(error)
            entry.interrupt()
        self.closed_event.set()

    # -- sending -------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def start_ids_at(self, first: int) -> None:
        """Number this side's requests from `first`: several processes serving one HTTP session
        each pick their own range, so a client's answer names the process that waits for it."""
        self._ids = itertools.count(first)

    def awaits(self, request_id: RequestId | None) -> bool:
        """Whether a request of ours with this id still waits for its answer."""
        return request_id in self._pending

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        if self._closed is not None:
            raise self._closed
        await self.transport.send(jsonrpc.notification(method, params))

    async def request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
        cancellable: bool = True,
        request_id: RequestId | None = None,
    ) -> Any:
        """Send a request and wait for its result. Raises RpcError, RequestTimeout, ConnectionClosed.

        timeout None means the session default; math.inf means wait for ever (still capped
        by max_timeout, the hard maximum). request_id: one from next_id(), when the caller must
        know it before the answer (subscriptions/listen streams are tagged with it).
        """
        if self._closed is not None:
            raise ConnectionClosed(str(self._closed))
        loop = self._loop or asyncio.get_running_loop()
        if request_id is None:
            request_id = next(self._ids)
        entry = _Pending(loop.create_future(), method)
        if progress is not None:
            # The request id doubles as the progress token: unique among active requests.
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta["progressToken"] = request_id
            params["_meta"] = meta
            entry.progress = progress
            entry.token = request_id
            self._by_token[request_id] = entry
        effective = self.timeout if timeout is None else timeout
        if effective is not None and math.isinf(effective):
            effective = None
        if self.max_timeout is not None:
            entry.hard_deadline = loop.time() + self.max_timeout
            effective = self.max_timeout if effective is None else min(effective, self.max_timeout)
        entry.timeout = effective
        self._pending[request_id] = entry
        if effective is not None:
            entry.deadline = loop.time() + effective
            self._deadlines.add(request_id, entry.deadline)
        message = jsonrpc.request(request_id, method, params)
        try:
            if self._interruptible:
                # The deadline and a close interrupt the send too (Pending.interrupt): a timeout
                # is never exceeded because the peer stopped reading, and an HTTP exchange that
                # answers in this task (no task of its own per call) ends at the deadline.
                entry.sender = asyncio.current_task(loop)
                try:
                    await self.transport.send(message)
                except asyncio.CancelledError:
                    if not _forgive(entry):
                        raise
                finally:
                    entry.sender = None
                if entry.interrupts:
                    _forgive(entry)  # (the send swallowed the cancellation; forget it all the same)
            else:
                await self.transport.send(message)
            return await entry.future
        except asyncio.CancelledError:
            if cancellable and request_id in self._pending:
                self._send_cancel(request_id, "the caller cancelled the request")
            raise
        finally:
            self._forget(request_id)

    def _forget(self, request_id: RequestId) -> None:
        entry = self._pending.pop(request_id, None)
        if entry is None:
            return
        if entry.token is not None:
            self._by_token.pop(entry.token, None)

    def fail_request(self, request_id: RequestId, error: McpError) -> None:
        """Fail one outstanding request with a local error (its HTTP exchange broke)."""
        entry = self._pending.get(request_id)
        if entry is not None and not entry.future.done():
            entry.future.set_exception(error)
        self._forget(request_id)

    def _deadline_of(self, request_id: RequestId) -> float | None:
        entry = self._pending.get(request_id)
        return entry.deadline if entry is not None else None

    def _expire(self, request_id: RequestId) -> None:
        entry = self._pending.get(request_id)
        if entry is None or entry.future.done():
            return
        entry.future.set_exception(RequestTimeout(f"{entry.method} got no response within {entry.timeout:g}s"))
        self._forget(request_id)
        entry.interrupt()
        self._send_cancel(request_id, "request timed out")

    def _send_cancel(self, request_id: RequestId, reason: str) -> None:
        if self._closed is not None:
            return
        message = jsonrpc.notification("notifications/cancelled", {"requestId": request_id, "reason": reason})
        task = asyncio.get_running_loop().create_task(self._send_quietly(message))
        task.add_done_callback(_consume)

    async def _send_quietly(self, message: JSONObject) -> None:
        try:
            await self.transport.send(message)
        except McpError:
            pass

    # -- receiving -----------------------------------------------------------------

    async def _read_loop(self) -> None:
        reason = "the connection closed"
        try:
            listen = getattr(self.transport, "listen", None)
            if listen is not None:
                # The transport hands over each message as its bytes arrive (stdio).
                await listen(self.receive_line)
            else:
                while (line := await self.transport.receive()) is not None:
                    self.receive_line(line)
            reason = self.transport.describe_close()
            await self._drain(ConnectionClosed(reason))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the transport broke: fail everything, never hang
            reason = f"the connection failed: {exc}"
            log.debug("read loop failed", exc_info=True)
        finally:
            self._fail_all(ConnectionClosed(reason))
            self._cancel_all_handling()

    def receive_line(self, line: bytes) -> None:
        """One raw message from the peer: decoded and routed, or reported as not JSON."""
        try:
            message = jsonrpc.decode(line)
        except (ValueError, RecursionError):  # nested too deep for the parser: that message only
            if self.on_invalid is not None and self._invalid_answers < MAX_INVALID_ANSWERS:
                self._invalid_answers += 1
                _spawn(self._answer_invalid(self.on_invalid, line))
            else:  # (a flood of junk lines in one read costs a bounded number of tasks)
                self._log_junk(line)
            return
        self.dispatch(message)

    async def _answer_invalid(self, on_invalid: Callable[[bytes], Awaitable[None]], line: bytes) -> None:
        try:
            await on_invalid(line)
        finally:
            self._invalid_answers -= 1

    async def _drain(self, error: McpError) -> None:
        """Input ended: let the handlers of requests already read finish (bounded) and answer."""
        if self.drain_timeout <= 0 or not self._handling:
            return
        # Nothing more will arrive: our own requests (to the peer) can never be answered.
        pending, self._pending = self._pending, {}
        self._by_token.clear()
        self._deadlines.clear()
        for entry in pending.values():
            if not entry.future.done():
                entry.future.set_exception(error)
        # (Requests answered in their callers' tasks have no task of their own to wait for.)
        tasks = {task for task in self._handling.values() if isinstance(task, asyncio.Task)}
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=self.drain_timeout)
        if late:
            log.warning(
                "input closed: %d request(s) still running after %gs are cancelled", len(late), self.drain_timeout
            )

    def _log_junk(self, line: bytes) -> None:
        # Banners on stdout are common; say so clearly a few times, then quietly.
        self._junk_lines += 1
        level = logging.WARNING if self._junk_lines <= 5 else logging.DEBUG
        text = line[:300].decode("utf-8", "replace")
        log.log(level, "skipping a non-JSON line from the peer: %s", text)
        if self._junk_lines == 5:
            log.warning("further non-JSON lines from the peer are logged at DEBUG level")

    def dispatch(self, message: Any) -> None:
        """Route one decoded message (also used by transports that deliver objects)."""
        if is_array(message):
            if self.on_batch is not None:
                _spawn(self.on_batch(message))
            else:
                _spawn(
                    self._send_quietly(
                        jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Batches are not supported")
                    )
                )
            return
        kind = jsonrpc.classify(message)
        if kind == "response" or kind == "error":
            self._on_response(message, kind)
        elif kind == "notification":
            self._on_notification(message)
        elif kind == "request":
            if self.max_in_flight is not None and len(self._handling) >= self.max_in_flight:
                self._refuse_busy(message["id"])
                return
            # _answer forgets its task when it ends (a done callback would cost a loop turn).
            if sys.version_info >= (3, 12):
                # Eager: runs at once up to its first wait, as the current task (its own context,
                # cancellable as usual); an answer that never waits costs no loop turn of its own.
                task = asyncio.Task(self._answer(message), loop=asyncio.get_running_loop(), eager_start=True)
                if task.done():
                    return
            else:
                task = asyncio.get_running_loop().create_task(self._answer(message))
            self._handling[message["id"]] = task
            if self.max_in_flight is not None and len(self._handling) >= self.max_in_flight:
                self._hold_reading()
        else:
            log.warning("ignoring an invalid JSON-RPC message: %.200r", message)
            if self.answer_invalid and (not is_object(message) or "method" in message):
                # Not a request object at all (42, "x", null, {"method": 7}): -32600, id null unless usable.
                raw_id = message.get("id") if is_object(message) else None
                rid = raw_id if jsonrpc.is_valid_id(raw_id) else None
                _spawn(self._send_quietly(jsonrpc.error_response(rid, jsonrpc.INVALID_REQUEST, "Invalid request")))
            elif is_object(message) and "method" in message and "id" in message:
                # A broken request still gets an answer; its id only if that id is usable.
                rid = message["id"] if jsonrpc.is_valid_id(message["id"]) else None
                _spawn(self._send_quietly(jsonrpc.error_response(rid, jsonrpc.INVALID_REQUEST, "Invalid request")))

    def _refuse_busy(self, request_id: RequestId) -> None:
        # Written without a task of its own when stdout takes it at once; at most what one read
        # holds beyond the bound ever waits (reading is held from the bound on).
        _spawn(
            self._send_quietly(
                jsonrpc.error_response(
                    request_id, jsonrpc.SERVER_BUSY, f"Server busy: {self.max_in_flight} requests in flight"
                )
            )
        )

    def _hold_reading(self) -> None:
        pause = getattr(self.transport, "pause_reading", None)
        if pause is not None and not self._reading_held:
            self._reading_held = True
            pause()

    def _release_reading(self) -> None:
        if self.max_in_flight is not None and len(self._handling) < self.max_in_flight:
            self._reading_held = False
            resume = getattr(self.transport, "resume_reading", None)
            if resume is not None:
                resume()

    def cancel_incoming(self, request_id: RequestId) -> None:
        """Stop the handler of a request the peer no longer waits for (HTTP disconnect)."""
        task = self._handling.get(request_id)
        if isinstance(task, _InTask):
            task.cancel()  # its caller forgets it when the handler has stopped
        elif task is not None:
            task.cancel()
            # A task cancelled before it started never runs _answer's cleanup: forget it when done.
            task.add_done_callback(functools.partial(self._done_handling, request_id))

    def _cancel_all_handling(self) -> None:
        for request_id in list(self._handling):
            self.cancel_incoming(request_id)

    def _done_handling(self, request_id: RequestId, task: asyncio.Task[None] | _InTask) -> None:
        if self._handling.get(request_id) is task:
            del self._handling[request_id]
            if self._reading_held:
                self._release_reading()

    def _on_response(self, message: JSONObject, kind: str) -> None:
        entry = self._pending.get(message["id"])
        if entry is None:
            log.debug("ignoring a late or unknown response id %r", message.get("id"))
            return
        self._forget(message["id"])
        if entry.future.done():
            return
        if kind == "response":
            entry.future.set_result(message["result"])
        else:
            error = message["error"]
            code = error.get("code")
            entry.future.set_exception(
                RpcError(
                    code if isinstance(code, int) else jsonrpc.INTERNAL_ERROR,
                    str(error.get("message", "")),
                    error.get("data"),
                )
            )

    def _on_notification(self, message: JSONObject) -> None:
        method = message["method"]
        params = message.get("params")
        if not is_object(params):
            params = {}
        if method == "notifications/progress":
            self._on_progress(params)
            return
        if method == "notifications/cancelled":
            request_id = params.get("requestId")
            if jsonrpc.is_valid_id(request_id):
                self.cancel_incoming(request_id)
            # Fall through: the owner may also want to know.
        if self.on_notification is not None:
            try:
                outcome = self.on_notification(method, params)
                if inspect.isawaitable(outcome):
                    _spawn(outcome)
            except Exception:
                log.exception("notification handler for %s failed", method)

    def _on_progress(self, params: JSONObject) -> None:
        entry = self._by_token.get(params.get("progressToken"))  # type: ignore[arg-type]
        if entry is None or entry.progress is None:
            return
        if self.reset_timeout_on_progress and entry.deadline is not None and entry.timeout is not None:
            now = asyncio.get_running_loop().time()
            deadline = now + entry.timeout
            if entry.hard_deadline is not None:
                deadline = min(deadline, max(now, entry.hard_deadline))
            request_id = entry.token
            assert request_id is not None
            entry.deadline = deadline  # (the old deadline's tuple is stale from now on)
            self._deadlines.add(request_id, deadline)
        try:
            outcome = entry.progress(params.get("progress", 0), params.get("total"), params.get("message"))
            if inspect.isawaitable(outcome):
                _spawn(outcome)
        except Exception:
            log.exception("progress callback failed")

    async def _answer(self, message: JSONObject) -> None:
        request_id = message["id"]
        current_request.set(request_id)
        params = message.get("params")
        if not is_object(params):
            params = {}
        try:
            try:
                if self.on_request is None:
                    raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {message['method']}")
                result = await self.on_request(message["method"], params, request_id)
                reply = jsonrpc.response(request_id, result)
            except asyncio.CancelledError:
                return  # cancelled by the peer: the spec says not to answer
            except RpcError as exc:
                reply = jsonrpc.error_response(request_id, exc.code, exc.message, exc.data)
            except Exception:
                log.exception("handler for %s failed", message["method"])
                reply = jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
            try:
                await self.transport.send(reply)
            except (McpError, ValueError) as exc:
                if isinstance(exc, ValueError):  # e.g. NaN in a result: answer with an error instead
                    await self._send_quietly(
                        jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Result is not valid JSON")
                    )
        finally:
            self._handling.pop(request_id, None)  # answered (or cancelled): no longer in flight
            if self._reading_held:
                self._release_reading()

    async def answer_here(self, message: JSONObject) -> JSONObject | None:
        """The answer to the request `message`, its handler run in the calling task (no task and
        no loop turn of its own: HTTP answers a request in the task that reads it); None if it
        was cancelled (`cancel_incoming`: the peer's notifications/cancelled, its client gone,
        the session closed), the spec's "no answer". Those cancellations are forgotten again, so
        the calling task lives on; any other one goes on up. Unlike `dispatch`, the answer is
        returned, not sent, and `max_in_flight` is not applied (HTTP has its own limits)."""
        request_id = message["id"]
        task = asyncio.current_task()
        assert task is not None
        entry = _InTask(task)
        self._handling[request_id] = entry
        token = current_request.set(request_id)
        params = message.get("params")
        try:
            if self.on_request is None:
                raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {message['method']}")
            result = await self.on_request(message["method"], params if is_object(params) else {}, request_id)
            return jsonrpc.response(request_id, result)
        except asyncio.CancelledError:
            if entry.cancels == 0:
                raise  # not ours (the server is shutting down): it goes on up
            return None
        except RpcError as exc:
            return jsonrpc.error_response(request_id, exc.code, exc.message, exc.data)
        except Exception:
            log.exception("handler for %s failed", message["method"])
            return jsonrpc.error_response(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
        finally:
            current_request.reset(token)
            if self._handling.get(request_id) is entry:
                del self._handling[request_id]
            # (Also when the handler swallowed the cancellation and answered. Python 3.10 does
            # not count cancellations: nothing to forget there.)
            uncancel = getattr(task, "uncancel", None)
            if uncancel is not None:
                for _ in range(entry.cancels):
                    uncancel()


def _forgive(entry: _Pending) -> bool:
    """Forget the cancellations the session made of a request's send (`_Pending.interrupt`);
    False if the task was also cancelled by someone else (that one goes on up). Python 3.10
    counts no cancellations: a cancellation during an interrupted send counts as the session's."""
    count, entry.interrupts = entry.interrupts, 0
    if count == 0:
        return False
    task = asyncio.current_task()
    uncancel = getattr(task, "uncancel", None)
    if uncancel is None:
        return True
    for _ in range(count):
        uncancel()
    return not task.cancelling()  # type: ignore[union-attr]


_background: set[asyncio.Task[Any]] = set()


def _spawn(awaitable: Awaitable[Any]) -> None:
    async def run() -> None:
        await awaitable

    task = asyncio.get_running_loop().create_task(run())
    _background.add(task)
    task.add_done_callback(_consume)


def _consume(task: asyncio.Task[Any]) -> None:
    _background.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.debug("background task failed", exc_info=task.exception())
