"""Benchmark: generating from a big catalog with rich schemas, and the memory that takes.

A synthetic catalog (``rich_catalog``: every tool takes a bounded string, an integer with a
default, an enum, an array of ``$ref``-ed patterned strings and a ``$ref``-ed nested object,
plus one of five shapes: a nested object with a nullable field, a ``oneOf`` of two tagged
objects, an array of objects, a string map with an integer enum, an ``anyOf`` of scalars; every
other tool has an object ``outputSchema``). Each command a fresh process, alternating round by
round:

- client:  ``mcpgen client`` (models, client, catalog, ruff format)
- server:  ``mcpgen server`` (models, tables, base, handlers, ruff format)
- dcg:     ``datamodel-codegen --input-file-type mcp-tools`` on the same file: the models alone
- client, no formatter: ``mcpgen client`` with its formatter stubbed out (what generation costs
  besides formatting: the formatter is being replaced, so the cell shows where the rest stands)

then one ``mcpgen client`` and one ``mcpgen server`` run on a 2,000-tool catalog, for the peak
resident memory of the largest process of each (ru_maxrss of the child and what it waited for,
its datamodel-code-generator worker included).

    python bench/big_catalog.py [--tools 500] [--rounds 3] [--memory-tools 2000] [--by wall|cpu] [--json]

Each command is timed twice over: wall-clock seconds and the CPU seconds (user + system) of the
process and every child it waited for (its model workers); on a loaded machine wall-clock says
little, `--by cpu` takes the targets from the CPU figures.

Targets (issue 39): client and server each <= 0.5x dcg (median of per-round ratios); peak
memory for the 2,000-tool catalog <= 300 MB. Exit status 1 when a target is missed.
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
from typing import Any

from _rows import record

BIN = Path(sys.executable).parent
MEMORY_LIMIT_MB = 300.0

TAG = {"type": "string", "pattern": "^[a-z][a-z0-9-]{0,31}$"}
POINT = {
    "type": "object",
    "properties": {
        "lat": {"type": "number", "minimum": -90, "maximum": 90},
        "lon": {"type": "number", "minimum": -180, "maximum": 180},
    },
    "required": ["lat", "lon"],
    "additionalProperties": False,
}
HITS = {
    "type": "object",
    "properties": {
        "hits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "score": {"type": "number"}},
                "required": ["id"],
            },
        },
        "total": {"type": "integer", "minimum": 0},
        "status": {"type": "string", "enum": ["ok", "partial"]},
    },
    "required": ["hits", "total"],
}


def _shape(kind: int) -> dict[str, Any]:
    """The properties that differ between tools: one of five shapes."""
    if kind == 0:
        owner = {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": ["string", "null"]}},
            "required": ["id"],
        }
        after = {"type": "string", "format": "date-time"}
        return {"filter": {"type": "object", "properties": {"after": after, "owner": owner}}}
    if kind == 1:
        user = {"kind": {"const": "user"}, "id": {"type": "integer"}}
        group = {"kind": {"const": "group"}, "name": {"type": "string"}}
        return {
            "target": {
                "oneOf": [
                    {"type": "object", "properties": user, "required": ["kind", "id"], "additionalProperties": False},
                    {
                        "type": "object",
                        "properties": group,
                        "required": ["kind", "name"],
                        "additionalProperties": False,
                    },  # fmt: skip
                ]
            }
        }
    if kind == 2:
        item = {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "qty": {"type": "integer", "minimum": 1},
                "where": {"$ref": "#/$defs/Point"},
            },
            "required": ["sku", "qty"],
        }
        return {"items": {"type": "array", "minItems": 1, "items": item}}
    if kind == 3:
        return {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 32},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
        }
    return {
        "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    }


def rich_tool(i: int) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": f"What tool {i} looks for"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20},
        "mode": {"type": "string", "enum": ["fast", "exact", "fuzzy", f"custom-{i}"], "default": "fast"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "maxItems": 16, "uniqueItems": True},
        "where": {"$ref": "#/$defs/Point"},
        **_shape(i % 5),
    }
    tool: dict[str, Any] = {
        "name": f"tool_{i:05d}",
        "description": f"Synthetic tool number {i}, of shape {i % 5}.",
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": ["query"],
            "$defs": {"Point": POINT, "Tag": TAG},
        },
    }
    if i % 2 == 0:
        tool["outputSchema"] = HITS
    return tool


def rich_catalog(n: int) -> dict[str, Any]:
    """A `tools/list` result of n tools with rich schemas (deterministic)."""
    return {"tools": [rich_tool(i) for i in range(n)]}


def run(cmd: list[str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds of a fresh process, the CPU seconds it and the children it waited for spent
    (user + system), and its peak resident memory in MB (largest process of its tree)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{err.decode()[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # (Linux reports KiB)


# `mcpgen` as the installed command starts (the model workers first), formatting stubbed out.
_UNFORMATTED = """
import sys
from mcpgen.models import dcg
dcg.start()
import mcpgen.generate, mcpgen.pipeline
mcpgen.generate.format_files = lambda fs, formatter=None: []
from mcpgen.cli import run_and_exit
sys.argv = ["mcpgen", *sys.argv[1:]]
run_and_exit()
"""


def commands(source: Path, out: Path) -> dict[str, list[str]]:
    mcpgen = str(BIN / "mcpgen")
    dcg = [
        str(BIN / "datamodel-codegen"),
        *("--input", str(source), "--input-file-type", "mcp-tools", "--output", str(out / "dcg_models.py")),
        *("--output-model-type", "pydantic_v2.BaseModel", "--disable-timestamp"),
    ]
    return {
        "client": [mcpgen, "client", str(source), "-o", str(out / "big_client")],
        "server": [mcpgen, "server", str(source), "-o", str(out / "big_server")],
        "dcg": dcg,
        "client, no formatter": [sys.executable, "-c", _UNFORMATTED, "client", str(source), "-o", str(out / "raw")],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=int, default=500, help="tools in the timed catalog (default 500)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians are reported (default 3)")
    ap.add_argument("--memory-tools", type=int, default=2000, help="tools in the memory run (default 2000)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    ap.add_argument("--by", choices=("wall", "cpu"), default="wall", help="the time targets from wall or CPU seconds")
    args = ap.parse_args()

    seconds: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    peak: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as tmp_name:
        tmp = Path(tmp_name)
        source = tmp / "tools.json"
        source.write_text(json.dumps(rich_catalog(args.tools)), encoding="utf-8")
        cells = commands(source, tmp)
        order = list(cells)
        for round_no in range(args.rounds):
            for cell in order if round_no % 2 == 0 else order[::-1]:
                wall, cpu_s, _ = run(cells[cell], tmp)
                seconds.setdefault(cell, []).append(wall)
                cpu.setdefault(cell, []).append(cpu_s)
            print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        big = tmp / "memory.json"
        big.write_text(json.dumps(rich_catalog(args.memory_tools)), encoding="utf-8")
        for cell, cmd in commands(big, tmp / "memory").items():
            if cell in ("client", "server"):
                peak[cell] = run(cmd, tmp)[2]

    print(f"generation, {args.tools}-tool rich catalog: {args.rounds} alternating rounds (medians)")
    print(f"{'':<22}{'wall':>10}{'CPU':>10}")
    for cell, values in seconds.items():
        print(f"{cell:<22}{statistics.median(values):>8.2f} s{statistics.median(cpu[cell]):>8.2f} s")
    wall_ratios, cpu_ratios = (
        {
            cell: statistics.median(a / b for a, b in zip(by[cell], by["dcg"], strict=True))
            for cell in by
            if cell != "dcg"
        }
        for by in (seconds, cpu)
    )
    print()
    print(f"{'(median of per-round ratios)':<32}{'wall':>8}{'CPU':>8}")
    for cell, value in wall_ratios.items():
        print(f"{cell + ' / dcg':<32}{value:>7.2f}x{cpu_ratios[cell]:>7.2f}x")
    ratios = cpu_ratios if args.by == "cpu" else wall_ratios
    print()
    print(f"peak memory, {args.memory_tools} tools (largest process, its model worker included)")
    for cell, mb in peak.items():
        print(f"{cell:<22}{mb:>8.0f} MB")
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    # The targets are the commands users run; the unformatted cell is for reading only.
    timed = {cell: value for cell, value in ratios.items() if cell in ("client", "server")}
    targets = {f"mcpgen {cell} <= 0.5x datamodel-codegen alone": value <= 0.5 for cell, value in timed.items()}
    targets |= {
        f"mcpgen {cell}, {args.memory_tools} tools, peak memory <= {MEMORY_LIMIT_MB:.0f} MB": mb <= MEMORY_LIMIT_MB
        for cell, mb in peak.items()
    }
    for cell, value in timed.items():
        by = cpu if args.by == "cpu" else seconds
        ours, dcg = statistics.median(by[cell]), statistics.median(by["dcg"])
        record(f"{args.tools} rich tools: mcpgen {cell} / datamodel-codegen ({args.by})", f"{ours:.2f} s",
               f"{dcg:.2f} s", value, "<= 0.5x", value <= 0.5)  # fmt: skip
    for cell, mb in peak.items():
        record(f"{args.memory_tools} rich tools: mcpgen {cell} peak memory", f"{mb:.0f} MB", "", None,
               f"<= {MEMORY_LIMIT_MB:.0f} MB", mb <= MEMORY_LIMIT_MB)  # fmt: skip
    print()
    for label, ok in targets.items():
        print(f"{'MET ' if ok else 'MISS'} {label}")
    if args.json:
        print(json.dumps({"tools": args.tools, "seconds": seconds, "cpu_seconds": cpu, "ratios": wall_ratios,
                          "cpu_ratios": cpu_ratios, "peak_mb": peak}))  # fmt: skip
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
