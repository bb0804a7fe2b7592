"""Benchmark: the instructions a Streamable HTTP server executes per tools/call, the generated
server beside the HTTP floor (bench/_http_floor.py), both eras, 1 and 32 calls in flight.

Wall-clock and even CPU time move with the machine's load (a shared 2-core box stretches both);
an instruction count does not. Each server runs under valgrind's callgrind
(`valgrind --tool=callgrind`), driven by the floor's client (the cheapest client there is) from
this process, outside valgrind. For each cell: warm-up calls, `callgrind_control --zero`, n calls,
`callgrind_control --dump`; the dump's total instructions (Ir) / n is the cell's figure: every
instruction the server process runs for a call, from the socket read to the socket write
(uvicorn, httptools, the event loop, the app). Valgrind runs the process 20-50x slower, so n
is small; the count per call barely depends on n once warm (a few hundred calls give 3 digits).
What a server runs while idle (uvicorn's 0.1 s tick, which valgrind's slowness and the machine's
load would let into a cell in varying amounts) is measured first, per second, and taken out of
each cell by its duration.

    python bench/http_instructions.py [--n 300] [--setups default,extra] [--json]

Setups as in bench/http_roundtrip.py: `default` (httptools on asyncio's loop, what
`pip install mcpgen` gives) and `extra` (httptools + uvloop, the `http` extra). No target of its
own: it is the load-independent view of http_roundtrip's ">= 0.8x the floor" (reported as
floor / ours, the throughput ratio the instruction counts allow on one core). Without valgrind
it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import http_roundtrip as hr  # noqa: E402
from _http_floor import FloorPool  # noqa: E402
from _rows import record  # noqa: E402

VALGRIND = shutil.which("valgrind")
CONTROL = shutil.which("callgrind_control")
SERVERS = ("ours", "floor")
ERAS = ("legacy", "2026-07-28")
IN_FLIGHT = (1, 32)
STARTUP_SECONDS = 300  # python + uvicorn + the runtime importing under valgrind, on a loaded machine


def under_callgrind(
    argv: list[str], port: int, out: Path, cwd: Path, hidden: tuple[str, ...]
) -> contextlib.AbstractContextManager[tuple[str, int]]:
    """The server `argv` running under callgrind (writing to `out`), listening on `port`."""
    assert VALGRIND is not None
    runner = (VALGRIND, "-q", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-line=no")
    return hr.http_server(argv, port, cwd=cwd, hidden=hidden, runner=runner, startup=STARTUP_SECONDS)


def control(pid: int, action: str) -> None:
    assert CONTROL is not None
    subprocess.run([CONTROL, action, str(pid)], check=True, capture_output=True, timeout=120)


def last_dump_total(out: Path) -> int:
    """The instructions of the newest dump callgrind_control asked for (`out`.N, N the highest)."""
    dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]) if p.suffix[1:].isdigit() else -1)
    if not dumps:
        raise RuntimeError(f"callgrind wrote no dump next to {out}")
    text = dumps[-1].read_text(errors="replace")
    found = re.search(r"^(?:totals|summary):\s*(\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no totals in {dumps[-1]}")
    return int(found.group(1))


async def calls(url: str, era: str, in_flight: int, n: int, pid: int, started: list[float]) -> None:
    """Warm up on `in_flight` connections, then zero the counters and make n calls (`started`
    gets the moment the counters were zeroed)."""
    pool = await FloorPool.open(url, era, in_flight)
    try:

        async def run(count: int) -> None:
            remaining = iter(range(count))

            async def worker() -> None:
                for _ in remaining:
                    assert await pool.call_echo("hello") == "hello"

            await asyncio.gather(*(worker() for _ in range(in_flight)))

        await run(max(30, 2 * in_flight))
        await asyncio.to_thread(control, pid, "--zero")
        started.append(time.monotonic())
        await run(n)
    finally:
        pool.close()


# Valgrind slows a server down 20-50x: connections opened one after another for 32 in flight
# would sit idle past the default keep-alive (5 s) and be closed under the client.
SLOW = ["--keep-alive-timeout", "600"]
IDLE_SECONDS = 5.0


def server_argv(name: str, port: int) -> list[str]:
    if name == "ours":
        return [hr.PY, "-m", hr.SERVER_PKG, "--http", "--port", str(port), *SLOW, "--header-timeout", "600"]
    return [hr.PY, str(hr.FLOOR_SERVER), "--port", str(port), *SLOW]


def idle_rate(pid: int, out: Path) -> float:
    """Instructions per second the server runs with nothing to serve (uvicorn's 0.1 s tick, the
    session keeper): under valgrind a call lasts long enough for them to count, and for load on
    the machine to change how many fall into it, so each cell's share is taken out."""
    control(pid, "--zero")
    start = time.monotonic()
    time.sleep(IDLE_SECONDS)
    control(pid, "--dump")
    return last_dump_total(out) / (time.monotonic() - start)


def measure(folder: Path, setup: str, n: int) -> dict[str, dict[tuple[str, int], float]]:
    """Instructions per call of each server in each (era, in flight) cell: both servers start
    together (valgrind's slow start-up once), then each cell is measured on one, then the other."""
    figures: dict[str, dict[tuple[str, int], float]] = {name: {} for name in SERVERS}
    with ExitStack() as stack:
        running: dict[str, tuple[int, int, Path]] = {}
        for name in SERVERS:
            port = hr.free_port()
            out = folder / f"callgrind-{name}-{setup}.out"
            argv = server_argv(name, port)
            _, pid = stack.enter_context(under_callgrind(argv, port, out, folder, hr.SETUPS[setup]))
            running[name] = (port, pid, out)
        idle = {name: idle_rate(pid, out) for name, (_, pid, out) in running.items()}
        for era in ERAS:
            for in_flight in IN_FLIGHT:
                for name, (port, pid, out) in running.items():
                    started: list[float] = []
                    asyncio.run(calls(f"http://127.0.0.1:{port}/mcp", era, in_flight, n, pid, started))
                    control(pid, "--dump")
                    elapsed = time.monotonic() - started[0]
                    total = last_dump_total(out) - idle[name] * elapsed
                    figures[name][(era, in_flight)] = total / n
                    print(
                        f"{setup} {name} {era} {in_flight}: {figures[name][(era, in_flight)]:,.0f} Ir/call",
                        file=sys.stderr,
                    )
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="calls per cell (default 300)")
    ap.add_argument("--setups", default="", help="comma-separated: default, extra (default: those installed)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = ap.parse_args()
    if VALGRIND is None or CONTROL is None:
        print("valgrind is not installed (apt-get install valgrind): nothing to count")
        return 0
    installed = set(hr.installed_speedups())
    wanted = [s for s in args.setups.split(",") if s] or [s for s in hr.TARGETED if set(hr.NEEDS[s]) <= installed]
    results: dict[str, dict[str, dict[tuple[str, int], float]]] = {}
    with tempfile.TemporaryDirectory(prefix="mcpgen-http-instr-") as tmp:
        folder = Path(tmp)
        hr.generate(folder)
        for setup in wanted:
            results[setup] = measure(folder, setup, args.n)
    print(f"Server instructions per tools/call (callgrind Ir), n={args.n} per cell, floor client")
    print(f"{'setup':<9}{'era':<12}{'in flight':>10}{'ours':>12}{'floor':>12}{'floor/ours':>12}")
    report: dict[str, float] = {}
    for setup, by_server in results.items():
        for era in ERAS:
            for in_flight in IN_FLIGHT:
                ours, floor = by_server["ours"][(era, in_flight)], by_server["floor"][(era, in_flight)]
                print(f"{setup:<9}{era:<12}{in_flight:>10}{ours:>12,.0f}{floor:>12,.0f}{floor / ours:>11.2f}x")
                record(
                    f"server instructions per call vs the HTTP floor, {setup}, {era}, {in_flight} in flight",
                    f"{ours:,.0f} Ir",
                    f"{floor:,.0f} Ir (floor)",
                    floor / ours,
                    "",
                    None,
                )
                report[f"{setup}/{era}/{in_flight}/ours"] = ours
                report[f"{setup}/{era}/{in_flight}/floor"] = floor
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
