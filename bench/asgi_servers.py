"""Benchmark: the generated server's ASGI app under its own server (uvicorn with the runtime's
guarded protocol, what `python -m PKG --http` runs) beside the same app under granian (PyPI; a
Rust HTTP server), both eras, one call at a time and 32 in flight, driven by the HTTP floor's
client (bench/_http_floor.py: the cheapest client there is, so the server's part shows).

    python bench/asgi_servers.py [--n 2000] [--rounds 3]

Reported per cell: medians over interleaved rounds of calls/s and of the server's CPU per call
(the server process and its children: granian serves from a worker process with Rust threads
beside Python's), and the median of the per-round ratios granian / uvicorn. Both servers run on
asyncio's own loop with httptools present (the `default` setup of http_roundtrip.py). Without
granian installed the bench says so and exits 0. No target: it decides whether granian would be
worth running by default (see docs/explanation/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import http_roundtrip as hr  # noqa: E402
from _http_floor import FloorPool  # noqa: E402
from _rows import record  # noqa: E402

_APP_MODULE = """\
from mcpgen.runtime.server.http.app import StreamableHttpApp
from {pkg}._generated import build_server
from {pkg}.handlers import Handlers

app = StreamableHttpApp(build_server(Handlers()))
"""


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its direct children (granian's worker)."""
    pids = [pid]
    with contextlib.suppress(OSError):
        pids += [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return sum(hr.cpu_seconds(p) for p in pids)


async def drive(url: str, era: str, in_flight: int, n: int, pid: int) -> tuple[float, float]:
    """(calls/s, server CPU us per call) for n echo calls with `in_flight` connections."""
    pool = await FloorPool.open(url, era, in_flight)
    try:
        for _ in range(50):  # warm-up
            assert await pool.call_echo("hello") == "hello"
        calls = iter(range(n))

        async def worker() -> None:
            for _ in calls:
                assert await pool.call_echo("hello") == "hello"

        cpu = tree_cpu(pid)
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        elapsed = time.perf_counter() - start
        return n / elapsed, (tree_cpu(pid) - cpu) / n * 1e6
    finally:
        pool.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="calls per measurement (default 2000)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    args = ap.parse_args()
    if importlib.util.find_spec("granian") is None:
        print("granian is not installed (pip install granian): nothing to compare")
        return 0
    tmp = Path(tempfile.mkdtemp())
    hr.generate(tmp)
    (tmp / "asgi_app.py").write_text(_APP_MODULE.format(pkg=hr.SERVER_PKG))
    hidden = hr.SETUPS["default"]
    ours, theirs = hr.free_port(), hr.free_port()
    granian = [hr.PY, "-m", "granian", "--interface", "asgi", "--loop", "asyncio", "--workers", "1"]
    granian += ["--port", str(theirs), "--log-level", "warning", "--no-ws", "asgi_app:app"]
    samples: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    with contextlib.ExitStack() as stack:
        servers = {
            "uvicorn": stack.enter_context(
                hr.http_server(
                    [hr.PY, "-m", hr.SERVER_PKG, "--http", "--port", str(ours)], ours, cwd=tmp, hidden=hidden
                )
            ),
            "granian": stack.enter_context(hr.http_server(granian, theirs, cwd=tmp, hidden=hidden)),
        }
        for round_ in range(args.rounds):
            for era in ("legacy", "2026-07-28"):
                for in_flight in (1, 32):
                    for name in ("uvicorn", "granian")[:: 1 if round_ % 2 == 0 else -1]:
                        url, pid = servers[name]
                        sample = asyncio.run(drive(url, era, in_flight, args.n, pid))
                        samples.setdefault((era, in_flight, name), []).append(sample)
            print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    print(f"generated server under uvicorn (guarded) vs granian, n={args.n}, {args.rounds} rounds, floor client")
    print("era        in flight   calls/s uvicorn  granian   ratio   server CPU us/call uvicorn  granian   ratio")
    for era in ("legacy", "2026-07-28"):
        for in_flight in (1, 32):
            uv, gr = samples[(era, in_flight, "uvicorn")], samples[(era, in_flight, "granian")]
            rate = statistics.median(g[0] / u[0] for u, g in zip(uv, gr, strict=True))
            # (a few calls may take less CPU than the clock's tick: no ratio then, not a crash)
            cpu = statistics.median(g[1] / u[1] if u[1] else float("nan") for u, g in zip(uv, gr, strict=True))
            record(
                f"granian / uvicorn server CPU per call, {era}, {in_flight} in flight",
                f"{statistics.median(u[1] for u in uv):,.0f} us (uvicorn)",
                f"{statistics.median(g[1] for g in gr):,.0f} us (granian)",
                cpu,
                "",
                None,
            )
            print(
                f"{era:10} {in_flight:>9} {statistics.median(u[0] for u in uv):>17,.0f} "
                f"{statistics.median(g[0] for g in gr):>8,.0f} {rate:>6.2f}x "
                f"{statistics.median(u[1] for u in uv):>26,.0f} "
                f"{statistics.median(g[1] for g in gr):>8,.0f} {cpu:>6.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
