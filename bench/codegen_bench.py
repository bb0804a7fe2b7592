"""Generation and import-time benchmark for `mcpgen client`.

Runs, in one go (each as a fresh process, best of N; compared commands alternate run by run):
  1. `mcpgen client` on the everything server's recorded catalog (bench/everything-fullcaps.raw.json, a
     copy of the live capture; its tools only) vs `datamodel-codegen --input-file-type mcp-tools` on the
     same tools (models only): issue 39's target is <= 1.0x, the median of per-round ratios;
  2. `mcpgen client` on synthetic catalogs of 100 and 2,000 tools (target: 2,000 < 20x of 100);
  3. import time of the generated client module vs `python -c "import json, asyncio"` (target < 3x),
     with the official SDK's client import for reference.

Usage: .venv/bin/python bench/codegen_bench.py [--repeat N] [--sizes 100,2000] [--by wall|cpu]

The everything cell is timed in wall-clock and in CPU seconds (the process and the children it
waited for); `--by cpu` takes its target from the CPU figures (wall-clock says little on a
loaded machine).

Each target is printed MET or MISS; the exit status is 1 if any is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _rows import record

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CAPTURE = REPO / "bench" / "everything-fullcaps.raw.json"  # the live capture, 17 tools


def synthetic(n: int) -> dict[str, object]:
    tools = []
    for i in range(n):
        t: dict[str, object] = {
            "name": f"tool-{i:05d}",
            "description": f"Synthetic tool number {i}.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    "mode": {"type": "string", "enum": ["fast", "exact", f"m{i}"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["query"],
            },
        }
        if i % 3 == 0:
            t["outputSchema"] = {
                "type": "object",
                "properties": {"hits": {"type": "array", "items": {"type": "string"}}, "total": {"type": "integer"}},
                "required": ["hits", "total"],
            }
        tools.append(t)
    return {"tools": tools}


def _once_both(cmd: list[str], **kw: object) -> tuple[float, float]:
    """Wall seconds of a fresh process, and the CPU seconds (user + system) it and the children it
    waited for spent (on a loaded machine the CPU figure is the one that says something)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return elapsed, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _once(cmd: list[str], **kw: object) -> float:
    return _once_both(cmd, **kw)[0]


def timed(cmd: list[str], repeat: int, **kw: object) -> float:
    """Best of `repeat` runs: on a shared machine the minimum is the least disturbed figure."""
    return min(_once(cmd, **kw) for _ in range(repeat))


Runs = tuple[list[float], list[float]]


def rounds(a: list[str], b: list[str], repeat: int) -> tuple[Runs, Runs]:
    """Every round's wall and CPU seconds of each, run alternately (a, b, a, b, ...) so both see
    the same load: ((wall of a, wall of b), (CPU of a, CPU of b))."""
    wall: Runs = ([], [])
    cpu: Runs = ([], [])
    for _ in range(repeat):
        for i, cmd in enumerate((a, b)):
            w, c = _once_both(cmd)
            wall[i].append(w)
            cpu[i].append(c)
    return wall, cpu


def side_by_side(a: list[str], b: list[str], repeat: int) -> tuple[float, float]:
    """Best of `repeat` for each, run alternately: on a shared machine the least disturbed figure."""
    (ta, tb), _ = rounds(a, b, repeat)
    return min(ta), min(tb)


def mcpgen_cmd(src: Path, out: Path) -> list[str]:
    return [str(BIN / "mcpgen"), "client", str(src), "-o", str(out)]


def dcg_cmd(src: Path, out: Path) -> list[str]:
    return [
        str(BIN / "datamodel-codegen"),
        "--input",
        str(src),
        "--input-file-type",
        "mcp-tools",
        "--output",
        str(out),
        "--output-model-type",
        "pydantic_v2.BaseModel",
        "--disable-timestamp",
    ]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="100,2000", help="the small and the large synthetic catalog (tools)")
    ap.add_argument("--by", choices=("wall", "cpu"), default="wall", help="the everything target from wall or CPU")
    ns = ap.parse_args()
    small, large = (int(x) for x in ns.sizes.split(","))
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        tools_doc = tmp / "everything-tools.json"
        tools_doc.write_text(json.dumps(json.loads(CAPTURE.read_text())["tools"]))
        (dcg_runs, gen_runs), (dcg_cpu, gen_cpu) = rounds(
            dcg_cmd(tools_doc, tmp / "dcg_models.py"), mcpgen_cmd(tools_doc, tmp / "everything_client"), ns.repeat
        )
        t_dcg, t_gen = min(dcg_runs), min(gen_runs)
        by_wall = statistics.median(g / d for g, d in zip(gen_runs, dcg_runs, strict=True))
        by_cpu = statistics.median(g / d for g, d in zip(gen_cpu, dcg_cpu, strict=True))
        everything = by_cpu if ns.by == "cpu" else by_wall
        rows.append(("datamodel-codegen --input-file-type mcp-tools (everything, models only)", t_dcg, "1.00x"))
        rows.append(
            ("mcpgen client (everything: models + client + formatting)", t_gen, f"{by_wall:.2f}x of DCG (median)")
        )
        rows.append(("datamodel-codegen (everything), CPU seconds", min(dcg_cpu), "1.00x"))
        rows.append(("mcpgen client (everything), CPU seconds", min(gen_cpu), f"{by_cpu:.2f}x of DCG (median)"))

        sizes = {}
        for n in (small, large):
            src = tmp / f"synthetic{n}.json"
            src.write_text(json.dumps(synthetic(n)))
            t_d, sizes[n] = side_by_side(
                dcg_cmd(src, tmp / f"dcg{n}.py"), mcpgen_cmd(src, tmp / f"syn{n}"), 1 if n > small else ns.repeat
            )
            rows.append((f"datamodel-codegen mcp-tools, {n} tools", t_d, ""))
            rows.append((f"mcpgen client, {n} tools", sizes[n], f"{sizes[n] / t_d:.2f}x of DCG"))
        scale = sizes[large] / sizes[small]
        rows.append((f"  ratio {large:,} / {small:,} tools", scale, "target < 20x"))

        env = {**os.environ, "PYTHONPATH": str(tmp)}
        py = sys.executable
        reps = ns.repeat * 3  # 9 by default; a tiny run (--repeat 1) times 3 imports each
        t_base = timed([py, "-c", "import json, asyncio"], reps, env=env)
        t_client = timed([py, "-c", "import everything_client.client"], reps, env=env)
        t_pkg = timed([py, "-c", "import everything_client"], reps, env=env)
        t_models = timed([py, "-c", "import everything_client.models"], reps, env=env)
        rows.append(('python -c "import json, asyncio"', t_base, "1.00x"))
        rows.append(
            ("import everything_client.client (generated)", t_client, f"{t_client / t_base:.2f}x (target < 3x)")
        )
        rows.append(("import everything_client (package)", t_pkg, f"{t_pkg / t_base:.2f}x"))
        rows.append(("import everything_client.models (pydantic, lazy)", t_models, f"{t_models / t_base:.2f}x"))
        try:
            t_sdk = timed([py, "-c", "import mcp.client"], reps, env=env)
            rows.append(("import mcp.client (official SDK, reference)", t_sdk, f"{t_sdk / t_base:.2f}x"))
        except SystemExit:
            pass
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'seconds':>8}  ratio")
    print("-" * (width + 30))
    for name, secs, ratio in rows:
        print(f"{name:<{width}}  {secs:8.3f}  {ratio}")
    targets = {
        "everything: mcpgen client <= 1.0x datamodel-codegen alone (issue 39)": everything <= 1.0,
        f"mcpgen client, {large:,} tools < 20x of {small:,}": scale < 20,
        "import of the generated client < 3x of json+asyncio": t_client / t_base < 3,
    }
    record(f"everything: mcpgen client / datamodel-codegen ({ns.by})", f"{t_gen:.2f} s", f"{t_dcg:.2f} s", everything,
           "<= 1.0x", everything <= 1.0)  # fmt: skip
    record(f"mcpgen client, {large:,} / {small:,} tools", f"{sizes[large]:.2f} s", f"{sizes[small]:.2f} s", scale,
           "< 20x", scale < 20)  # fmt: skip
    record("import everything_client.client / json+asyncio", f"{t_client:.3f} s", f"{t_base:.3f} s",
           t_client / t_base, "< 3x", t_client / t_base < 3)  # fmt: skip
    print()
    for label, ok in targets.items():
        print(f"{'MET ' if ok else 'MISS'} {label}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
