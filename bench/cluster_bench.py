"""Benchmark: a scaffolded HTTP server on one worker vs two, behind a real nginx doing plain round-robin.

The generated pair of bench/http_roundtrip.py (an ``AsyncClient`` generated from
bench/echo_tool.json calling ``echo(text=...)``, and the server package scaffolded from the same
file), stateless 2026-07-28 era, 32 calls in flight, each setup behind its own nginx
(tests/cluster.py's ``round_robin``; Debian's nginx):

- 1 worker:     ``python -m PKG --http --stateless``
- --workers 2:  ``python -m PKG --http --stateless --workers 2`` (one socket, two forked workers)
- 2 processes:  two single-worker servers, nginx alternating between them

The rounds are interleaved (every round measures each setup once, the order rotating from round
to round); reported are the median calls/s of each setup and the median of the per-round ratios
to the 1-worker figure. The load generator, nginx and the workers share this machine's cores.

Second part: the handshake-era (``initialize`` session) per-call latency of one server with a
shared Redis store (``--store redis://...`` on a real redis-server, tests/cluster.py's
``redis_server``) vs the default in-memory store, as a ratio, calls one at a time, interleaved
rounds likewise. Skipped, saying so, while the server has no ``--store`` option.

    python bench/cluster_bench.py [--n 2000] [--rounds 5] [--concurrency 32] [--json]

Target (issue 23): ``--workers 2`` >= 1.3x the calls/s of 1 worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType

from http_roundtrip import PY, ROOT, SERVER_PKG, free_port, generate, http_server, measure

sys.path.insert(0, str(ROOT))
from tests.cluster import NGINX, REDIS_SERVER, redis_server, round_robin  # noqa: E402

MODERN = "2026-07-28"
TARGET = 1.3
SETUPS = ("1 worker", "--workers 2", "2 processes")


async def calls_per_second(client: ModuleType, url: str, n: int, concurrency: int, protocol: str) -> float:
    async with client.AsyncClient.connect_http(url, protocol=protocol) as c:

        async def call() -> None:
            result = await c.echo(text="hello")
            assert result == "hello"

        return await measure(call, n, concurrency)


# nginx keeps idle upstream connections for 60 s: a server that closed one sooner could do so
# just as nginx sends it a request, which nginx answers 502 (it never replays a POST).
KEEP_ALIVE = ["--keep-alive-timeout", "75"]


@contextmanager
def server(folder: Path, *flags: str) -> Iterator[str]:
    """One scaffolded server (`python -m PKG --http ...flags`); yields its base URL."""
    port = free_port()
    argv = [PY, "-m", SERVER_PKG, "--http", "--port", str(port), *KEEP_ALIVE, *flags]
    with http_server(argv, port, cwd=folder):
        yield f"http://127.0.0.1:{port}"


def has_store_option(folder: Path) -> bool:
    """Whether the scaffolded server takes `--store` (the shared store of issue 23's part A)."""
    done = subprocess.run(
        [PY, "-m", SERVER_PKG, "--help"], cwd=folder, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    return re.search(r"^\s+--store\b", done.stdout, re.MULTILINE) is not None


def workers_part(client: ModuleType, folder: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """calls/s of each setup, one figure per round."""
    samples: dict[str, list[float]] = {name: [] for name in SETUPS}
    with ExitStack() as stack:
        one = stack.enter_context(server(folder, "--stateless"))
        two = stack.enter_context(server(folder, "--stateless", "--workers", "2"))
        pair = [stack.enter_context(server(folder, "--stateless")) for _ in range(2)]
        urls = {
            "1 worker": stack.enter_context(round_robin(folder / "nginx-one", [one])).url,
            "--workers 2": stack.enter_context(round_robin(folder / "nginx-workers", [two])).url,
            "2 processes": stack.enter_context(round_robin(folder / "nginx-pair", pair)).url,
        }
        for round_no in range(args.rounds):
            shift = round_no % len(SETUPS)
            for name in SETUPS[shift:] + SETUPS[:shift]:
                samples[name].append(
                    asyncio.run(calls_per_second(client, urls[name], args.n, args.concurrency, MODERN))
                )
            print(f"workers: round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return samples


def store_part(client: ModuleType, folder: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """Per-call latency (µs, calls one at a time) of the handshake era, in-memory vs Redis store."""
    samples: dict[str, list[float]] = {"in-memory": [], "redis": []}
    n = max(10, args.n // 4)
    with ExitStack() as stack:
        redis_url = stack.enter_context(redis_server(folder))
        urls = {
            "in-memory": stack.enter_context(server(folder)) + "/mcp",
            "redis": stack.enter_context(server(folder, "--store", redis_url)) + "/mcp",
        }
        for round_no in range(args.rounds):
            order = list(urls) if round_no % 2 == 0 else list(urls)[::-1]
            for name in order:
                rate = asyncio.run(calls_per_second(client, urls[name], n, 1, "legacy"))
                samples[name].append(1e6 / rate)
            print(f"store: round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return samples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="calls per measurement (default 2000; a quarter for latency)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported (default 5)")
    ap.add_argument("--concurrency", type=int, default=32, help="calls in flight (default 32)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if not os.access(NGINX, os.X_OK):
        print(f"nginx is not installed ({NGINX}; apt-get install nginx): cannot measure", file=sys.stderr)
        return 1

    report: dict[str, object] = {"n": args.n, "rounds": args.rounds, "concurrency": args.concurrency}
    with tempfile.TemporaryDirectory(prefix="mcpgen-cluster-bench-") as tmp:
        folder = Path(tmp)
        client = generate(folder)
        workers = workers_part(client, folder, args)
        store: dict[str, list[float]] | None = None
        store_skipped = ""
        if not has_store_option(folder):
            store_skipped = "the scaffolded server has no --store option yet (the shared store of issue 23)"
        elif not os.access(REDIS_SERVER, os.X_OK):
            store_skipped = f"redis-server is not installed ({REDIS_SERVER}; apt-get install redis-server)"
        else:
            store = store_part(client, folder, args)

    print(
        f"Generated pair behind nginx round-robin, {MODERN} era: n={args.n} per measurement, "
        f"concurrency={args.concurrency}, {args.rounds} interleaved rounds (medians), "
        f"python {platform.python_version()}, {os.cpu_count()} cpu"
    )
    print(f"{'setup':<16}{'calls/s':>12}{'x 1 worker':>12}{'min':>8}{'max':>8}   (per-round ratios)")
    ratios: dict[str, float] = {}
    for name in SETUPS:
        per_round = [value / base for value, base in zip(workers[name], workers["1 worker"], strict=True)]
        ratios[name] = statistics.median(per_round)
        print(
            f"{name:<16}{statistics.median(workers[name]):>12,.0f}{ratios[name]:>11.2f}x"
            f"{min(per_round):>7.2f}x{max(per_round):>7.2f}x"
        )
    report.update(workers=workers, ratios=ratios)

    print()
    if store is None:
        print(f"SKIP handshake-era latency with a Redis store: {store_skipped}")
        if store_skipped.startswith("redis-server") and os.environ.get("CI"):
            return 1  # in CI a missing peer is a failure, never a quiet skip
    else:
        per_round = [r / m for r, m in zip(store["redis"], store["in-memory"], strict=True)]
        report.update(store=store, store_ratio=statistics.median(per_round))
        print("Handshake-era per-call latency, calls one at a time, one server process:")
        for name, values in store.items():
            print(f"{name + ' store':<20}{statistics.median(values):>10,.0f} µs")
        print(
            f"{'redis / in-memory':<20}{statistics.median(per_round):>10.2f}x"
            f"   (per-round ratios {min(per_round):.2f}x to {max(per_round):.2f}x)"
        )

    print()
    met = ratios["--workers 2"] >= TARGET
    print(f"{'MET ' if met else 'MISS'} --workers 2 >= {TARGET}x the calls/s of 1 worker")
    if args.json:
        print(json.dumps(report))
    return 0 if met else 1  # a missed target is a failed run


if __name__ == "__main__":
    sys.exit(main())
