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
import logging
import os
import selectors
import signal
import stat
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence

from ..core import jsonrpc
from ..core.errors import ConnectionClosed
from ..core.jsonrpc import JSONObject
from .wirelog import WireLog

# Large tool results (files, images as base64) easily pass tens of MB.
DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024
_CHUNK = 256 * 1024

log = logging.getLogger("mcpgen.runtime.stdio")


class _LineSplitter:
    """Turns a byte stream into lines without a per-line size limit below max_bytes."""

    def __init__(self, max_bytes: int) -> None:
        self._buffer = bytearray()
        self._max = max_bytes
        self._scan_from = 0
        self._lines: collections.deque[bytes] = collections.deque()
        self._eof = False

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while True:
            at = self._buffer.find(b"\n", self._scan_from)
            if at < 0:
                self._scan_from = len(self._buffer)
                if len(self._buffer) > self._max:
                    log.warning("dropping a message over %d bytes", self._max)
                    self._buffer.clear()
                    self._scan_from = 0
                return
            line = bytes(self._buffer[:at])
            del self._buffer[: at + 1]
            self._scan_from = 0
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():
                self._lines.append(line)

    def pop(self) -> bytes | None:
        return self._lines.popleft() if self._lines else None

    async def next_line(self, read_chunk: Callable[[], Awaitable[bytes]]) -> bytes | None:
        """The next line, reading more as needed; None at EOF (a last unterminated line counts)."""
        while True:
            line = self.pop()
            if line is not None or self._eof:
                return line
            chunk = await read_chunk()
            if not chunk:
                self._eof = True
                rest = bytes(self._buffer).strip()
                self._buffer.clear()
                if rest:
                    self._lines.append(rest)
                continue
            self.feed(chunk)


class StdioClientTransport:
    """Spawns an MCP server and talks to it over its stdin/stdout."""

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
        self.process: asyncio.subprocess.Process | None = None
        self._wire = wire_log
        self._splitter = _LineSplitter(max_message_bytes)
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
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                # Own process group: shutdown can signal a wrapper (npx, sh) and its children.
                start_new_session=sys.platform != "win32",
            )
        except OSError as exc:
            raise ConnectionClosed(f"cannot start {self.command!r}: {exc.strerror or exc}") from None
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
        try:
            process.stdin.write(data + b"\n")
            await process.stdin.drain()
        except (ConnectionError, BrokenPipeError, RuntimeError):
            raise ConnectionClosed(self.describe_close()) from None

    async def receive(self) -> bytes | None:
        line = await self._splitter.next_line(self._read_chunk)
        if line is not None and self._wire:
            self._wire.record("s2c", line)
        return line

    async def _read_chunk(self) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        try:
            return await self.process.stdout.read(_CHUNK)
        except (ConnectionError, OSError):
            return b""  # a broken pipe is the end of the stream

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


class StdioServerTransport:
    """Serves over this process's stdin/stdout; stdout carries protocol messages only."""

    def __init__(self, *, wire_log: WireLog | None = None, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self._wire = wire_log
        self._splitter = _LineSplitter(max_message_bytes)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.WriteTransport | None = None
        self._out_fd: int | None = None
        self._in_fd: int | None = None
        self._drain_waiters: list[asyncio.Future[None]] = []
        self._paused = False

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
        self._reader = None  # a regular file or /dev/null: read in a thread (EOF: the client left)
        if _pollable(self._in_fd):
            reader = asyncio.StreamReader(limit=_CHUNK)
            await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(self._in_fd, "rb", 0, closefd=False)
            )
            self._reader = reader
        try:
            transport, _ = await loop.connect_write_pipe(
                lambda: _FlowControl(self), os.fdopen(self._out_fd, "wb", 0, closefd=False)
            )
            self._writer = transport
        except ValueError:
            self._writer = None

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        data = jsonrpc.encode(message)
        if self._wire:
            self._wire.record("s2c", data)
        if self._writer is None:
            assert self._out_fd is not None
            await asyncio.to_thread(_write_all, self._out_fd, data + b"\n")
            return
        if self._writer.is_closing():
            raise ConnectionClosed("stdout is closed")
        self._writer.write(data + b"\n")
        if self._paused:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drain_waiters.append(waiter)
            await waiter

    def _resume(self) -> None:
        self._paused = False
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def receive(self) -> bytes | None:
        line = await self._splitter.next_line(self._read_chunk)
        if line is not None and self._wire:
            self._wire.record("c2s", line)
        return line

    async def _read_chunk(self) -> bytes:
        if self._reader is not None:
            return await self._reader.read(_CHUNK)
        assert self._in_fd is not None
        return await asyncio.to_thread(os.read, self._in_fd, _CHUNK)

    def describe_close(self) -> str:
        return "the client closed stdin"

    async def close(self) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.close()
        self._resume()
        if self._wire:
            self._wire.close()


class _FlowControl(asyncio.Protocol):
    """Pauses senders while the stdout pipe is full, so a slow reader cannot balloon memory."""

    def __init__(self, owner: StdioServerTransport) -> None:
        self._owner = owner

    def pause_writing(self) -> None:
        self._owner._paused = True

    def resume_writing(self) -> None:
        self._owner._resume()

    def connection_lost(self, exc: Exception | None) -> None:
        self._owner._resume()


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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
