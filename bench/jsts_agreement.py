"""JSON Schema Test Suite agreement of generated `Args` models, per keyword file and overall.

    .venv/bin/python bench/jsts_agreement.py [--misses]

Generates ONE client for every group of tests/models/jsts (draft2020-12 and draft7) and
prints cases / agree / miss / refused per keyword file; agreement = agree / (agree + miss).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jsts_agreement_lib as lib  # noqa: E402
from _rows import record  # noqa: E402


def main() -> None:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        pkg, why, groups = lib.generate(Path(tmp), "jsts_bench_client")
        t1 = time.perf_counter()
        out = lib.measure(pkg, why, groups)
    rows = lib.table(out)
    print(f"{'draft':<13} {'keyword file':<24} {'cases':>5} {'agree':>5} {'miss':>4} {'refused':>7} {'agreement':>9}")
    totals: dict[str, list[int]] = {}
    for draft, file, n, agree, miss, refused in rows:
        print(f"{draft:<13} {file:<24} {n:>5} {agree:>5} {miss:>4} {refused:>7} {lib.agreement(agree, miss):>9.2%}")
        t = totals.setdefault(draft, [0, 0, 0, 0])
        for i, v in enumerate((n, agree, miss, refused)):
            t[i] += v
    for draft, (n, agree, miss, refused) in sorted(totals.items()):
        print(f"{draft:<13} {'(all)':<24} {n:>5} {agree:>5} {miss:>4} {refused:>7} {lib.agreement(agree, miss):>9.2%}")
    n, agree, miss, refused = (sum(t[i] for t in totals.values()) for i in range(4))
    print(f"{'overall':<13} {'':<24} {n:>5} {agree:>5} {miss:>4} {refused:>7} {lib.agreement(agree, miss):>9.2%}")
    print(f"(generation {t1 - t0:.1f}s, {len(groups)} tools in one run)")
    # One row for `make bench`: agreement has no peer and no target (the models test holds its floor).
    record(f"JSON Schema Test Suite agreement ({n} cases)", f"{lib.agreement(agree, miss):.2%}", "-", None, "", None)
    if "--misses" in sys.argv:
        for g, desc, what in out.miss:
            print(f"MISS {g.tool} [{g.description}] {desc}: {what}")
        seen = set()
        for g, _, reason in out.refused:
            if g.tool not in seen:
                seen.add(g.tool)
                print(f"REFUSED {g.tool} [{g.description}]: {reason}")


if __name__ == "__main__":
    main()
