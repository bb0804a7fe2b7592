"""An HTTP server subprocess for a test: a free 127.0.0.1 port, wait until it listens, stop it."""

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def serving(
    argv: Sequence[str],
    *,
    path: str = "/mcp",
    timeout: float = 30,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run `argv` (every "{port}" in it replaced by a free port) until it listens; yield its URL.

    The server gets its own process group, so whatever it starts is stopped with it.
    """
    port = free_port()
    cmd = [a.replace("{port}", str(port)) for a in argv]
    log = tempfile.TemporaryFile()  # a file, not a pipe: a chatty server must never block on stderr
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while not _listening(port):
            if proc.poll() is not None:
                log.seek(0)
                err = log.read().decode(errors="replace")
                raise AssertionError(f"{cmd} exited with {proc.returncode}: {err[-1500:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{cmd} did not listen on {port} within {timeout} s")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()
