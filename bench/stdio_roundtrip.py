"""Benchmark: ``tools/call`` round trips over stdio, sequential and with 32 in flight.

Three pairs, measured in one run on the same machine:

- runtime: mcpgen.runtime client  <->  tests/peers/runtime_server.py (mcpgen.runtime.Server)
- sdk:     official SDK ``mcp.client.Client``  <->  tests/peers/sdk_server.py (MCPServer)
- floor:   a minimal asyncio JSON-RPC client  <->  a stdlib process that answers every line
           with a canned CallToolResult (what a pipe round trip with JSON costs in Python)

    python bench/stdio_roundtrip.py [--n 1000] [--concurrency 32] [--protocol auto] [--json]

Targets (issue 2): runtime >= 0.5x the floor sequentially (within 2x), and >= 5x the SDK's calls/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from _rows import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PEERS = ROOT / "tests" / "peers"
PY = sys.executable

# The floor server: parse the id, answer with a canned result. Kept tiny on purpose.
FLOOR_SERVER = r"""
import json, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(msg["id"]).encode()
              + b',"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}\n')
    out.flush()
"""

Call = Callable[[], Awaitable[Any]]


async def measure(call: Call, n: int, concurrency: int) -> float:
    """calls/s for n calls, one at a time (concurrency 1) or with `concurrency` in flight."""
    for _ in range(min(20, n)):  # warm-up: imports, caches, JIT-less but lazy paths
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


# ---- runtime ---------------------------------------------------------------------------------


async def bench_runtime(n: int, concurrency: int, protocol: str) -> tuple[float, float]:
    from mcpgen.runtime import connect_stdio

    async with connect_stdio(PY, [str(PEERS / "runtime_server.py")], protocol=protocol) as s:

        async def call() -> Any:
            result = await s.call_tool("echo", {"text": "hello"})
            assert result["content"][0]["text"] == "hello"

        return await measure(call, n, 1), await measure(call, n, concurrency)


# ---- official SDK ----------------------------------------------------------------------------


async def bench_sdk(n: int, concurrency: int, protocol: str) -> tuple[float, float]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    warnings.simplefilter("ignore")
    params = StdioServerParameters(command=PY, args=[str(PEERS / "sdk_server.py")])
    mode = "auto" if protocol == "auto" else protocol
    async with Client(params, mode=mode) as c:

        async def call() -> Any:
            result = await c.call_tool("echo", {"text": "hello"})
            assert result.content[0].text == "hello"

        return await measure(call, n, 1), await measure(call, n, concurrency)


# ---- floor -----------------------------------------------------------------------------------


class FloorClient:
    """The least a Python client can do: write a line, match the response id, resolve a future."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            msg = json.loads(line)
            fut = self.pending.pop(msg["id"], None)
            if fut is not None and not fut.done():
                fut.set_result(msg["result"])

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None
        msg_id = next(self.ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = fut
        req = {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        self.proc.stdin.write(json.dumps(req, separators=(",", ":")).encode() + b"\n")
        return await fut


@contextlib.asynccontextmanager
async def floor_pair() -> AsyncIterator[tuple[Call, int]]:
    """The floor client's one call, and the floor server's pid, while the server runs."""
    proc = await asyncio.create_subprocess_exec(
        PY, "-c", FLOOR_SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**24
    )
    client = FloorClient(proc)
    try:

        async def call() -> Any:
            result = await client.call_tool("echo", {"text": "hello"})
            assert result["content"][0]["text"] == "hello"

        yield call, proc.pid
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        client.reader.cancel()


async def bench_floor(n: int, concurrency: int) -> tuple[float, float]:
    async with floor_pair() as (call, _):
        return await measure(call, n, 1), await measure(call, n, concurrency)


# ---- report ----------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000, help="calls per measurement (default 1000)")
    ap.add_argument("--concurrency", type=int, default=32, help="calls in flight in the concurrent run")
    ap.add_argument("--protocol", default="auto", help='"auto", "legacy" or "2026-07-28" for both MCP pairs')
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    ap.add_argument("--skip-sdk", action="store_true", help="leave out the official SDK pair")
    args = ap.parse_args()

    figures: dict[str, dict[str, float]] = {}
    pairs: list[tuple[str, Callable[[], Awaitable[tuple[float, float]]]]] = [
        ("floor", lambda: bench_floor(args.n, args.concurrency)),
        ("runtime", lambda: bench_runtime(args.n, args.concurrency, args.protocol)),
    ]
    if not args.skip_sdk:
        pairs.append(("sdk", lambda: bench_sdk(args.n, args.concurrency, args.protocol)))
    for name, fn in pairs:
        seq, conc = asyncio.run(fn())
        figures[name] = {"sequential": seq, "concurrent": conc}

    print(
        f"stdio tools/call round trips: n={args.n}, concurrency={args.concurrency}, protocol={args.protocol}, "
        f"python {platform.python_version()}, {os.cpu_count()} cpu"
    )
    print(f"{'pair':<10}{'sequential calls/s':>22}{'concurrent calls/s':>22}")
    for name, f in figures.items():
        print(f"{name:<10}{f['sequential']:>22,.0f}{f['concurrent']:>22,.0f}")

    rt, fl = figures["runtime"], figures["floor"]
    ratios: dict[str, float] = {
        "runtime/floor sequential": rt["sequential"] / fl["sequential"],
        "runtime/floor concurrent": rt["concurrent"] / fl["concurrent"],
    }
    if "sdk" in figures:
        sdk = figures["sdk"]
        ratios["runtime/sdk sequential"] = rt["sequential"] / sdk["sequential"]
        ratios["runtime/sdk concurrent"] = rt["concurrent"] / sdk["concurrent"]
    print()
    for label, value in ratios.items():
        print(f"{label:<28}{value:>8.2f}x")

    targets = {"runtime within 2x of floor (sequential)": ratios["runtime/floor sequential"] >= 0.5}
    if "sdk" in figures:
        targets["runtime >= 5x SDK (sequential)"] = ratios["runtime/sdk sequential"] >= 5
        targets["runtime >= 5x SDK (concurrent)"] = ratios["runtime/sdk concurrent"] >= 5
    print()
    for label, ok in targets.items():
        print(f"{'MET ' if ok else 'MISS'} {label}")
    bounds = {"runtime/floor sequential": 0.5, "runtime/sdk sequential": 5.0, "runtime/sdk concurrent": 5.0}
    for label, value in ratios.items():  # `make bench`'s table
        pair, kind = label.split(" ")
        peer = pair.split("/")[1]
        bound = bounds.get(label)
        record(f"stdio runtime pair {kind}, vs {peer}", f"{figures['runtime'][kind]:,.0f} calls/s",
               f"{figures[peer][kind]:,.0f} calls/s", value, "" if bound is None else f">= {bound:g}x",
               None if bound is None else value >= bound)  # fmt: skip
    if args.json:
        print(json.dumps({"n": args.n, "concurrency": args.concurrency, "figures": figures, "ratios": ratios}))
    return 0 if all(targets.values()) else 1  # a missed target is a failed run


if __name__ == "__main__":
    sys.exit(main())
