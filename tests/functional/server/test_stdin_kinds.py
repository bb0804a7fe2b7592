"""A stdio server whose stdin is /dev/null or a regular file reads it like a pipe and leaves at EOF.

epoll refuses such descriptors (EPERM); the server must read them another way, answer what they
hold, and exit with status 0 and no traceback once they end. Checked with real subprocesses: a
scaffolded server (`python -m PKG`) and `mcpgen mock`, both on the runtime's stdio server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "examples" / "weather" / "schemas"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
EXIT_WITHIN = 20.0  # seconds; a hung server is killed here and fails the test


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdin_kinds")
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", str(SCHEMAS), "-o", "weather_server"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return root


def run(argv: list[str], stdin: int | IO[Any], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(argv, stdin=stdin, cwd=cwd, capture_output=True, text=True, timeout=EXIT_WITHIN, env=env)


def servers(root: Path) -> dict[str, list[str]]:
    return {
        "scaffold": [sys.executable, "-m", "weather_server"],
        "mock": [sys.executable, "-m", "mcpgen.cli", "mock", str(SCHEMAS)],
    }


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["scaffold", "mock"])
def test_stdin_from_dev_null_ends_the_session_cleanly(scaffold: Path, kind: str) -> None:
    done = run(servers(scaffold)[kind], subprocess.DEVNULL, scaffold)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "PermissionError" not in done.stderr, done.stderr
    assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["scaffold", "mock"])
def test_stdin_from_a_file_is_answered_then_ends_the_session(scaffold: Path, kind: str) -> None:
    requests = scaffold / f"{kind}_requests.jsonl"
    requests.write_text(json.dumps(INITIALIZE) + "\n", encoding="utf-8")
    with requests.open("rb") as stdin:
        done = run(servers(scaffold)[kind], stdin, scaffold)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = done.stdout.splitlines()
    answer = json.loads(line)
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18"
