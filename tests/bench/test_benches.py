"""Every benchmark in bench/ runs once, at a tiny size, and prints its table: so that none can
rot unnoticed. Whether a target is met is not asserted (timings on a loaded CI machine would
make that a flaky test); what is asserted is that the exit status says it: 1 exactly when a
target line reads MISS, 0 when every one reads MET."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cluster import needs_nginx
from tests.serving import needs_peer

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
    "cluster_bench.py": (["--n", "40", "--rounds", "1", "--concurrency", "4"], "x 1 worker"),
    "cold_start.py": (["--tools", "3", "--rounds", "1"], "server ours/fastmcp"),
    "big_catalog.py": (["--tools", "5", "--rounds", "1", "--memory-tools", "10"], "peak memory, 10 tools"),
    "asgi_servers.py": (["--n", "20", "--rounds", "1"], "generated server under uvicorn (guarded) vs granian"),
    "http_instructions.py": (["--n", "20", "--setups", "default"], "Server instructions per tools/call"),
}
# Measurements without a target line.
UNTARGETED = {"jsts_agreement.py", "instances_bench.py", "asgi_servers.py", "http_instructions.py"}
# Peers a bench needs: skipped without them outside CI, failed in CI.
needs_valgrind = needs_peer(
    shutil.which("callgrind_control") is None, "valgrind is not installed (apt-get install valgrind)"
)
PEERS = {"cluster_bench.py": [needs_nginx], "http_instructions.py": [needs_valgrind]}


def test_every_bench_is_listed() -> None:
    # and `make bench` (bench/run_all.py) runs exactly these: every script but itself and helpers
    scripts = {p.name for p in BENCH.glob("*.py") if p.name != "run_all.py" and not p.name.startswith("_")}
    assert scripts == set(RUNS)
    sys.path.insert(0, str(BENCH))
    try:
        import run_all
    finally:
        sys.path.remove(str(BENCH))
    assert {p.name for p in run_all.benches()} == set(RUNS)


@pytest.mark.slow
@pytest.mark.timeout(420)
@pytest.mark.parametrize("script", [pytest.param(name, marks=PEERS.get(name, [])) for name in sorted(RUNS)])
def test_bench_runs_and_prints_its_table(script: str, tmp_path: Path) -> None:
    args, table_line = RUNS[script]
    rows = tmp_path / "rows.jsonl"
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=400,
        cwd=BENCH.parent,
        env={**os.environ, "MCPGEN_BENCH_ROWS": str(rows)},
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert table_line in done.stdout, done.stdout[-3000:]
    targets = [line for line in done.stdout.splitlines() if line.startswith(("MET ", "MISS"))]
    missed = any(line.startswith("MISS") for line in targets)
    assert done.returncode == (1 if missed else 0), (done.returncode, targets, done.stderr[-2000:])
    if script not in UNTARGETED:
        assert targets, done.stdout[-2000:]
    else:  # no MET/MISS line to stand for it: its figures reach `make bench`'s table as rows
        recorded = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
        assert recorded and all(row["ours"] not in ("", "-") for row in recorded), recorded
