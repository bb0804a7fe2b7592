"""A lean HTTP/1.1 client for the Streamable HTTP hot path: POSTs to a plain http:// URL.

Profiles of a generated client calling a generated server showed httpx + httpcore + anyio
taking about half of the client's CPU per call (request and URL objects, header normalization,
auth and redirect hooks, anyio cancel scopes, h11 state machines, two socket writes per
request). This module does the same exchange on an asyncio Protocol: one write per request,
a hand-parsed status line and headers, Content-Length / chunked / read-to-close bodies,
keep-alive connections reused from an idle list.

It is used only where it can be exactly as correct as httpx: an `http://` URL without user
info, no proxy in the environment, no caller-supplied httpx client, header values that are
plain latin-1 text. Everything else (https, proxies, the GET stream, resumption, DELETE, the
legacy HTTP+SSE transport) stays on httpx.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections import deque
from collections.abc import AsyncIterator, Mapping
from urllib.parse import SplitResult, urlsplit

_MAX_HEAD = 64 * 1024
_MAX_CONNECTIONS = 100
_HIGH_WATER = 1024 * 1024  # bytes buffered before a connection stops reading from its socket
# Headers the lean client writes itself: a caller setting one of these goes through httpx.
_OWN_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection", "upgrade", "te"})
USER_AGENT = "python-mcpgen"


class LeanHttpError(Exception):
    """A broken exchange: refused or reset connection, malformed response, read timeout."""


class ReadTimeout(LeanHttpError):
    pass


def lean_target(url: str) -> SplitResult | None:
    """The parsed URL if the lean client may serve it, else None (httpx serves it)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or not parts.hostname or parts.username is not None or parts.password is not None:
        return None
    # The proxies httpx would use (environment; registry or system settings on Windows and macOS).
    proxies = urllib.request.getproxies()
    if proxies.get("http") or proxies.get("all"):
        return None
    del port
    return parts


def headers_ok(headers: Mapping[str, str]) -> bool:
    """Header names and values the lean client writes verbatim (else httpx, which refuses or encodes)."""
    for name, value in headers.items():
        if not name or not name.isascii() or any(c in name for c in " \t\r\n:\0"):
            return False
        if name.lower() in _OWN_HEADERS:
            return False
        if any(c in value for c in "\r\n\0"):
            return False
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            return False
    return True


class _Connection(asyncio.Protocol):
    """One keep-alive connection: bytes in a buffer, a waiter woken on data or close.

    The read timeout (httpx's: no byte for `timeout` seconds while waiting) is one lazily
    re-armed timer per connection, not a timer per wait: it checks the time of the last byte.
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.closed = False
        self.error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._timeout: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._since = 0.0  # loop time of the last byte, or of the start of the current wait
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _HIGH_WATER and not self._paused and self.transport is not None:
            self._paused = True  # the reader is behind: stop reading until it asks for more
            self.transport.pause_reading()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.error = exc
        self._wake()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport is not None:
            self.transport.close()

    async def wait(self, timeout: float | None) -> None:
        """Until more bytes arrive or the peer closes; ReadTimeout after `timeout` seconds."""
        if self.closed:
            raise LeanHttpError(f"the server closed the connection{': ' + str(self.error) if self.error else ''}")
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        self._timeout = timeout
        if timeout is not None:
            self._since = loop.time()
            due = self._since + timeout
            if self._timer is not None and self._timer.when() > due:
                self._timer.cancel()
                self._timer = None
            if self._timer is None:
                self._timer = loop.call_at(due, self._check_timeout)
        try:
            await waiter
        finally:
            self._waiter = None

    def _check_timeout(self) -> None:
        self._timer = None
        waiter, timeout = self._waiter, self._timeout
        if waiter is None or waiter.done() or timeout is None or self.closed:
            return  # not waiting now: the next wait re-arms
        loop = asyncio.get_running_loop()
        due = self._since + timeout
        if loop.time() >= due:
            waiter.set_exception(ReadTimeout("timed out waiting for the server"))
        else:
            self._timer = loop.call_at(due, self._check_timeout)


class LeanResponse:
    """Status, headers (lower-case names) and a body read on demand, like httpx's streamed response."""

    def __init__(
        self,
        pool: LeanPool,
        conn: _Connection,
        status: int,
        headers: dict[str, str],
        mode: str,
        length: int,
        timeout: float | None,
        reusable: bool = True,
    ) -> None:
        self.status_code = status
        self.headers = headers
        self._pool = pool
        self._conn: _Connection | None = conn
        self._mode = mode  # "length", "chunked" or "close"
        self._left = length  # bytes left in the body ("length")
        self._timeout = timeout
        self._done = mode == "length" and length == 0
        self._reusable = reusable  # False: the server said it closes the connection
        if self._done:
            self._release()  # an empty body: the connection goes back at once

    async def _chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive; the connection goes back to the pool at the end."""
        conn = self._conn
        if conn is None:
            if self._done:
                return  # an empty body, already given back
            raise LeanHttpError("the response was closed")
        buf = conn.buffer
        timeout = self._timeout
        while not self._done:
            if self._mode == "length":
                while not buf:
                    await conn.wait(timeout)
                take = min(self._left, len(buf))
                data = bytes(buf[:take])
                del buf[:take]
                self._left -= take
                self._done = self._left == 0
                yield data
            elif self._mode == "close":
                while not buf and not conn.closed:
                    await conn.wait(timeout)
                if buf:
                    data = bytes(buf)
                    buf.clear()
                    yield data
                else:
                    self._done = True
            else:
                # A chunk-size line (extensions after ';' ignored), then the chunk and its CRLF.
                while (end := buf.find(b"\r\n")) < 0:
                    if len(buf) > _MAX_HEAD:
                        raise LeanHttpError("malformed chunked body")
                    await conn.wait(timeout)
                try:
                    size = int(bytes(buf[:end]).split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise LeanHttpError("malformed chunk size") from None
                del buf[: end + 2]
                if size == 0:
                    await self._skip_trailers()
                    self._done = True
                    break
                if len(buf) >= size + 2:  # the usual case: the whole chunk is here
                    if not buf.startswith(b"\r\n", size):
                        raise LeanHttpError("malformed chunk")
                    data = bytes(buf[:size])
                    del buf[: size + 2]
                    yield data
                    continue
                while size:  # a big chunk: hand it on as it arrives (the reader may stop early)
                    while not buf:
                        await conn.wait(timeout)
                    take = min(size, len(buf))
                    data = bytes(buf[:take])
                    del buf[:take]
                    size -= take
                    yield data
                while len(buf) < 2:
                    await conn.wait(timeout)
                if not buf.startswith(b"\r\n"):
                    raise LeanHttpError("malformed chunk")
                del buf[:2]
        self._release()

    async def _skip_trailers(self) -> None:
        conn = self._conn
        assert conn is not None
        buf = conn.buffer
        while True:
            while (end := buf.find(b"\r\n")) < 0:
                if len(buf) > _MAX_HEAD:
                    raise LeanHttpError("malformed chunked trailer")
                await conn.wait(self._timeout)
            line = bytes(buf[:end])
            del buf[: end + 2]
            if not line:
                return

    def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive, content-coding and all (like httpx's aiter_raw: the
        transport decodes them through guard.chunks, as every body)."""
        return self._chunks()

    async def aread(self) -> bytes:
        conn = self._conn
        if conn is not None and self._mode == "length" and len(conn.buffer) >= self._left:
            # The common case: the whole body is already here.
            buf = conn.buffer
            data = bytes(buf[: self._left])
            del buf[: self._left]
            self._left = 0
            self._done = True
            self._release()
            return data
        parts = [chunk async for chunk in self._chunks()]
        return b"".join(parts)

    async def aiter_lines(self) -> AsyncIterator[str]:
        """Text lines without their terminator (\\r\\n, \\n or \\r), like httpx's aiter_lines."""
        pending = ""
        async for chunk in self._chunks():
            text = pending + chunk.decode("utf-8", "replace")
            lines = text.splitlines(keepends=True)
            pending = ""
            if lines and not lines[-1].endswith(("\n", "\r")):
                pending = lines.pop()
            elif lines and lines[-1].endswith("\r"):
                pending = lines.pop()  # may be the first half of \r\n
            for line in lines:
                yield line.rstrip("\r\n")
        if pending:
            yield pending.rstrip("\r\n")

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._done and self._reusable and not conn.closed and not conn.buffer:
            self._pool.put_back(conn)
        else:
            self._pool.discard(conn)

    def aclose(self) -> None:
        """Give the connection back if the body was read to its end, else close it."""
        if self._conn is not None:
            self._done = False
            self._release()


class LeanPool:
    """Keep-alive connections to one origin, at most _MAX_CONNECTIONS open at once."""

    def __init__(self, target: SplitResult, *, connect_timeout: float = 10.0) -> None:
        self.host = target.hostname or ""
        self.port = target.port or 80
        path = target.path or "/"
        self.path = path + ("?" + target.query if target.query else "")
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.authority = host if target.port is None else f"{host}:{target.port}"
        self.connect_timeout = connect_timeout
        self._idle: list[_Connection] = []
        self._open = 0
        self._waiters: deque[asyncio.Future[_Connection | None]] = deque()
        self._closed = False

    async def _acquire(self) -> tuple[_Connection, bool]:
        """A connection and whether it was reused (a reused one may have been closed meanwhile)."""
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                return conn, True
            self._open -= 1
        if self._open >= _MAX_CONNECTIONS:
            waiter: asyncio.Future[_Connection | None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                handed = await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled() and waiter.result() is not None:
                    self.put_back(waiter.result())  # type: ignore[arg-type]
                raise
            if handed is not None:
                return handed, True
        return await self._connect(), False

    async def _connect(self) -> _Connection:
        if self._closed:
            raise LeanHttpError("the HTTP client is closed")
        loop = asyncio.get_running_loop()
        self._open += 1
        try:
            _transport, conn = await asyncio.wait_for(
                loop.create_connection(_Connection, self.host, self.port), self.connect_timeout
            )
        except BaseException as exc:
            self._open -= 1
            self._wake_waiter(None)
            if isinstance(exc, (OSError, asyncio.TimeoutError)):
                raise LeanHttpError(f"cannot connect to {self.authority}: {exc or type(exc).__name__}") from None
            raise
        return conn

    def put_back(self, conn: _Connection) -> None:
        if self._closed:
            self.discard(conn)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        self._idle.append(conn)

    def discard(self, conn: _Connection) -> None:
        conn.close()
        self._open -= 1
        self._wake_waiter(None)

    def _wake_waiter(self, conn: _Connection | None) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)  # None: open a new connection
                return

    async def post(self, headers: Mapping[str, str], body: bytes, timeout: float | None) -> LeanResponse:
        """Send one POST and read the status line and headers; the body is read from the response."""
        head = [f"POST {self.path} HTTP/1.1\r\nhost: {self.authority}\r\ncontent-length: {len(body)}\r\n"]
        for name, value in headers.items():
            head.append(f"{name}: {value}\r\n")
        if not any(name.lower() == "user-agent" for name in headers):
            head.append(f"user-agent: {USER_AGENT}\r\n")
        head.append("\r\n")
        request = "".join(head).encode("latin-1") + body
        for attempt in (0, 1):
            conn, reused = await self._acquire()
            try:
                assert conn.transport is not None
                conn.transport.write(request)
                return await self._read_head(conn, timeout)
            except _StaleConnection:
                self.discard(conn)
                if attempt or not reused:
                    raise LeanHttpError("the server closed the connection without answering") from None
                continue  # a kept-alive connection the server had just closed: once more, fresh
            except BaseException:
                self.discard(conn)
                raise
        raise AssertionError("unreachable")

    async def _read_head(self, conn: _Connection, timeout: float | None) -> LeanResponse:
        buf = conn.buffer
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(buf) > _MAX_HEAD:
                raise LeanHttpError("response headers too large")
            if conn.closed:
                if not buf:
                    raise _StaleConnection()
                raise LeanHttpError("the server closed the connection in the middle of the response headers")
            await conn.wait(timeout)
        head = bytes(buf[:end]).decode("latin-1")
        del buf[: end + 4]
        lines = head.split("\r\n")
        status_line = lines[0].split(" ", 2)
        if len(status_line) < 2 or not status_line[0].startswith("HTTP/1.") or not status_line[1].isdigit():
            raise LeanHttpError(f"malformed status line: {lines[0][:80]!r}")
        status = int(status_line[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise LeanHttpError(f"malformed header line: {line[:80]!r}")
            key = name.strip().lower()
            value = value.strip(" \t")
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if 100 <= status < 200:
            return await self._read_head(conn, timeout)  # an interim response: the real one follows
        connection = headers.get("connection", "").lower()
        keep = status_line[0] == "HTTP/1.1" and "close" not in connection
        encoding = headers.get("transfer-encoding", "").lower()
        if status in (204, 304):
            mode, length = "length", 0
        elif "chunked" in encoding:
            mode, length = "chunked", 0
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"].split(",")[0])
            except ValueError:
                raise LeanHttpError("malformed Content-Length") from None
            mode = "length"
        else:
            mode, length, keep = "close", 0, False
        return LeanResponse(self, conn, status, headers, mode, length, timeout, reusable=keep)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        self._open -= len(idle)
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(LeanHttpError("the HTTP client is closed"))


class _StaleConnection(Exception):
    pass
