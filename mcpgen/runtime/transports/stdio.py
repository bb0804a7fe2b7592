"""stdio transports: newline-delimited JSON-RPC over a child's pipes, or over our own.

Client side: spawn the server, read its stdout line by line (no 64 KiB line cap),
drain stderr into a logger, and shut it down politely then firmly (close stdin,
SIGTERM, SIGKILL) so no process is left behind.

Server side: stdout is reserved for protocol messages. We move the real stdout to a
private descriptor and point fd 1 (and sys.stdout) at stderr, so print() in a handler,
a chatty library or a child process cannot corrupt the stream.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import os
import selectors
import signal
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from ..core import jsonrpc
from ..core.errors import ConnectionClosed
from ..core.jsonrpc import JSONObject
from .wirelog import WireLog

# Large tool results (files, images as base64) easily pass tens of MB.
DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024
_CHUNK = 256 * 1024
# How much one read of a protocol pipe asks for. asyncio asks for 256 KiB into a fresh bytes
# object; glibc serves a request that big with mmap, so every read of a short message cost an
# mmap, an mremap (shrinking it to what came) and a munmap, about a quarter of a one-call-at-a-time
# round trip's CPU. 64 KiB is served from the heap; a big message just takes more reads.
_PIPE_READ_SIZE = 64 * 1024

log = logging.getLogger("mcpgen.runtime.stdio")


class _LineSplitter:
    """Turns a byte stream into lines without a per-line size limit below max_bytes."""

    def __init__(self, max_bytes: int) -> None:
        self._buffer = bytearray()  # the start of a line whose newline has not come yet
        self._max = max_bytes
        self._lines: collections.deque[bytes] = collections.deque()
        # A line over max_bytes is dropped whole: its bytes are skipped up to its newline, so
        # its tail is never read as a message of its own.
        self._dropping = False

    def feed(self, chunk: bytes) -> None:
        start = 0
        if self._dropping:
            at = chunk.find(b"\n")
            if at < 0:
                return
            self._dropping = False
            start = at + 1
        elif self._buffer:
            at = chunk.find(b"\n")
            if at < 0:
                self._keep(chunk)
                return
            if len(self._buffer) + at > self._max:
                self._drop(until_newline=False)  # its newline is here
            else:
                self._buffer += chunk[:at]
                self._add(bytes(self._buffer))
            self._buffer.clear()
            start = at + 1
        find, add, most = chunk.find, self._add, self._max
        while (at := find(b"\n", start)) >= 0:
            if at - start <= most:
                add(chunk[start:at])
            else:  # a whole line over the limit inside one read
                self._drop(until_newline=False)
            start = at + 1
        if start < len(chunk):
            self._keep(chunk[start:])

    def _keep(self, partial: bytes) -> None:
        if len(self._buffer) + len(partial) > self._max:
            self._buffer.clear()  # never grown past the limit
            self._drop(until_newline=True)
            return
        self._buffer += partial

    def _drop(self, *, until_newline: bool) -> None:
        log.warning("dropping a message over %d bytes (up to its newline)", self._max)
        self._dropping = until_newline

    def _add(self, line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip():
            self._lines.append(line)

    def end(self) -> None:
        """The input ended: a last line without its newline still counts."""
        rest = bytes(self._buffer).strip()
        self._buffer.clear()
        if rest:
            self._lines.append(rest)

    def pop(self) -> bytes | None:
        return self._lines.popleft() if self._lines else None

    @property
    def queued(self) -> int:
        return len(self._lines)


# Lines read but not yet taken (no listener, nobody calling receive) before reading pauses.
_MAX_QUEUED_LINES = 1024


class _Inbox:
    """The lines of one pipe. A session `listen`s: each complete line is handed to it as soon as
    its bytes arrive, in the same event-loop turn (no reader task to wake, no stream buffer in
    between). `receive()` takes them one by one instead."""

    def __init__(self, max_bytes: int, wire: WireLog | None, direction: str) -> None:
        self._splitter = _LineSplitter(max_bytes)
        self._wire = wire
        self._direction = direction
        self._listener: Callable[[bytes], None] | None = None
        self._ended: asyncio.Future[None] | None = None  # resolved when the input ends, while listening
        self._waiter: asyncio.Future[None] | None = None  # receive() waiting for a line
        self._eof = False
        # Pause and resume reading the pipe (set once it is connected).
        self.pause: Callable[[], None] = _nothing
        self.resume: Callable[[], None] = _nothing
        self._paused = False  # while lines pile up with nobody taking them
        self._held = False  # while the session has as many requests in flight as it takes

    def attach(self, reader: asyncio.ReadTransport) -> None:
        """Read the pipe through `reader` (once connected): pause it while lines pile up, and
        ask for heap-sized reads (see _PIPE_READ_SIZE; other loops' transports have no such knob)."""
        self.pause, self.resume = reader.pause_reading, reader.resume_reading
        if isinstance(getattr(reader, "max_size", None), int):
            reader.max_size = _PIPE_READ_SIZE  # type: ignore[attr-defined]

    def feed(self, data: bytes) -> None:
        self._splitter.feed(data)
        self._deliver()

    def feed_eof(self) -> None:
        if self._eof:
            return
        self._splitter.end()
        self._deliver()
        self._eof = True
        self._wake()

    def _deliver(self) -> None:
        listener = self._listener
        splitter = self._splitter
        if listener is None:
            if splitter.queued > _MAX_QUEUED_LINES and not self._paused:
                self._paused = True
                self.pause()
            self._wake()
            return
        wire = self._wire
        try:
            while (line := splitter.pop()) is not None:
                if wire is not None:
                    wire.record(self._direction, line)
                listener(line)
        except Exception as exc:  # a listener that breaks ends the listening, never the transport
            self._listener = None
            if self._ended is not None and not self._ended.done():
                self._ended.set_exception(exc)

    def _wake(self) -> None:
        for waiter in (self._waiter, self._ended if self._eof else None):
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

    async def listen(self, listener: Callable[[bytes], None]) -> None:
        """Hand every line to `listener` as it arrives (those already read first); returns when
        the input ends, raises what the listener raised."""
        self._listener = listener
        self._ended = asyncio.get_running_loop().create_future()
        try:
            self._deliver()
            if self._paused:
                self._paused = False
                if not self._held:
                    self.resume()
            if self._eof and not self._ended.done():
                self._ended.set_result(None)
            await self._ended
        finally:
            self._listener = None
            self._ended = None

    async def receive(self) -> bytes | None:
        """The next line; None at the end of the input."""
        while True:
            line = self._splitter.pop()
            if line is not None:
                if self._wire is not None:
                    self._wire.record(self._direction, line)
                return line
            if self._eof:
                return None
            if self._paused:
                self._paused = False
                if not self._held:
                    self.resume()
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def hold(self) -> None:
        """Stop reading the pipe until `release` (back-pressure from the session)."""
        self._held = True
        self.pause()

    def release(self) -> None:
        self._held = False
        if not self._paused:
            self.resume()


def _nothing() -> None:
    pass


class _PipeLines(asyncio.Protocol):
    """A read pipe whose bytes go to an _Inbox."""

    def __init__(self, inbox: _Inbox) -> None:
        self._inbox = inbox

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inbox.attach(cast(asyncio.ReadTransport, transport))

    def data_received(self, data: bytes) -> None:
        self._inbox.feed(data)

    def eof_received(self) -> bool | None:
        self._inbox.feed_eof()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._inbox.feed_eof()


class _ChildProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's protocol for a child process, except that stdout goes to an _Inbox."""

    def __init__(self, inbox: _Inbox, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self._inbox = inbox

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        stdout = cast(asyncio.SubprocessTransport, transport).get_pipe_transport(1)
        if stdout is not None:
            reader = cast(asyncio.ReadTransport, stdout)
            self._inbox.attach(reader)
            reader.set_protocol(_DirectLines(self._inbox, cast(asyncio.Protocol, reader.get_protocol())))

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        # stdout comes here only until _DirectLines takes its pipe over (what came before).
        if fd == 1:
            self._inbox.feed(data if isinstance(data, bytes) else data.encode())
        else:
            super().pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._inbox.feed_eof()
        super().pipe_connection_lost(fd, exc)


class _DirectLines(asyncio.Protocol):
    """The child's stdout pipe, read straight into an _Inbox. asyncio's subprocess transport
    hands each read to _ChildProtocol one loop turn later (call_soon), which cost every answer a
    loop turn; the end of the pipe still goes through it (`inner`), since it waits for every
    pipe to close before it reports the process finished."""

    def __init__(self, inbox: _Inbox, inner: asyncio.Protocol) -> None:
        self._inbox = inbox
        self._inner = inner

    def data_received(self, data: bytes) -> None:
        self._inbox.feed(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._inner.connection_lost(exc)


class _LineEnds:
    """What both stdio ends share: lines come in through an _Inbox (pulled with `receive` or
    pushed with `listen`). Each message is written as soon as it is sent, never held back to go
    out with others: while one process writes, the other is already reading and working, so
    with many requests in flight both keep a core busy (holding a loop turn's messages for one
    write made the two take turns, and cost a fifth to a third of the calls per second)."""

    def __init__(self, max_message_bytes: int, wire_log: WireLog | None, direction: str) -> None:
        self._inbox = _Inbox(max_message_bytes, wire_log, direction)

    async def receive(self) -> bytes | None:
        return await self._inbox.receive()

    async def listen(self, on_line: Callable[[bytes], None]) -> None:
        """Hand each line the peer writes to `on_line` as it arrives; returns at its end."""
        await self._inbox.listen(on_line)

    def pause_reading(self) -> None:
        """Read nothing more until `resume_reading` (the session's in-flight bound)."""
        self._inbox.hold()

    def resume_reading(self) -> None:
        self._inbox.release()


class StdioClientTransport(_LineEnds):
    """Spawns an MCP server and talks to it over its stdin/stdout."""

    # A message is written whole into the pipe's buffer before the send waits for it to drain:
    # the session may cancel that wait (a request's deadline) without cutting a line in two.
    interruptible_send = True

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        wire_log: WireLog | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        shutdown_grace: float = 2.0,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = env
        self.cwd = cwd
        super().__init__(max_message_bytes, wire_log, "s2c")
        self.process: asyncio.subprocess.Process | None = None
        self._wire = wire_log
        self._grace = shutdown_grace
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_task: asyncio.Task[None] | None = None
        self._stderr_log = logging.getLogger(f"mcpgen.server.{os.path.basename(command)}")
        self._closing = False

    async def start(self) -> None:
        env = None
        if self.env is not None:
            # The child needs PATH and friends to start at all; callers add to them.
            env = {**os.environ, **self.env}
        argv = _windows_wrap([self.command, *self.args])
        loop = asyncio.get_running_loop()
        try:
            # asyncio.create_subprocess_exec, with the child's stdout read into our inbox.
            transport, protocol = await loop.subprocess_exec(
                lambda: _ChildProtocol(self._inbox, _CHUNK, loop),
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                # Own process group: shutdown can signal a wrapper (npx, sh) and its children.
                start_new_session=sys.platform != "win32",
            )
            self.process = asyncio.subprocess.Process(transport, protocol, loop)
        except OSError as exc:
            raise ConnectionClosed(f"cannot start {self.command!r}: {exc.strerror or exc}") from None
        assert self.process.stdin is not None
        self._stderr_task = asyncio.get_running_loop().create_task(self._drain_stderr())

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stream = self.process.stderr
        splitter = _LineSplitter(1024 * 1024)
        while True:
            chunk = await stream.read(_CHUNK)
            if not chunk:
                break
            splitter.feed(chunk)
            while (line := splitter.pop()) is not None:
                text = line.decode("utf-8", "replace")
                self._stderr_tail.append(text)
                self._stderr_log.info("%s", text)

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        process = self.process
        if process is None or process.stdin is None or self._closing:
            raise ConnectionClosed("the server connection is closed")
        data = jsonrpc.encode(message)
        if self._wire:
            self._wire.record("c2s", data)
        stdin = process.stdin
        try:
            stdin.write(data + b"\n")
            # Nothing left in the pipe's buffer (the usual case): nothing to wait for, and no two
            # coroutines made to find that out. A closing pipe still goes through drain to fail.
            if stdin.transport.get_write_buffer_size() or stdin.transport.is_closing():
                await stdin.drain()
        except (ConnectionError, BrokenPipeError, RuntimeError):
            raise ConnectionClosed(self.describe_close()) from None

    def describe_close(self) -> str:
        process = self.process
        what = f"server {self.command!r}"
        if process is not None and process.returncode is not None:
            code = process.returncode
            what += f" exited with code {code}" if code >= 0 else f" was killed by signal {-code}"
        else:
            what += " closed its stdout"
        if self._stderr_tail:
            what += f" (last stderr line: {self._stderr_tail[-1][:300]})"
        return what

    async def wait_exit(self, timeout: float) -> None:
        """Give a dying server a moment to report its exit code (for error messages)."""
        if self.process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), timeout)
        if self._stderr_task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.2)

    async def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        process = self.process
        if process is None:
            return
        try:
            # 1. Close stdin: the one portable "please exit" for a stdio server.
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            if not await _wait(process, self._grace):
                # 2. SIGTERM, then 3. SIGKILL, to the whole process group.
                _signal(process, signal.SIGTERM)
                if not await _wait(process, self._grace):
                    _signal(process, signal.SIGKILL)
                    await _wait(process, 5.0)
            # Children of a wrapper that ignored the group signal: clean them up too.
            _signal(process, signal.SIGKILL, group_only=True)
        finally:
            if self._stderr_task is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(self._stderr_task, 1.0)
                self._stderr_task.cancel()
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    await process.stdin.wait_closed()
            if self._wire:
                self._wire.close()


async def _wait(process: asyncio.subprocess.Process, timeout: float) -> bool:
    try:
        await asyncio.wait_for(process.wait(), timeout)
        return True
    except asyncio.TimeoutError:
        return False


def _signal(process: asyncio.subprocess.Process, sig: int, *, group_only: bool = False) -> None:
    if sys.platform == "win32":
        if not group_only and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
        return
    if not group_only:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)


def _windows_wrap(argv: list[str]) -> list[str]:
    # npx, npm and friends are .cmd scripts on Windows and need the shell to start.
    if sys.platform == "win32" and not argv[0].lower().endswith(".exe"):
        return ["cmd", "/c", *argv]
    return argv


class StdioServerTransport(_LineEnds):
    """Serves over this process's stdin/stdout; stdout carries protocol messages only."""

    # Every message is handed whole to what writes it before the send first waits: the pipe's
    # buffer (then the send waits for room), or the one thread that writes a file's lines in
    # order (_SerialWriter). So a request's deadline may cancel the wait (a client that stops
    # reading) without cutting a line in two or letting the next one overtake it.
    interruptible_send = True

    def __init__(self, *, wire_log: WireLog | None = None, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        super().__init__(max_message_bytes, wire_log, "c2s")
        self._wire = wire_log
        self._file_reader: asyncio.Task[None] | None = None
        self._writer: asyncio.WriteTransport | None = None
        self._out_fd: int | None = None
        self._in_fd: int | None = None
        self._drain_waiters: list[asyncio.Future[None]] = []
        self._paused = False
        self._file_out: _SerialWriter | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        sys.stdout.flush()
        # Keep private copies of the protocol pipes, then point fd 0 at /dev/null and
        # fd 1 at stderr: children and print() can no longer read or write the protocol.
        self._in_fd = os.dup(0)
        self._out_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        if _pollable(self._in_fd):
            await loop.connect_read_pipe(
                lambda: _PipeLines(self._inbox), os.fdopen(self._in_fd, "rb", 0, closefd=False)
            )
        else:  # a regular file or /dev/null: read in a thread (end of input: the client left)
            self._file_reader = loop.create_task(self._read_file(self._in_fd))
        try:
            transport, _ = await loop.connect_write_pipe(
                lambda: _FlowControl(self._pause, self._resume), os.fdopen(self._out_fd, "wb", 0, closefd=False)
            )
            self._writer = transport
        except ValueError:  # a regular file: written in a thread, one line after the other
            self._writer = None
            self._file_out = _SerialWriter(functools.partial(_write_all, self._out_fd))

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        data = jsonrpc.encode(message)
        if self._wire:
            self._wire.record("s2c", data)
        if self._writer is None:
            assert self._file_out is not None
            await self._file_out.write(data + b"\n")
            return
        if self._writer.is_closing():
            raise ConnectionClosed("stdout is closed")
        self._writer.write(data + b"\n")
        if self._paused:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drain_waiters.append(waiter)
            await waiter

    def _pause(self) -> None:
        self._paused = True

    def _resume(self) -> None:
        self._paused = False
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def _read_file(self, fd: int) -> None:
        readable = asyncio.Event()
        readable.set()
        self._inbox.pause, self._inbox.resume = readable.clear, readable.set
        try:
            while True:
                await readable.wait()
                chunk = await asyncio.to_thread(os.read, fd, _CHUNK)
                if not chunk:
                    break
                self._inbox.feed(chunk)
        except OSError:
            pass  # an unreadable input ends like an empty one
        finally:
            self._inbox.feed_eof()

    def describe_close(self) -> str:
        return "the client closed stdin"

    async def close(self) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.close()
        if self._file_reader is not None:
            self._file_reader.cancel()
        self._resume()
        if self._wire:
            self._wire.close()


class _FlowControl(asyncio.Protocol):
    """Pauses senders while the stdout pipe is full, so a slow reader cannot balloon memory."""

    def __init__(self, pause: Callable[[], None], resume: Callable[[], None]) -> None:
        self._pause, self._resume = pause, resume  # (the transport's, which owns the senders)

    def pause_writing(self) -> None:
        self._pause()

    def resume_writing(self) -> None:
        self._resume()

    def connection_lost(self, exc: Exception | None) -> None:
        self._resume()


def _pollable(fd: int) -> bool:
    """Can the event loop watch fd? Pipes, sockets and terminals: yes. A regular file or a
    character device like /dev/null: epoll refuses it (EPERM, raised later in a loop callback,
    after which nothing is ever read), so it is read in a thread instead."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return True
    if not stat.S_ISCHR(mode):
        return False
    with selectors.DefaultSelector() as probe:
        try:
            probe.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True


class _SerialWriter:
    """Blocking writes done in a thread, one at a time and in the order they were asked for. A
    caller that stops waiting (cancelled) leaves its line queued, written whole in its turn: a
    cancelled `asyncio.to_thread` write would go on in its thread while the next one started in
    another, and the two could interleave."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._queue: collections.deque[tuple[bytes, asyncio.Future[None]]] = collections.deque()
        self._worker: asyncio.Task[None] | None = None

    def write(self, data: bytes) -> asyncio.Future[None]:
        """Queue `data`; the future resolves once it is written (or holds why it was not)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._queue.append((data, done))
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain())
        return done

    async def _drain(self) -> None:
        while self._queue:
            data, done = self._queue.popleft()
            try:
                await asyncio.to_thread(self._write, data)
            except OSError as exc:
                if not done.done():
                    done.set_exception(ConnectionClosed(f"cannot write stdout: {exc.strerror or exc}"))
            else:
                if not done.done():
                    done.set_result(None)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
