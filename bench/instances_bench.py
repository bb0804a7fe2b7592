"""Benchmark: drawing instances of the captures' and conformance schemas with mcpgen's own
generator (`mcpgen.catalog.instances`, what `mcpgen mock` answers with) and with
hypothesis-jsonschema, when the installed hypothesis still works with it.

    python bench/instances_bench.py [--n 20] [--json]

hypothesis-jsonschema 0.23.1 fails on hypothesis 6.170 (`'many' object has no attribute
'more'`); in a venv with hypothesis 6.130 it runs, and this script then compares the two.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _rows import record  # noqa: E402

SOURCES = [
    ROOT / "tests/golden/inputs/everything.raw.json",
    ROOT / "tests/golden/inputs/time.raw.json",
    ROOT / "examples/conformance/schemas/tools.yaml",
]


def schemas() -> list[Any]:
    from mcpgen.sources.files import load_file

    found: list[Any] = []
    for source in SOURCES:
        catalog, problems = load_file(source)
        assert catalog is not None, problems
        for tool in catalog.tools:
            found += [s for s in (tool.input_schema, tool.output_schema) if s is not None]
    return found


def mcpgen_seconds(all_schemas: list[Any], n: int) -> float:
    from mcpgen.catalog.instances import InstanceGenerator

    start = time.perf_counter()
    for schema in all_schemas:
        generator = InstanceGenerator(schema, seed=0)
        for _ in range(n):
            generator.valid()
    return time.perf_counter() - start


def hypothesis_seconds(all_schemas: list[Any], n: int) -> float | str:
    """Seconds, or why hypothesis-jsonschema cannot run here."""
    try:
        from hypothesis import HealthCheck, given, settings
        from hypothesis_jsonschema import from_schema
    except ImportError as exc:
        return f"not installed ({exc.name})"
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    for schema in all_schemas:

        @settings(max_examples=n, database=None, suppress_health_check=list(HealthCheck), deadline=None)
        @given(from_schema(schema))
        def collect(value: Any) -> None:
            del value  # drawing is what is measured

        try:
            collect()
        except Exception as exc:  # the installed pair does not work together
            return f"fails: {type(exc).__name__}: {exc}"
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    all_schemas = schemas()
    ours = mcpgen_seconds(all_schemas, args.n)
    theirs = hypothesis_seconds(all_schemas, args.n)
    result = {"schemas": len(all_schemas), "draws_each": args.n, "mcpgen_s": ours, "hypothesis_jsonschema": theirs}
    draws = len(all_schemas) * args.n
    peer = f"{theirs:.3f} s" if isinstance(theirs, float) else str(theirs)[:40]
    ratio = ours / theirs if isinstance(theirs, float) and theirs > 0 else None
    record(f"{draws} instance draws vs hypothesis-jsonschema", f"{ours:.3f} s", peer, ratio, "", None)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{len(all_schemas)} schemas x {args.n} draws")
        print(f"mcpgen.catalog.instances: {ours:.3f} s")
        if isinstance(theirs, float):
            print(f"hypothesis-jsonschema:    {theirs:.3f} s ({theirs / ours:.0f}x slower)")
        else:
            print(f"hypothesis-jsonschema:    {theirs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
