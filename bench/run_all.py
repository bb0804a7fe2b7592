"""Run every benchmark in bench/, one after another, and print one table of what they measured.

    python bench/run_all.py [ARGS...]    # ARGS are passed to every script that takes them (e.g. --rounds 1)

An option a script does not list in its --help is left out for that script (and said so). Each
bench prints its own table as it finishes; at the end comes one table of every row they
recorded (bench/_rows.py): bench, cell, ours, peer, ratio, target, met or missed. A bench that
records no rows gets one per MET/MISS line it printed. Exit status 1 when a bench failed or
missed a target.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _rows import ROWS_ENV  # noqa: E402

COLUMNS = ("bench", "cell", "ours", "peer", "ratio", "target", "met/missed")


@dataclass(frozen=True)
class Row:
    bench: str
    cell: str
    ours: str = "-"
    peer: str = "-"
    ratio: str = "-"
    target: str = "-"
    verdict: str = "-"

    def cells(self) -> tuple[str, ...]:
        return (self.bench, self.cell, self.ours, self.peer, self.ratio, self.target, self.verdict)


def benches() -> list[Path]:
    """Every script in bench/ but this one and the helper modules (a leading underscore)."""
    return sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name and not p.name.startswith("_"))


def accepted(script: Path, args: list[str]) -> tuple[list[str], list[str]]:
    """The ARGS this script takes (an option and its value), and the options it does not."""
    help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True).stdout
    known = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", help_text))
    keep: list[str] = []
    dropped: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        has_value = "=" not in arg and i + 1 < len(args) and not args[i + 1].startswith("-")
        group = args[i : i + 2] if arg.startswith("-") and has_value else [arg]
        name = arg.split("=", 1)[0]
        if not arg.startswith("-") or name in known:
            keep += group
        else:
            dropped.append(name)
        i += len(group)
    return keep, dropped


def recorded_rows(bench: str, path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        r = json.loads(line)
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        verdict = "-" if r["met"] is None else ("met" if r["met"] else "MISSED")
        rows.append(Row(bench, r["cell"], r["ours"] or "-", r["peer"] or "-", ratio, r["target"] or "-", verdict))
    return rows


def verdict_rows(bench: str, stdout: str) -> list[Row]:
    """Rows from the MET/MISS lines of a bench that recorded none."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith(("MET ", "MISS")):
            rows.append(Row(bench, line[4:].strip(), verdict="met" if line.startswith("MET ") else "MISSED"))
    return rows


def run(script: Path, args: list[str]) -> tuple[int, list[Row]]:
    """Run one bench, its output shown as it comes; its exit status and rows."""
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-rows-") as tmp:
        rows_file = Path(tmp) / "rows.jsonl"
        env = {**os.environ, ROWS_ENV: str(rows_file)}
        proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            print(line, end="", flush=True)
            lines.append(line)
        code = proc.wait()
        rows = recorded_rows(script.name, rows_file) or verdict_rows(script.name, "".join(lines))
    if code != 0 and not any(r.verdict == "MISSED" for r in rows):
        rows.append(Row(script.name, f"exited {code}", verdict="FAILED"))
    return code, rows


def table(rows: list[Row]) -> str:
    body = [COLUMNS, *(r.cells() for r in rows)]
    widths = [max(len(line[i]) for line in body) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    failed = []
    rows: list[Row] = []
    for script in benches():
        print(f"== {script.name}", flush=True)
        args, dropped = accepted(script, sys.argv[1:]) if sys.argv[1:] else ([], [])
        if dropped:
            print(f"(not passed to {script.name}: {', '.join(dropped)})", flush=True)
        code, bench_rows = run(script, args)
        rows += bench_rows
        if code != 0:
            failed.append(script.name)
        print(flush=True)
    print(table(rows))
    if failed:
        print(f"\nfailed or missed a target: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
