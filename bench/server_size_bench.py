"""Size and generation time of a scaffolded server's `_generated/` (issue 12's budget).

For the server-everything capture and a synthetic 100-tool catalog: `mcpgen server` wall time
(fresh process, best of N), the lines `_generated/` carries outside the models (_models.py) and pure-data
modules against the budget (80 + 8 per tool; counted as tests/functional/server/generated_size.py
says), and the time to import the generated package and build its Server.

With --baseline DIR (a tree holding another mcpgen package, e.g. `git archive REV mcpgen
templates` unpacked, templates/ moved into mcpgen/), the same figures for that mcpgen too,
the two measured alternately so that load on a shared machine hits both alike.

Usage: .venv/bin/python bench/server_size_bench.py [--repeat N] [--baseline DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "functional" / "server"))

import generated_size as size  # noqa: E402
from _rows import record  # noqa: E402

CAPTURE = REPO / "tests" / "golden" / "inputs" / "everything.raw.json"


def generate(src: Path, out: Path, pythonpath: str) -> float:
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    # Run from the output's folder: from the repo, `python -m` would find this checkout's mcpgen first.
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=out.parent,
        env={**os.environ, "PYTHONPATH": pythonpath},
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"mcpgen server {src} failed:\n{done.stderr[-2000:]}")
    return elapsed


def import_time(package: Path, pythonpath: str) -> float:
    """A fresh interpreter imports the package and builds its Server."""
    code = f"import {package.name}.handlers as h, {package.name}._generated as g; g.build_server(h.Handlers())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(package.parent), pythonpath) if p)}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=package.parent, check=True, env=env)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best is reported (default 3)")
    ap.add_argument("--baseline", default=None, help="a tree holding another mcpgen to measure alongside")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    ns = ap.parse_args()
    versions = {"current": ""} | ({"baseline": str(Path(ns.baseline).resolve())} if ns.baseline else {})
    figures: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        synthetic = tmp / "synthetic100.json"
        synthetic.write_text(json.dumps(size.synthetic_catalog(100)), encoding="utf-8")
        for label, src, tools in (("everything", CAPTURE, 13), ("synthetic100", synthetic, 100)):
            gen = {v: float("inf") for v in versions}
            build = {v: float("inf") for v in versions}
            for _ in range(ns.repeat):
                for version, pythonpath in versions.items():  # alternately: both see the same load
                    out = tmp / version / f"{label}_server"
                    gen[version] = min(gen[version], generate(src, out, pythonpath))
                    build[version] = min(build[version], import_time(out, pythonpath))
            for version in versions:
                counts = size.counted_files(tmp / version / f"{label}_server")
                figures[f"{label}/{version}"] = {
                    "tools": tools,
                    "generate_s": round(gen[version], 3),
                    "import_and_build_s": round(build[version], 3),
                    "counted_lines": sum(counts.values()),
                    "budget": size.budget(tools),
                    "files": counts,
                }
    for label, f in figures.items():
        print(
            f"{label:<22} {f['tools']:>4} tools  generate {f['generate_s']:.3f} s  "
            f"import+build {f['import_and_build_s']:.3f} s  "
            f"_generated/ code {f['counted_lines']} lines (budget {f['budget']})  {f['files']}"
        )
    if ns.json:
        print(json.dumps(figures))
    current = [label for label in figures if label.endswith("/current")]  # a baseline is only compared
    missed = [
        label for label in current if int(str(figures[label]["counted_lines"])) > int(str(figures[label]["budget"]))
    ]
    for label in current:
        lines, allowed = figures[label]["counted_lines"], figures[label]["budget"]
        record(f"{label.split('/')[0]}: _generated/ code lines", f"{lines} lines", "", None, f"<= {allowed} lines",
               label not in missed)  # fmt: skip
        print(f"{'MISS' if label in missed else 'MET '} {label}: _generated/ code within its line budget")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
