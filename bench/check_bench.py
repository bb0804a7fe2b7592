"""Benchmark: `mcpgen generate --check` on an unchanged target against a full generation.

One project with a client and a server target, both from a synthetic catalog (bench/codegen_bench.py's),
generated once; then, each a fresh run of the `mcpgen` command (what a CI step runs), alternating
run by run:

- generate:    `mcpgen generate` (everything regenerated and written)
- check:       `mcpgen generate --check`, the manifest settling it (MCPGEN_TRUST_MANIFEST=1: this
               is a source checkout, where the fast path is otherwise off)
- check-full:  `mcpgen generate --check` regenerating in memory (MCPGEN_TRUST_MANIFEST=0)

    python bench/check_bench.py [--tools 100] [--rounds 5] [--json]

Target (issue 24): check <= 0.10x generate (median of per-round ratios). Exit status 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _rows import record  # noqa: E402
from codegen_bench import synthetic  # noqa: E402

PYPROJECT = """\
[project]
name = "bench"

[tool.mcpgen.targets.client]
kind = "client"
source = "tools.json"
output = "out/bench_client"

[tool.mcpgen.targets.server]
kind = "server"
source = "tools.json"
output = "out/bench_server"
name = "bench_server"
"""


def run(args: list[str], cwd: Path, trust: str | None) -> float:
    env = dict(os.environ)
    env.pop("MCPGEN_TRUST_MANIFEST", None)
    if trust is not None:
        env["MCPGEN_TRUST_MANIFEST"] = trust
    start = time.perf_counter()
    mcpgen = Path(sys.executable).parent / "mcpgen"
    r = subprocess.run([str(mcpgen), *args], cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        raise SystemExit(f"mcpgen {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=int, default=100, help="tools in the synthetic catalog (default 100)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds; medians are reported (default 5)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = ap.parse_args()

    cells = {
        "generate": (["generate"], None),
        "check": (["generate", "--check"], "1"),
        "check-full": (["generate", "--check"], "0"),
    }
    samples: dict[str, list[float]] = {name: [] for name in cells}
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as tmp:
        project = Path(tmp)
        (project / "tools.json").write_text(json.dumps(synthetic(args.tools)))
        (project / "pyproject.toml").write_text(PYPROJECT)
        run(["generate"], project, None)
        order = list(cells)
        for round_no in range(args.rounds):
            for name in order if round_no % 2 == 0 else order[::-1]:
                argv, trust = cells[name]
                samples[name].append(run(argv, project, trust))
            print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    print(f"generate --check on an unchanged project: {args.tools} tools, client + server targets, "
          f"{args.rounds} alternating rounds (medians)")  # fmt: skip
    for name, values in samples.items():
        print(f"{name:<12}{statistics.median(values):>8.2f} s")
    ratios = {
        other: [a / b for a, b in zip(samples[other], samples["generate"], strict=True)]
        for other in ("check", "check-full")
    }
    print()
    for other, values in ratios.items():
        print(
            f"{other + '/generate':<24}{statistics.median(values):>7.2f}x"
            f"  (min {min(values):.2f}x, max {max(values):.2f}x)"
        )
    met = statistics.median(ratios["check"]) <= 0.10
    check, generate = statistics.median(samples["check"]), statistics.median(samples["generate"])
    record(f"{args.tools} tools: generate --check (unchanged) / generate", f"{check:.2f} s", f"{generate:.2f} s",
           statistics.median(ratios["check"]), "<= 0.10x", met)  # fmt: skip
    print()
    print(f"{'MET ' if met else 'MISS'} check on an unchanged target <= 0.10x a full generation")
    if args.json:
        print(json.dumps({"tools": args.tools, "samples": samples}))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
