"""Errors a newcomer meets (issue 35, item 8), through the real `mcpgen` command: each says what
happened and exits as it should."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BAD = {"type": "object", "properties": {"a": {"type": "int"}}}


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_skip_invalid_with_every_tool_invalid_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    tools = [{"name": "one", "inputSchema": BAD}, {"name": "two"}]
    (tmp_path / "tools.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    for kind in ("client", "server"):
        done = mcpgen(kind, "tools.json", "-o", "out", "--skip-invalid", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "every tool is invalid: nothing left to generate" in done.stderr
        assert "'one'" in done.stderr and "'two'" in done.stderr
        assert not (tmp_path / "out").exists()


def test_skip_invalid_with_one_valid_tool_still_generates_it(tmp_path: Path) -> None:
    tools = [{"name": "one", "inputSchema": BAD}, {"name": "ok", "inputSchema": {"type": "object"}}]
    (tmp_path / "tools.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    done = mcpgen("client", "tools.json", "-o", "out", "--skip-invalid", cwd=tmp_path)
    assert done.returncode == 0 and "(1 tool)" in done.stderr, done.stderr


def test_lint_into_a_reader_that_stops_ends_quietly(tmp_path: Path) -> None:
    # Enough findings to fill the pipe many times over: lint is still writing when `head` goes.
    tools = [
        {"name": f"ns.tool{i}", "inputSchema": {"type": "object", "additionalProperties": False}} for i in range(3000)
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    argv = [sys.executable, "-m", "mcpgen.cli", "lint", "tools.json"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # `| head -1`
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert "ns.tool" in first
    assert "BrokenPipeError" not in err and "Traceback" not in err and "internal error" not in err
