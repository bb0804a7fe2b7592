"""How `--config` and a repeated `--server` are told apart, and what a package for many servers refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    servers = {"a": {"command": "no-such-command-a"}, "b": {"command": "no-such-command-b", "env": {"K": "v"}}}
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inspect", "--config", "mcp.json"], "--config needs exactly one --server NAME"),
        (["inspect", "--config", "mcp.json", "--server", "a", "--server", "b"], "exactly one --server"),
        (["client", "x.json", "--server", "a", "-o", "out"], "--server needs --config FILE"),
        (["client", "--config", "mcp.json", "--layout", "code-mode", "-o", "out"], "code-mode takes one server"),
        (["client", "--config", "mcp.json", "--runtime", "vendor", "-o", "out"], "imports the installed mcpgen"),
        (["client", "--config", "mcp.json", "--server", "c", "--server", "a", "-o", "out"], "no server named 'c'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(config: Path, args: list[str], message: str) -> None:
    done = mcpgen(*args, cwd=config.parent)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (config.parent / "out").exists()


def test_a_server_that_does_not_start_names_itself_and_writes_nothing(config: Path) -> None:
    done = mcpgen("client", "--config", "mcp.json", "-o", "out", "--connect-timeout", "5", cwd=config.parent)
    assert done.returncode == 2
    assert "server 'a'" in done.stderr and "cannot start" in done.stderr
    assert not (config.parent / "out").exists()
