"""How a scaffolded server (`python -m PKG`) starts for stdio, checked with real subprocesses.

- stdin from /dev/null or a regular file: epoll refuses such descriptors (EPERM); the server must
  read them another way, answer what they hold, and exit with status 0 and no traceback once they
  end. `mcpgen mock` runs on the same stdio server and is checked the same way.
- `--auth-*` flags protect HTTP only: given without `--http` the server refuses to start (one
  line, exit 2) instead of serving stdio without the auth its operator asked for; so do the other
  HTTP-only flags (a store, limits, host and port), while the same settings from the environment
  (the deployment's) leave a stdio server alone.
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
    root = tmp_path_factory.mktemp("stdio_startup")
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
    # No MCPGEN_AUTH_* from the environment: only the flags under test turn auth on.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPGEN_AUTH_")} | {"PYTHONPATH": str(cwd)}
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


ISSUER = ("--auth-issuer", "https://issuer.example.com")


def serve(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "weather_server", *args], subprocess.DEVNULL, root)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (ISSUER, "--auth-issuer"),
        ((*ISSUER, "--auth-resource", "https://mcp.example.com/mcp", "--auth-scope", "read"), "--auth-scope"),
    ],
)
def test_auth_flags_without_http_are_refused(scaffold: Path, flags: tuple[str, ...], named: str) -> None:
    done = serve(scaffold, *flags)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.endswith("only apply with --http") and named in line and "--auth-issuer" in line


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (("--store", "redis://127.0.0.1:6379/0"), "--store"),
        (("--stateless",), "--stateless"),
        (("--max-body-bytes", "10"), "--max-body-bytes"),
        (("--port", "9000", "--allowed-origin", "https://app.example"), "--port, --allowed-origin"),
    ],
)
def test_other_http_only_flags_without_http_are_refused(scaffold: Path, flags: tuple[str, ...], named: str) -> None:
    # Ignored, they would leave the operator believing in a shared store or limits that are not there.
    done = serve(scaffold, *flags)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.endswith(f"{named} only apply with --http"), line


@pytest.mark.slow
def test_http_settings_from_the_environment_do_not_stop_a_stdio_server(scaffold: Path) -> None:
    # The deployment's environment (a store, limits) is not a mistake on this command line.
    env = {**os.environ, "MCPGEN_STORE": "redis://127.0.0.1:6379/0", "MCPGEN_MAX_BODY_BYTES": "10"}
    done = subprocess.run(
        [sys.executable, "-m", "weather_server"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=scaffold,
        env=env,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_stdio_without_auth_flags_still_serves(scaffold: Path) -> None:
    done = serve(scaffold, "--wire-log", str(scaffold / "wire.log"))
    assert done.returncode == 0, done.stderr
