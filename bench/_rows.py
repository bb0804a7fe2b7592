"""The rows a bench adds to `make bench`'s one table (bench/run_all.py).

run_all names a file in MCPGEN_BENCH_ROWS for each bench it runs; `record` appends one JSON line
per row to it. Run on its own, a bench prints its own table and `record` does nothing. A bench
that records nothing still gets a row per MET/MISS line it prints, without figures.
"""

from __future__ import annotations

import json
import os

ROWS_ENV = "MCPGEN_BENCH_ROWS"


def record(cell: str, ours: str, peer: str, ratio: float | None, target: str, met: bool | None) -> None:
    """One row: what was measured (`cell`), our figure and the peer's (with units), ours/peer,
    the target (e.g. "<= 0.5x", "" for none) and whether it was met (None: no target)."""
    path = os.environ.get(ROWS_ENV)
    if not path:
        return
    row = {"cell": cell, "ours": ours, "peer": peer, "ratio": ratio, "target": target, "met": met}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
