"""Hostile schema files: one `mcpgen: error:` line, exit 2, within a few seconds."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest


def billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("name: x\ninputSchema: {type: object, properties: {p: {default: *i}}}")
    return "\n".join(lines) + "\n"


CASES = {
    "yaml_alias_bomb.yaml": billion_laughs(),
    "yaml_recursive.yaml": "name: x\ninputSchema: &s {type: object, properties: {p: *s}}\n",
    "deep.json": '{"name": "x", "inputSchema": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "deep.yaml": "name: x\ninputSchema: " + "[" * 100_000 + "]" * 100_000 + "\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["client", "inspect"])
def test_hostile_schema_is_one_line_exit_2_fast(name: str, command: str, tmp_path: Path) -> None:
    src = tmp_path / name
    src.write_text(CASES[name])
    assert len(CASES["yaml_alias_bomb.yaml"]) < 450
    args = [command, str(src)] + (["-o", str(tmp_path / "out")] if command == "client" else [])
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    took = time.monotonic() - start
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("mcpgen: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and took < 10, took
    assert not (tmp_path / "out").exists()
