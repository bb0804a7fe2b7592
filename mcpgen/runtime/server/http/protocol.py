"""uvicorn's HTTP/1.1 protocol, guarded: head and body deadlines and a connection cap it lacks,
each response written in one write, and a request told at once when its connection is lost.

The rule the deadlines hold: no read of a request waits on its client without a deadline. A head
must be complete `header_timeout` seconds after the connection opened (or after its previous
response); a body must make progress every `body_timeout` seconds and be complete within
`body_total_timeout` of its head. A connection that misses one is closed, so a slow client costs
one connection slot (of `max_connections`) for a bounded time, never the server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from .asgi import WHOLE_KEY
from .limits import HttpLimits
from .logs import log
from .streams import LOSS_KEY, ConnectionLoss

_HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 32\r\nconnection: close\r\n\r\nRequest header fields too large\n"
)
# What one event-loop step may hold back for a single write (OneWrite); past it, bytes leave at once.
ONE_WRITE_MAX = 64 * 1024


def guarded_protocol(limits: HttpLimits, max_connections: int) -> type[Any]:
    """uvicorn's HTTP/1.1 protocol with the guards it lacks: a connection that has not sent a complete
    request head `limits.header_timeout` seconds after it opened (or after its last response) is
    closed, as is one whose body stalls (`body_timeout`) or drags on (`body_total_timeout`), and a
    connection beyond `max_connections` (the limit kept below the descriptor limit) is closed as
    soon as it is accepted.

    After a response, uvicorn's keep-alive timer closes a connection that stays silent; when that
    comes first (keep-alive timeout <= header timeout, the defaults), the head timer starts only
    once the next request's first bytes arrive without its whole head: a request that arrives in
    one piece, nearly every one, costs no timer of ours."""
    base: type[Any]
    cycle: type[Any]
    try:  # uvicorn's faster parser when httptools is installed, as its "auto" would pick
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
        from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as cycle

        base = HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol
        from uvicorn.protocols.http.h11_impl import RequestResponseCycle as cycle

        base = H11Protocol
    guards = {
        "whole_cycle": _whole_cycle(cycle),
        "header_timeout": limits.header_timeout,
        "body_timeout": limits.body_timeout,
        "body_total_timeout": limits.body_total_timeout,
        "max_header_bytes": limits.max_header_bytes,
        "max_connections": max_connections,
    }
    return type("GuardedProtocol", (_Guards, base), guards)


def _whole_cycle(cycle: type[Any]) -> type[Any]:
    """uvicorn's request-response cycle whose `send` sees WHOLE_KEY: a head marked so has its
    whole body sent next, in the same step, and the response's completion writes both (no flush
    scheduled, no extra loop turn). A class made once, which a request's cycle becomes (its
    `__class__` set, nothing allocated), rather than a closure over each cycle's `send`; its
    `send` hands back uvicorn's coroutine rather than awaiting it in one more of its own."""
    base_send = cycle.send

    def send(self: Any, message: Any) -> Awaitable[None]:
        if message.get(WHOLE_KEY) is True:
            self.transport.whole = True  # (its transport is the connection's OneWrite)
        return base_send(self, message)  # type: ignore[no-any-return]

    return type("WholeCycle", (cycle,), {"send": send, "__doc__": _whole_cycle.__doc__})


class _Guards:
    """The guards, over whichever of uvicorn's protocols `guarded_protocol` puts beneath them."""

    header_timeout: float
    body_timeout: float
    body_total_timeout: float
    max_header_bytes: int
    max_connections: int
    whole_cycle: type[Any]
    # Bytes of the reads that left the current request head incomplete.
    _head_bytes: int = 0
    _head_timer: asyncio.TimerHandle | None = None
    # Armed only while a body is incomplete after a read: a request that arrives whole (nearly
    # every one) costs no timer.
    _body_idle: asyncio.TimerHandle | None = None
    _body_total: asyncio.TimerHandle | None = None
    _writer: OneWrite | None = None
    _loss: ConnectionLoss | None = None
    # What uvicorn's protocol classes hold (for the type checker; they set them).
    connections: set[Any]
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    flow: Any
    timeout_keep_alive: float

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        if len(self.connections) > self.max_connections:
            log.warning("refusing a connection: %d are open (--max-connections)", len(self.connections) - 1)
            transport.abort()
            return
        self._writer = OneWrite(transport, self.loop)
        self._loss = ConnectionLoss()
        self._arm()

    def _write_through_one(self) -> None:
        # The request just parsed writes its response through the coalescing writer, and hears
        # through the connection's loss hook when its client goes away.
        cycle = self.cycle
        writer = self._writer
        if cycle is not None and writer is not None and cycle.transport is self.transport:
            cycle.transport = writer
            cycle.scope[LOSS_KEY] = self._loss
            # Its `send` then sees WHOLE_KEY (what run_asgi hands the app: read once its task runs).
            cycle.__class__ = self.whole_cycle

    def _arm(self) -> None:
        self._disarm()
        if self.header_timeout > 0:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timeout)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and not self.transport.is_closing():
            log.info("closing a connection that sent no complete request head in %g s", self.header_timeout)
            self.transport.abort()

    def handle_events(self) -> None:  # h11
        super().handle_events()  # type: ignore[misc]
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm()  # a request head arrived
            self._write_through_one()

    def on_headers_complete(self) -> None:  # httptools
        super().on_headers_complete()  # type: ignore[misc]
        self._disarm()
        self._write_through_one()

    def on_response_complete(self) -> None:
        writer = self._writer
        if writer is not None:  # the response is whole: out it goes, before anything else
            writer.whole = False
            writer.flush()
        # Armed first: a pipelined request handled inside super() disarms it again.
        if not self.transport.is_closing() and self.timeout_keep_alive > self.header_timeout:
            self._arm()
        super().on_response_complete()  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)  # type: ignore[misc]
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and cycle.more_body:
            self._body_progress()  # a head complete, its body not
        elif self._body_idle is not None or self._body_total is not None:
            self._body_done()
        if cycle is None or cycle.response_complete:  # a request head begun, not complete
            if cycle is before and self.max_header_bytes > 0:
                self._head_bytes += len(data)
                if self._head_bytes > self.max_header_bytes:
                    self._refuse_head()
                    return
            if self._head_timer is None and self.header_timeout > 0 and not self.transport.is_closing():
                self._arm()
        elif self._head_bytes:
            self._head_bytes = 0

    def _refuse_head(self) -> None:
        log.info("closing a connection whose request head passed %d bytes (--max-header-bytes)", self.max_header_bytes)
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(_HEAD_TOO_LARGE)
            self.transport.close()

    def _body_progress(self) -> None:
        """Bytes of an incomplete body arrived: the idle deadline starts again; the total one
        starts with the first read that leaves the body incomplete."""
        if self.transport.is_closing():
            return
        if self._body_total is None and self.body_total_timeout > 0:
            self._body_total = self.loop.call_later(self.body_total_timeout, self._body_timeout, "total")
        if self.body_timeout > 0:
            if self._body_idle is not None:
                self._body_idle.cancel()
            self._body_idle = self.loop.call_later(self.body_timeout, self._body_timeout, "idle")

    def _body_done(self) -> None:
        for timer in (self._body_idle, self._body_total):
            if timer is not None:
                timer.cancel()
        self._body_idle = self._body_total = None

    def _body_timeout(self, which: str) -> None:
        cycle = self.cycle
        if cycle is None or not cycle.more_body or self.transport.is_closing():
            self._body_done()
            return
        if which == "idle" and getattr(self.flow, "read_paused", False):
            # We stopped reading (the app has not taken what arrived): the client is not idle.
            self._body_idle = self.loop.call_later(self.body_timeout, self._body_timeout, "idle")
            return
        self._body_done()
        limit = self.body_timeout if which == "idle" else self.body_total_timeout
        flag = "--body-timeout" if which == "idle" else "--body-total-timeout"
        log.info("closing a connection whose request body took too long (%g s, %s)", limit, flag)
        self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._body_done()
        super().connection_lost(exc)  # type: ignore[misc]
        if self._loss is not None:
            self._loss.fire()


class OneWrite:
    """The transport uvicorn writes a response through, sending what one event-loop step wrote in
    one write. uvicorn writes a response's head and its body separately: two segments, and a client
    waiting for the answer wakes up for the head only, then again for the body. Held bytes leave at
    the end of the step (before the loop reads the socket again), at once past ONE_WRITE_MAX bytes
    (uvicorn's write flow control then sees them), and before the connection is closed."""

    __slots__ = ("transport", "loop", "pending", "size", "whole")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self.loop = loop
        self.pending: list[bytes] = []
        self.size = 0
        # A whole response is being written in this step (its head said WHOLE_KEY): its
        # completion flushes it (_Guards.on_response_complete), so no flush is scheduled.
        self.whole = False

    def write(self, data: bytes) -> None:
        if not self.pending and not self.whole:
            self.loop.call_soon(self.flush)
        self.pending.append(data)
        self.size += len(data)
        if self.size > ONE_WRITE_MAX:
            self.flush()

    def flush(self) -> None:
        pending = self.pending
        if not pending:
            return
        self.pending = []
        self.size = 0
        if not self.transport.is_closing():
            self.transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def close(self) -> None:
        self.flush()
        self.transport.close()
