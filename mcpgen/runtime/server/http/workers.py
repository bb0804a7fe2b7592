"""`--workers N`: N forked worker processes serving one address, each on its own listening socket.

The supervisor (the process the user started) binds the sockets, forks N workers, then only
watches them. Where the system has SO_REUSEPORT (Linux), it binds one listening socket per worker
slot to the same address: the kernel then hashes each new connection to one of them, so the
workers get even shares. One socket shared by every worker (the fallback where SO_REUSEPORT is
missing or refused) hands each connection to whichever worker wakes first: the busiest stay
busiest (measured: 2 workers served 1.53x one worker's calls/s shared, see the performance page).
A restarted worker takes over its slot's socket, still open in the supervisor, with the
connections queued on it. A worker that exits unasked is started again after a backoff that doubles while
crashes keep coming; too many crashes in a short window (a worker that cannot even start, say)
end the supervisor with one line and exit status 1 rather than restarting forever. SIGTERM or
SIGINT stops every worker (SIGTERM, then SIGKILL once the grace period is over) and the
supervisor exits 0.

Each worker builds its own server from the factory it is given, so nothing a handler opened
(a connection, a thread, a file) is shared across a fork, and serves its slot's inherited socket
under uvicorn. A worker never outlives its
supervisor: it holds the read end of a pipe whose only write end is the supervisor's, and stops
when that pipe reads end-of-file, however the supervisor ended (even SIGKILL).

Handshake-era sessions live in the process that opened them, so several workers need
`--stateless` or a shared store (the command line says so before anything starts: see
`server/command.py`). Forking needs POSIX; one worker, the default, is the plain single process
of `serve_http`.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType

from ...core.errors import ServerSetupError
from ..options import ServeOptions
from ..request_state import share_key_with_children
from ..server import Server
from .serving import serve_http

# The listen backlog uvicorn uses when it binds the socket itself.
BACKLOG = 2048
# A worker that cannot build its server (a ServerSetupError) exits with this status (sysexits'
# EX_CONFIG): each one would fail alike, so the supervisor gives up at once instead of restarting.
SETUP_FAILED = 78


@dataclass(frozen=True)
class Supervision:
    """How the supervisor restarts and stops its workers (seconds unless said otherwise)."""

    # The first restart waits this long; each crash within `crash_window` doubles it.
    restart_delay: float = 0.1
    max_restart_delay: float = 5.0
    # This many crashes within `crash_window` mean a crash loop: the supervisor gives up.
    crash_limit: int = 5
    crash_window: float = 30.0
    # A stopping worker gets this long to finish its requests before SIGKILL.
    stop_timeout: float = 10.0


def serve_http_workers(
    build: Callable[[], Server], options: ServeOptions | None = None, *, supervision: Supervision | None = None
) -> None:
    """Serve `build()`'s server over Streamable HTTP on `options.workers` processes (blocking).

    One worker is `serve_http(build(), options)` in this process. More fork a supervisor's
    workers, each calling `build()` itself and serving with the same options. Returns once a
    signal stopped them; SystemExit(1) on a crash loop or when the address cannot be bound.
    """
    options = options or ServeOptions()
    if options.workers <= 1:
        try:
            server = build()
        except ServerSetupError as refused:
            raise refused.as_exit() from None
        serve_http(server, options)
        return
    try:
        listeners = bind_listeners(options.host, options.port, options.workers)
    except OSError as exc:
        raise SystemExit(f"cannot listen on {options.host}:{options.port}: {exc}") from None
    # An MRTR retry may reach another worker than its first round: they must sign alike.
    share_key_with_children()
    try:
        url = _url_of(listeners[0], options.path)
        print(f"serving MCP on {url} ({options.workers} workers)", file=sys.stderr, flush=True)
        quiet = dataclasses.replace(options, announce=False)

        def serve(slot: int) -> None:
            own = listeners[slot % len(listeners)]
            for other in listeners:  # (the supervisor keeps them all for restarts)
                if other is not own:
                    other.close()
            serve_http(build(), quiet, sockets=[own])

        status = _Supervisor(serve, options.workers, supervision or Supervision()).run()
    finally:
        for listener in listeners:
            listener.close()
    if status:
        raise SystemExit(status)


class _Supervisor:
    """Forks the workers, restarts the ones that die, stops them all on SIGTERM/SIGINT."""

    def __init__(self, serve: Callable[[int], None], count: int, supervision: Supervision) -> None:
        self.serve = serve
        self.count = count
        self.rules = supervision
        self.workers: dict[int, int] = {}  # pid -> slot
        self.restarts: list[tuple[float, int]] = []  # (when, slot)
        self.crashes: collections.deque[float] = collections.deque()
        self.signals: list[int] = []
        # Workers read this pipe; it reads end-of-file once the write end, ours alone, closes.
        self.lifeline_read, self.lifeline_write = os.pipe()
        # Signal handlers write here (set_wakeup_fd), so the wait below wakes at once.
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(self.wake_write, False)

    def run(self) -> int:
        handled = (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD)
        previous = {sig: signal.signal(sig, self._on_signal) for sig in handled}
        previous_wakeup = signal.set_wakeup_fd(self.wake_write)
        try:
            for slot in range(self.count):
                try:
                    self._start(slot)
                except OSError as exc:  # no process to spare: nothing would serve
                    print(f"cannot start worker {slot + 1} of {self.count}: {exc}", file=sys.stderr, flush=True)
                    self._stop_all()
                    return 1
            return self._watch()
        finally:
            signal.set_wakeup_fd(previous_wakeup)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for fd in (self.lifeline_read, self.lifeline_write, self.wake_read, self.wake_write):
                os.close(fd)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signals.append(signum)

    def _watch(self) -> int:
        while True:
            if any(sig in (signal.SIGTERM, signal.SIGINT) for sig in self.signals):
                self._stop_all()
                return 0
            self.signals.clear()
            given_up = self._reap()
            if given_up is not None:
                print(given_up, file=sys.stderr, flush=True)
                self._stop_all()
                return 1
            now = time.monotonic()
            for when, slot in [r for r in self.restarts if r[0] <= now]:
                self.restarts.remove((when, slot))
                try:
                    pid = self._start(slot)
                except OSError as exc:  # out of processes or memory for now: try again later
                    print(f"cannot restart a worker: {exc}", file=sys.stderr, flush=True)
                    self.restarts.append((now + self.rules.max_restart_delay, slot))
                    continue
                print(f"worker {pid} started", file=sys.stderr, flush=True)
            # Signals wake this wait; the timeout covers the next restart (and a lost wake-up).
            timeout = min([when - now for when, _ in self.restarts] + [1.0])
            select.select([self.wake_read], [], [], max(0.0, timeout))
            self._drain_wakeups()

    def _reap(self) -> str | None:
        """Collect the workers that ended; schedule their restarts. A line when crashes loop."""
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid == 0:
                return None
            slot = self.workers.pop(pid, None)
            if slot is None:
                continue
            now = time.monotonic()
            self.crashes.append(now)
            while self.crashes and self.crashes[0] < now - self.rules.crash_window:
                self.crashes.popleft()
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == SETUP_FAILED:
                return "a worker cannot build the server (its line above): giving up"
            how = _describe_exit(status)
            if len(self.crashes) >= self.rules.crash_limit:
                return (
                    f"workers ended {len(self.crashes)} times in {self.rules.crash_window:g} s "
                    f"(the last, {pid}, {how}): giving up"
                )
            delay = min(self.rules.max_restart_delay, self.rules.restart_delay * 2 ** (len(self.crashes) - 1))
            print(f"worker {pid} {how}; restarting it in {delay:g} s", file=sys.stderr, flush=True)
            self.restarts.append((now + delay, slot))
        return None

    def _start(self, slot: int) -> int:
        sys.stdout.flush()  # else both processes would write what is still buffered
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            os._exit(self._be_worker(slot))
        self.workers[pid] = slot
        return pid

    def _be_worker(self, slot: int) -> int:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            # Until uvicorn takes them over (and after it hands them back), a stop signal ends
            # this worker through SystemExit, so that it exits 0 like any stopped server.
            signal.signal(signal.SIGTERM, _exit_quietly)
            signal.signal(signal.SIGINT, _exit_quietly)
            for fd in (self.lifeline_write, self.wake_read, self.wake_write):
                os.close(fd)
            watcher = threading.Thread(
                target=_stop_with_supervisor, args=(self.lifeline_read, self.rules.stop_timeout), daemon=True
            )
            watcher.start()
            self.serve(slot)
            return 0
        except ServerSetupError as refused:  # every worker would fail alike: the supervisor gives up
            print(f"worker {os.getpid()}: {refused.as_exit().code}", file=sys.stderr, flush=True)
            return SETUP_FAILED
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                return exc.code or 0
            print(f"worker {os.getpid()}: {exc.code}", file=sys.stderr, flush=True)
            return 1
        except BaseException as exc:  # a worker's end is the supervisor's business: one line, then exit
            print(f"worker {os.getpid()} failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()

    def _stop_all(self) -> None:
        """SIGTERM every worker, wait up to stop_timeout, SIGKILL the ones left; reap them all."""
        self.restarts.clear()
        for pid in self.workers:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + self.rules.stop_timeout
        while self.workers and time.monotonic() < deadline:
            for pid in list(self.workers):
                if _reaped(pid):
                    del self.workers[pid]
            time.sleep(0.02)
        for pid in list(self.workers):
            _signal(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            del self.workers[pid]

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_read, 512):
                pass
        except BlockingIOError:
            pass


def _stop_with_supervisor(lifeline: int, grace: float) -> None:
    """In a worker: once the supervisor is gone, stop gracefully, and for good after `grace`."""
    try:
        while os.read(lifeline, 1):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(grace)
    os._exit(1)


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _reaped(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid


def _describe_exit(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"was killed by {name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def bind_listeners(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` listening TCP sockets on host:port (the first address `host` resolves to), bound
    with SO_REUSEPORT so that the kernel spreads connections evenly over them; one socket, for
    every worker to share, where SO_REUSEPORT is missing or refused. Port 0 picks one free port,
    the same for all. (Only a process of the same user may join a SO_REUSEPORT group on Linux.)"""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    # Bound plainly first, as one shared socket is: an address in use (even by another
    # SO_REUSEPORT group of this user, which a reuse-port bind would silently join) is refused.
    shared = socket.create_server(address[:2], family=family, backlog=BACKLOG)
    if count <= 1 or getattr(socket, "SO_REUSEPORT", None) is None:
        return [shared]
    where = shared.getsockname()[:2]  # (port 0: the free port the system picked)
    shared.close()
    listeners: list[socket.socket] = []
    try:
        for _ in range(count):
            listeners.append(socket.create_server(where, family=family, backlog=BACKLOG, reuse_port=True))
        return listeners
    except (OSError, ValueError):  # refused here (ValueError: Python cannot set it): share one
        for listener in listeners:
            listener.close()
    return [socket.create_server(where, family=family, backlog=BACKLOG)]


def _url_of(listener: socket.socket, path: str) -> str:
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in str(host) else str(host)
    return f"http://{shown}:{port}{path}"
