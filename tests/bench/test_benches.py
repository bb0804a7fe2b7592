"""Every benchmark in bench/ runs once, at a tiny size, and prints its table: so that none can
rot unnoticed. Whether a target is met is not asserted (timings on a loaded CI machine would
make that a flaky test); what is asserted is that the exit status says it: 1 exactly when a
target line reads MISS, 0 when every one reads MET."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

# script -> (tiny arguments, a line of the table it must print)
RUNS: dict[str, tuple[list[str], str]] = {
    "stdio_roundtrip.py": (["--n", "10", "--concurrency", "4"], "sequential calls/s"),
    "http_roundtrip.py": (["--n", "10", "--rounds", "1", "--concurrency", "4"], "sequential calls/s"),
    "codegen_bench.py": (["--repeat", "1", "--sizes", "3,6"], "mcpgen client, 6 tools"),
    "server_size_bench.py": (["--repeat", "1"], "_generated/ code"),
    "jsts_agreement.py": ([], "overall"),
    "memory_roundtrip.py": (["--n", "20"], "in memory:"),
    "instances_bench.py": (["--n", "2"], "mcpgen.catalog.instances:"),
    "check_bench.py": (["--tools", "3", "--rounds", "1"], "check on an unchanged target"),
    "stdio_generated_pair.py": (["--n", "20", "--rounds", "1", "--concurrency", "4"], "sequential calls/s"),
}
# Measurements without a target line.
UNTARGETED = {"jsts_agreement.py", "instances_bench.py"}


def test_every_bench_is_listed() -> None:
    assert {p.name for p in BENCH.glob("*.py") if p.name != "run_all.py"} == set(RUNS)


@pytest.mark.slow
@pytest.mark.timeout(420)
@pytest.mark.parametrize("script", sorted(RUNS))
def test_bench_runs_and_prints_its_table(script: str) -> None:
    args, table_line = RUNS[script]
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=400, cwd=BENCH.parent
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert table_line in done.stdout, done.stdout[-3000:]
    targets = [line for line in done.stdout.splitlines() if line.startswith(("MET ", "MISS"))]
    missed = any(line.startswith("MISS") for line in targets)
    assert done.returncode == (1 if missed else 0), (done.returncode, targets, done.stderr[-2000:])
    if script not in UNTARGETED:
        assert targets, done.stdout[-2000:]
