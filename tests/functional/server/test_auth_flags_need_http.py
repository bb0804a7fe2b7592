"""`--auth-*` flags protect HTTP only: a scaffolded server given them without `--http` refuses to
start (one line, exit 2) instead of serving stdio without the auth its operator asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "examples" / "weather" / "schemas"
ISSUER = ("--auth-issuer", "https://issuer.example.com")


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("auth_flags")
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", str(SCHEMAS), "-o", "weather_server"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return root


def serve(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPGEN_AUTH_")}
    return subprocess.run(
        [sys.executable, "-m", "weather_server", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )


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
def test_stdio_without_auth_flags_still_serves(scaffold: Path) -> None:
    done = serve(scaffold, "--wire-log", str(scaffold / "wire.log"))
    assert done.returncode == 0, done.stderr
