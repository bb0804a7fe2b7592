"""Benchmark: ``tools/call`` round trips over Streamable HTTP, sequential and with 32 in flight.

Two pairs, each in both protocol eras, measured in one run on the same machine (servers on
127.0.0.1, started here as subprocesses under uvicorn):

- runtime: mcpgen.runtime ``connect_http``  <->  tests/peers/runtime_server.py --http
           (mcpgen.runtime.http_server)
- sdk:     official SDK ``mcp.client.Client(url)``  <->  tests/peers/sdk_server.py --http
           (MCPServer, ``run("streamable-http")``)

    python bench/http_roundtrip.py [--n 500] [--concurrency 32] [--protocol both] [--json]

Target (issue 5): runtime >= 3x the SDK's calls/s.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PEERS = ROOT / "tests" / "peers"
PY = sys.executable
ERAS = {"legacy": "legacy", "modern": "2026-07-28"}

Call = Callable[[], Awaitable[Any]]


async def measure(call: Call, n: int, concurrency: int) -> float:
    """calls/s for n calls, one at a time (concurrency 1) or with `concurrency` in flight."""
    for _ in range(min(20, n)):  # warm-up: connections, imports, lazy paths
        await call()
    start = time.perf_counter()
    if concurrency <= 1:
        for _ in range(n):
            await call()
    else:
        counter = itertools.count()

        async def worker() -> None:
            while next(counter) < n:
                await call()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return n / (time.perf_counter() - start)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(script: str, *extra: str) -> Iterator[str]:
    """Start a peer with ``--http --port N``; yield its /mcp URL once it accepts connections."""
    port = free_port()
    proc = subprocess.Popen([PY, str(PEERS / script), "--http", "--port", str(port), *extra], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{script} exited with {proc.returncode} before listening")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{script} did not listen on port {port} within 30 s") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---- runtime ---------------------------------------------------------------------------------


async def bench_runtime(url: str, n: int, concurrency: int, protocol: str) -> tuple[float, float]:
    from mcpgen.runtime import connect_http

    async with connect_http(url, protocol=protocol, transport="streamable") as s:

        async def call() -> Any:
            result = await s.call_tool("echo", {"text": "hello"})
            assert result["content"][0]["text"] == "hello"

        return await measure(call, n, 1), await measure(call, n, concurrency)


# ---- official SDK ----------------------------------------------------------------------------


async def bench_sdk(url: str, n: int, concurrency: int, protocol: str) -> tuple[float, float]:
    from mcp.client import Client

    warnings.simplefilter("ignore")
    async with Client(url, mode=protocol) as c:

        async def call() -> Any:
            result = await c.call_tool("echo", {"text": "hello"})
            assert result.content[0].text == "hello"

        return await measure(call, n, 1), await measure(call, n, concurrency)


# ---- report ----------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=500, help="calls per measurement (default 500)")
    ap.add_argument("--concurrency", type=int, default=32, help="calls in flight in the concurrent run")
    ap.add_argument(
        "--protocol", default="both", help='"both" (default), "legacy" or "2026-07-28"; "auto" counts as 2026-07-28'
    )
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    ap.add_argument("--skip-sdk", action="store_true", help="leave out the official SDK pair")
    args = ap.parse_args()

    if args.protocol == "both":
        eras = dict(ERAS)
    elif args.protocol == "legacy":
        eras = {"legacy": "legacy"}
    else:
        eras = {"modern": "2026-07-28"}

    figures: dict[str, dict[str, float]] = {}
    with http_server("runtime_server.py") as url:
        for era, protocol in eras.items():
            seq, conc = asyncio.run(bench_runtime(url, args.n, args.concurrency, protocol))
            figures[f"runtime/{era}"] = {"sequential": seq, "concurrent": conc}
    if not args.skip_sdk:
        with http_server("sdk_server.py") as url:
            for era, protocol in eras.items():
                seq, conc = asyncio.run(bench_sdk(url, args.n, args.concurrency, protocol))
                figures[f"sdk/{era}"] = {"sequential": seq, "concurrent": conc}

    print(
        f"Streamable HTTP tools/call round trips: n={args.n}, concurrency={args.concurrency}, "
        f"python {platform.python_version()}, {os.cpu_count()} cpu"
    )
    print(f"{'pair':<18}{'sequential calls/s':>22}{'concurrent calls/s':>22}")
    for name, f in figures.items():
        print(f"{name:<18}{f['sequential']:>22,.0f}{f['concurrent']:>22,.0f}")

    ratios: dict[str, float] = {}
    targets: dict[str, bool] = {}
    for era in eras:
        rt, sdk = figures[f"runtime/{era}"], figures.get(f"sdk/{era}")
        if sdk is None:
            continue
        for kind in ("sequential", "concurrent"):
            ratio = rt[kind] / sdk[kind]
            ratios[f"runtime/sdk {era} {kind}"] = ratio
            targets[f"runtime >= 3x SDK ({era}, {kind})"] = ratio >= 3
    if ratios:
        print()
        for label, value in ratios.items():
            print(f"{label:<36}{value:>8.2f}x")
        print()
        for label, ok in targets.items():
            print(f"{'MET ' if ok else 'MISS'} {label}")
    if args.json:
        print(json.dumps({"n": args.n, "concurrency": args.concurrency, "figures": figures, "ratios": ratios}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
