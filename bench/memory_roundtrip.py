"""Benchmark: one typed tool call through a generated client and a generated server, in memory
(`AsyncClient.connect_memory(build_server(Handlers()))`) against the same pair over stdio
(`python -m weather_server` as a subprocess). Both use examples/weather.

    python bench/memory_roundtrip.py [--n 500] [--protocol auto] [--json]

Target (issue 19): an in-memory round trip costs less than 1/3 of the stdio one.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _rows import record

ROOT = Path(__file__).resolve().parents[1]
WEATHER = ROOT / "examples" / "weather"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(WEATHER))


def weather_client(folder: Path) -> Any:
    from mcpgen.generate import generate_client
    from mcpgen.options import ClientOptions
    from mcpgen.output.write import write_atomic
    from mcpgen.sources.files import load_many

    catalog, problems = load_many(sorted((WEATHER / "schemas").iterdir()))
    assert catalog is not None, problems
    write_atomic(generate_client(catalog, ClientOptions()), folder / "bench_weather_client")
    sys.path.insert(0, str(folder))
    return importlib.import_module("bench_weather_client")


async def per_call(call: Callable[[], Awaitable[Any]], n: int) -> float:
    """Seconds per call, sequential, after a warm-up."""
    for _ in range(min(20, n)):
        await call()
    start = time.perf_counter()
    for _ in range(n):
        await call()
    return (time.perf_counter() - start) / n


async def run(n: int, protocol: str, client: Any) -> dict[str, float]:
    from weather_server import build_server
    from weather_server.handlers import Handlers

    results: dict[str, float] = {}
    async with client.AsyncClient.connect_memory(build_server(Handlers()), protocol=protocol, drift="off") as c:
        results["memory"] = await per_call(lambda: c.list_cities(country="JP"), n)
    async with client.AsyncClient.connect_stdio(
        sys.executable, ["-m", "weather_server"], cwd=str(WEATHER), protocol=protocol, drift="off"
    ) as c:
        results["stdio"] = await per_call(lambda: c.list_cities(country="JP"), n)
    results["ratio"] = results["memory"] / results["stdio"]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--protocol", default="auto")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(run(args.n, args.protocol, weather_client(Path(tmp))))
    met = results["ratio"] < 1 / 3
    record("typed round trip, in memory / stdio", f"{results['memory'] * 1e6:.1f} us/call",
           f"{results['stdio'] * 1e6:.1f} us/call", results["ratio"], "< 0.33x", met)  # fmt: skip
    if args.json:
        print(json.dumps(results))
    else:
        print(f"in memory: {results['memory'] * 1e6:8.1f} us/call")
        print(f"stdio:     {results['stdio'] * 1e6:8.1f} us/call")
        print(f"ratio:     {results['ratio']:.3f}")
        print(f"{'MET ' if met else 'MISS'} in-memory typed round trip < 1/3 of stdio ({results['ratio']:.3f})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
