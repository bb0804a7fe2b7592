"""Line and branch coverage per package of mcpgen, from the combined data of `make coverage`.

    python scripts/coverage_by_package.py          # after `coverage run ...` and `coverage combine`

Prints one row per package folder (mcpgen/runtime/server/auth, ...) and the total: covered of all
statements and of all branches. See docs/coverage.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("covered_lines", "num_statements", "covered_branches", "num_branches")


def per_package(files: dict[str, dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    sums: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    for name, data in files.items():
        package = Path(name).parent.as_posix()
        for key in ("total", package):
            for field in FIELDS:
                sums[key][field] += data["summary"][field]
    return dict(sums)


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def main() -> int:
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "json", "-q", "-o", "-"], cwd=ROOT, capture_output=True, text=True
    )
    if report.returncode != 0:
        raise SystemExit(f"coverage json failed: {report.stderr.strip() or report.stdout.strip()}")
    sums = per_package(json.loads(report.stdout)["files"])
    print(f"{'package':40} {'lines':>7} {'branches':>9}")
    for package in sorted(sums, key=lambda p: (p == "total", p)):
        row = sums[package]
        lines = share(row["covered_lines"], row["num_statements"])
        branches = share(row["covered_branches"], row["num_branches"])
        print(f"{package:40} {lines:>7} {branches:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
