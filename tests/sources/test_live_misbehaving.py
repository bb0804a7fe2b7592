"""Live sources that misbehave, through the real `mcpgen` command and a real server process:
a server printing garbage or hanging is given up on at --connect-timeout (within half a second,
counted from the server's own start), the error quotes what it printed (escaped, bounded),
and Ctrl-C stops mcpgen at once with one error line and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Writes the moment it started to a file, prints a banner and junk (escape codes, a long line)
# on stdout instead of MCP, then neither reads nor exits; SIGTERM is ignored too. In mode
# "read" it first reads mcpgen's first message (the initialize request), then says it started.
HUNG_SERVER = r"""
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[2] == "read":
    sys.stdin.readline()
open(sys.argv[1], "w").write(repr(time.time()))
if sys.argv[2] == "garbage":
    print("Welcome to \x1b[31mMyServer\x1b[0m v1.0!", flush=True)
    print("x" * 5000, flush=True)
time.sleep(600)
"""


def _start(tmp_path: Path, mode: str, timeout: float) -> tuple[subprocess.Popen[str], Path]:
    server = tmp_path / "hung_server.py"
    server.write_text(HUNG_SERVER)
    started = tmp_path / "started"
    argv = [sys.executable, "-m", "mcpgen.cli", "client", "-o", str(tmp_path / "out")]
    argv += ["--connect-timeout", str(timeout), "--", sys.executable, str(server), str(started), mode]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    return proc, started


def _server_start(started: Path, limit: float = 60.0) -> float:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if started.exists() and started.read_text():
            return float(started.read_text())
        time.sleep(0.02)
    raise AssertionError("the server never started")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["garbage", "silent"])
def test_connect_timeout_is_honoured_and_the_output_quoted(tmp_path: Path, mode: str) -> None:
    timeout = 2.0
    proc, started = _start(tmp_path, mode, timeout)
    try:
        # The server never answers: only mcpgen's own timeout ends the run, well before this one.
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    _server_start(started)
    assert proc.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcpgen: error: "), err
    assert "did not" in lines[0] and f"{timeout:g}s" in lines[0], lines[0]
    if mode == "garbage":
        assert "Welcome to \\x1b[31mMyServer\\x1b[0m v1.0!" in lines[0], lines[0]
        assert len(lines[0]) < 600  # the 5000-character line is cut short
    else:
        assert "printed" not in lines[0]
    assert out == "" and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_ctrl_c_stops_at_once_without_a_traceback(tmp_path: Path) -> None:
    proc, started = _start(tmp_path, "read", 30.0)
    try:
        _server_start(started)  # the server has read the initialize request: mcpgen waits for its answer
        os.kill(proc.pid, signal.SIGINT)
        # Before its own 30 s timeout: ignoring Ctrl-C would end in that timeout's error, or later.
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130 and err == "mcpgen: error: interrupted\n" and out == "", err
