"""Shared helpers for the runtime interop and fault tests (no pytest-asyncio: plain asyncio.run)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "tests" / "peers"
PY = sys.executable
SDK_SERVER = str(PEERS / "sdk_server.py")
RUNTIME_SERVER = str(PEERS / "runtime_server.py")
FAULTY_SERVER = str(PEERS / "faulty_server.py")
EVERYTHING_JS = PEERS / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"

T = TypeVar("T")


def run(coro: Awaitable[T], timeout: float = 60.0) -> T:
    """Run one test coroutine with an overall deadline so a hang fails with a traceback."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


async def wait_until(pred: Callable[[], bool], timeout: float, what: str, interval: float = 0.02) -> None:
    """Poll ``pred`` until it holds; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for: {what}")
        await asyncio.sleep(interval)


def proc_state(pid: int) -> str | None:
    """The /proc state letter of ``pid`` (``Z`` = zombie), or None if it no longer exists."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def assert_process_gone(pid: int | None, timeout: float = 10.0) -> None:
    """The spawned server must be gone (exited *and* reaped: a zombie still answers kill(pid, 0))."""
    assert pid is not None, "session.process_pid is None for a stdio connection"
    deadline = time.monotonic() + timeout
    while pid_exists(pid):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"server process {pid} still exists {timeout}s after close (state {proc_state(pid)!r})"
            )
        time.sleep(0.02)


def children_of(pid: int) -> dict[int, str]:
    """Direct children of ``pid`` from /proc: {child pid: 'state cmdline'}."""
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != pid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found[int(entry)] = f"{fields[0]} {cmd}"
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
    return found


def read_lines(path: Path) -> list[str]:
    try:
        return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def text_of(result: dict[str, Any]) -> str:
    """Concatenated text content of a raw CallToolResult dict."""
    return "".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def slow_events(path: Path, event: str) -> list[str]:
    """Lines ``<event> <seconds>`` that the peers' ``slow`` tool wrote to its --cancel-log file."""
    return [line for line in read_lines(path) if line.startswith(event + " ")]
