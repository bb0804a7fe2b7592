"""`make bench` (bench/run_all.py) prints one table: the rows each bench recorded, or, for a bench
that recorded none, one per MET/MISS line; a bench that fails without a verdict gets a row too."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def run_all() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        import run_all

        yield run_all
    finally:
        sys.path.remove(str(BENCH))


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake_bench.py"
    path.write_text(f"import sys\nsys.path.insert(0, {str(BENCH)!r})\nfrom _rows import record\n{body}")
    return path


def test_recorded_rows_make_the_table(run_all: ModuleType, tmp_path: Path) -> None:
    bench = script(
        tmp_path,
        'record("cold start", "0.300 s", "0.200 s", 1.5, "<= 1.5x", True)\n'
        'record("import", "0.1 s", "", None, "", None)\n'
        'print("MET cold start")\n',
    )
    code, rows = run_all.run(bench, [])
    assert code == 0
    assert [r.cells() for r in rows] == [
        ("fake_bench.py", "cold start", "0.300 s", "0.200 s", "1.50x", "<= 1.5x", "met"),
        ("fake_bench.py", "import", "0.1 s", "-", "-", "-", "-"),
    ]
    lines = run_all.table(rows).splitlines()
    assert lines[0].split() == ["bench", "cell", "ours", "peer", "ratio", "target", "met/missed"]
    assert len(lines) == 4 and "1.50x" in lines[2]


def test_a_bench_without_rows_gets_one_per_verdict_line(run_all: ModuleType, tmp_path: Path) -> None:
    bench = script(tmp_path, 'print("MET  fast enough")\nprint("MISS small enough")\nsys.exit(1)\n')
    code, rows = run_all.run(bench, [])
    assert code == 1
    assert [(r.cell, r.verdict) for r in rows] == [("fast enough", "met"), ("small enough", "MISSED")]


def test_a_bench_that_fails_without_a_verdict_gets_a_row(run_all: ModuleType, tmp_path: Path) -> None:
    bench = script(tmp_path, 'raise SystemExit("the peer is missing")\n')
    code, rows = run_all.run(bench, [])
    assert code == 1
    assert [(r.cell, r.verdict) for r in rows] == [("exited 1", "FAILED")]


def test_a_bench_run_alone_records_nothing(tmp_path: Path) -> None:
    import subprocess

    bench = script(tmp_path, 'record("x", "1", "2", 0.5, "", None)\nprint("done")\n')
    done = subprocess.run([sys.executable, str(bench)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "done\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake_bench.py"]
