"""Hostile schema files: one `mcpgen: error:` line, exit 2, and bounded work.

The bound is on the work the process does, not on wall time (which a loaded CI machine
stretches several-fold): its CPU seconds beyond those of the same command refusing an ordinary
bad schema, and its peak memory. Measured on a busy two-core machine: at most 1.7 s of CPU
beyond the baseline (deep.yaml, 100,000 nested flow sequences) and 48 MB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

EXTRA_CPU_SECONDS = 4.0  # beyond the baseline refusal; an expanding bomb costs minutes
# Under `make coverage` every subprocess is traced (coverage sets COVERAGE_PROCESS_CONFIG for its
# subprocess patch), which makes pure-Python parsing several times dearer: the bound scales with
# it and still refuses an expanding bomb by far.
if "COVERAGE_PROCESS_CONFIG" in os.environ:
    EXTRA_CPU_SECONDS *= 4
# Peak memory beyond the baseline's (a forked child's peak counts the pytest process it was
# forked from, so only the difference says anything); an expanded bomb would take gigabytes.
EXTRA_RSS_MB = 200
TIMEOUT = 120  # a backstop only: a hung process is killed and fails the test


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


# An ordinary bad schema: what refusing anything costs (interpreter start, imports).
BASELINE = '{"name": "x", "inputSchema": {"type": "object", "properties": {"p": {"type": "nope"}}}}'


@dataclass(frozen=True)
class Measured:
    returncode: int
    stderr: str
    cpu_seconds: float  # user + system, this process and the children it waited for
    rss_mb: float


def measured(command: str, src: Path, cwd: Path) -> Measured:
    args = [command, str(src)] + (["-o", str(cwd / "out")] if command == "client" else [])
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcpgen.cli", *args], stdout=subprocess.DEVNULL, stderr=err, cwd=cwd
        )
        backstop = threading.Timer(TIMEOUT, proc.kill)
        backstop.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            backstop.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return Measured(proc.returncode, stderr, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Measured]:
    folder = tmp_path_factory.mktemp("baseline")
    (folder / "bad.json").write_text(BASELINE, encoding="utf-8")
    costs: dict[str, Measured] = {}
    for command in ("client", "inspect"):
        done = measured(command, folder / "bad.json", folder)
        assert done.returncode == 2, done.stderr
        costs[command] = done
    return costs


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["client", "inspect"])
def test_hostile_schema_is_one_line_exit_2_and_bounded(
    name: str, command: str, tmp_path: Path, baseline: dict[str, Measured]
) -> None:
    src = tmp_path / name
    src.write_text(CASES[name])
    assert len(CASES["yaml_alias_bomb.yaml"]) < 450
    done = measured(command, src, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("mcpgen: error: "), done.stderr
    assert "Traceback" not in done.stderr
    extra = done.cpu_seconds - baseline[command].cpu_seconds
    assert extra < EXTRA_CPU_SECONDS, f"{extra:.2f} s of CPU beyond refusing an ordinary bad schema"
    grown = done.rss_mb - baseline[command].rss_mb
    assert grown < EXTRA_RSS_MB, f"{grown:.0f} MB more than refusing an ordinary bad schema"
    assert not (tmp_path / "out").exists()
