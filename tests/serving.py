"""Server subprocesses for tests, started one way everywhere: a 127.0.0.1 port, a wait that
fails fast (the server died, or never listened), one retry on a port lost to a race, and a stop
that takes the server's whole process group with it.

    with serving([sys.executable, "server.py", "--port", "{port}"]) as url: ...
    server = ServerProcess(argv, log_dir=tmp_path).start(); ...; server.stop()

"{port}" may appear in the arguments and in the values of `env` (for servers that read PORT).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

# A port is chosen by binding port 0 and releasing it; another process may take it before the
# server binds. The server then dies saying so, and gets another port (this many in all).
PORT_ATTEMPTS = 3
_ADDRESS_IN_USE = ("address already in use", "eaddrinuse", "errno 98")


def needs_peer(missing: bool, reason: str) -> pytest.MarkDecorator:
    """Mark a test whose peer may be missing: skipped outside CI, failed when CI is set."""
    return pytest.mark.peer_required(missing=missing, reason=reason)


def free_port() -> int:
    """A port nothing listened on a moment ago: for tests that need a refused connection. To run
    a server, use `serving` or `ServerProcess`, which handle losing the port to a race."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


class ServerProcess:
    """One server subprocess on 127.0.0.1; `start()` returns once it listens, `stop()` ends it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        path: str = "/mcp",
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        log_dir: Path | None = None,
        port: int | None = None,
    ) -> None:
        self.argv_template = list(argv)
        # A fixed port, for a server restarted where its clients expect it (a lost race then fails).
        self.fixed_port = port
        self.path = path
        self.cwd = cwd
        self.env_template = env or {}
        self.log_dir = log_dir
        self.port = 0
        self.argv: list[str] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_path: Path | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}{self.path}"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        for _ in range(PORT_ATTEMPTS):
            if self._start_once(timeout):
                return self
        raise AssertionError(f"{self.argv} lost its port to another process {PORT_ATTEMPTS} times: {self.tail()}")

    def _start_once(self, timeout: float) -> bool:
        """True once listening; False if the port was taken first; AssertionError otherwise."""
        self.port = self.fixed_port or free_port()
        if _listening(self.port):
            if self.fixed_port:
                raise AssertionError(f"port {self.port} is taken: cannot start {self.argv_template}")
            return False  # taken between free_port() and now: its listener is not ours
        self.argv = [a.replace("{port}", str(self.port)) for a in self.argv_template]
        env = {**os.environ, **{k: v.replace("{port}", str(self.port)) for k, v in self.env_template.items()}}
        if self.log_dir is not None:
            self._log_path = self.log_dir / f"server-{self.port}.log"
        else:
            handle, name = tempfile.mkstemp(prefix="server-", suffix=".log")
            os.close(handle)
            self._log_path = Path(name)
        # A file, not a pipe: a chatty server must never block on a full stderr pipe.
        with open(self._log_path, "wb") as log:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: whatever it starts stops with it
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                if any(marker in self.tail().lower() for marker in _ADDRESS_IN_USE):
                    return False
                raise AssertionError(f"{self.argv} exited with {self.proc.returncode} before listening: {self.tail()}")
            if _listening(self.port):
                # Still alive a moment later: had another process taken the port, the server's
                # own bind would have failed and it would be exiting now.
                time.sleep(0.1)
                if self.proc.poll() is None:
                    return True
                continue
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"{self.argv} did not listen on {self.port} within {timeout} s: {self.tail()}")
            time.sleep(0.05)

    def assert_alive(self) -> None:
        """For module-scoped servers: fail with the server's own output if it has died since."""
        assert self.proc is not None and self.proc.poll() is None, f"{self.argv} died: {self.tail()}"

    def output(self) -> str:
        if self._log_path is None:
            return ""
        try:
            return self._log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def tail(self, size: int = 2000) -> str:
        return self.output()[-size:]

    def stop(self) -> None:
        proc = self.proc
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                except ProcessLookupError:
                    proc.wait()
            else:
                proc.wait()
        if self.log_dir is None and self._log_path is not None:
            self._log_path.unlink(missing_ok=True)


@contextmanager
def serving(
    argv: Sequence[str],
    *,
    path: str = "/mcp",
    timeout: float = 30,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run `argv` until it listens; yield its URL; stop it (and its children) afterwards."""
    server = ServerProcess(argv, path=path, cwd=cwd, env=env)
    server.start(timeout)
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def started(
    argv: Sequence[str],
    *,
    path: str = "/mcp",
    timeout: float = 30,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    log_dir: Path | None = None,
) -> Iterator[ServerProcess]:
    """Like `serving`, yielding the ServerProcess (its port, log, liveness)."""
    server = ServerProcess(argv, path=path, cwd=cwd, env=env, log_dir=log_dir)
    server.start(timeout)
    try:
        yield server
    finally:
        server.stop()
