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

This machine has 2 cores for the load generator, nginx and the workers together, so the generated
client, which costs about what a worker does per call, leaves a second worker little to do. Two
views take the load generator's share out:

- capacity (the target): the generated client's own request bytes (captured once) replayed on
  32 keep-alive connections by a raw asyncio load generator, with this process and nginx pinned
  (``os.sched_setaffinity``, what ``taskset`` does) to the first core and the workers to the
  others. A worker given a core of its own saturates it at 1 / (its CPU seconds per call of all
  the setup's calls), so the setup's capacity over 1 worker's is
  ``1 worker's CPU per call / the busiest worker's CPU per call of all calls`` (each worker's
  CPU from /proc during the replay): what a machine with a core per worker serves, measured in
  CPU seconds, which the load of other jobs stretches far less than wall-clock time. The replay's
  calls/s over 1 worker's is reported beside it (on 2 cores both setups' workers share one core);
- CPU per call: the CPU seconds the server processes spend per call of the generated client
  (from /proc, every worker of the setup summed), and the scaling that allows with a core per
  worker: ``workers x (1 worker's CPU per call) / (the setup's)`` (reported).

Second part: the CPU a worker spends per call with a shared Redis store (``--store redis://...``
on a real redis-server, tests/cluster.py's ``redis_server``) vs the default in-memory store, in
both eras (a handshake-era session, and 2026-07-28 requests), 32 calls in flight, interleaved
rounds likewise; and the handshake era's per-call latency one call at a time. Skipped, saying so,
while the server has no ``--store`` option.

    python bench/cluster_bench.py [--n 2000] [--rounds 5] [--concurrency 32] [--json]

Targets (issue 39): both 2-worker setups serve >= 1.6x 1 worker's capacity (a core per worker,
from each worker's CPU per call, above); a worker's CPU per call with the Redis store <= 1.3x with
the in-memory store, in both eras.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from _rows import record
from http_roundtrip import PY, ROOT, SERVER_PKG, free_port, generate, http_server, measure
from http_roundtrip import cpu_seconds as process_cpu

sys.path.insert(0, str(ROOT))
from tests.cluster import NGINX, REDIS_SERVER, redis_server, round_robin  # noqa: E402

MODERN = "2026-07-28"
SCALING_TARGET = 1.6  # capacity of both 2-worker setups / 1 worker's (the raw load generator)
STORE_TARGET = 1.3  # a worker's CPU per call, Redis store / in-memory store
SETUPS = ("1 worker", "--workers 2", "2 processes")
WORKERS = {"1 worker": 1, "--workers 2": 2, "2 processes": 2}
ERAS = {"legacy": "legacy", "modern": MODERN}


async def calls_per_second(client: ModuleType, url: str, n: int, concurrency: int, protocol: str) -> float:
    async with client.AsyncClient.connect_http(url, protocol=protocol) as c:

        async def call() -> None:
            result = await c.echo(text="hello")
            assert result == "hello"

        return (await measure(call, n, concurrency)).rate


# nginx keeps idle upstream connections for 60 s: a server that closed one sooner could do so
# just as nginx sends it a request, which nginx answers 502 (it never replays a POST).
KEEP_ALIVE = ["--keep-alive-timeout", "75"]


async def captured_call(client: ModuleType, url: str) -> tuple[dict[str, str], bytes]:
    """The headers and body of one `echo` tools/call exactly as the generated client sends them
    (recorded at its HTTP connection pool)."""
    from mcpgen.runtime.transports.http_lean import LeanPool

    seen: list[tuple[dict[str, str], bytes]] = []
    original = LeanPool.post

    async def recording(self: LeanPool, headers: Any, body: bytes, timeout: float | None) -> Any:
        seen.append((dict(headers), body))
        return await original(self, headers, body, timeout)

    LeanPool.post = recording  # type: ignore[method-assign]
    try:
        async with client.AsyncClient.connect_http(url, protocol=MODERN) as c:
            assert await c.echo(text="hello") == "hello"
    finally:
        LeanPool.post = original  # type: ignore[method-assign]
    calls = [(headers, body) for headers, body in seen if b'"tools/call"' in body]
    if not calls:
        raise RuntimeError("the generated client sent no tools/call through its connection pool")
    return calls[-1]


async def raw_calls_per_second(url: str, request: tuple[dict[str, str], bytes], n: int, concurrency: int) -> float:
    """calls/s of the client's own request bytes replayed on `concurrency` keep-alive connections:
    a load generator that costs far less CPU per call than a client, so the servers' capacity shows."""
    target = urlsplit(url)
    headers, body = request
    head = f"POST {target.path} HTTP/1.1\r\nhost: {target.netloc}\r\ncontent-length: {len(body)}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    wire = head.encode("latin-1") + body
    counter = itertools.count()

    async def connection(count: bool) -> None:
        reader, writer = await asyncio.open_connection(target.hostname, target.port)
        try:
            while next(counter) < n if count else next(warm) < concurrency * 4:
                writer.write(wire)
                status = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length:\s*(\d+)", status)
                if not status.startswith(b"HTTP/1.1 200") or length is None:
                    raise RuntimeError(f"unexpected answer: {status[:200]!r}")
                answer = await reader.readexactly(int(length.group(1)))
                if b"hello" not in answer:
                    raise RuntimeError(f"unexpected answer: {answer[:200]!r}")
        finally:
            writer.close()

    warm = itertools.count()
    await asyncio.gather(*(connection(False) for _ in range(concurrency)))  # warm-up
    start = time.perf_counter()
    await asyncio.gather(*(connection(True) for _ in range(concurrency)))
    return n / (time.perf_counter() - start)


@contextmanager
def server(folder: Path, *flags: str) -> Iterator[tuple[str, int]]:
    """One scaffolded server (`python -m PKG --http ...flags`); yields its base URL and pid."""
    port = free_port()
    argv = [PY, "-m", SERVER_PKG, "--http", "--port", str(port), *KEEP_ALIVE, *flags]
    with http_server(argv, port, cwd=folder) as (_, pid):
        yield f"http://127.0.0.1:{port}", pid


def has_store_option(folder: Path) -> bool:
    """Whether the scaffolded server takes `--store` (the shared store of issue 23's part A)."""
    done = subprocess.run(
        [PY, "-m", SERVER_PKG, "--help"], cwd=folder, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    return re.search(r"^\s+--store\b", done.stdout, re.MULTILINE) is not None


ROLES = ("client", "nginx", "server")


def cpu_by_tree() -> dict[int, float]:
    """CPU seconds used so far by the process tree under each child of this process (a server
    and its forked workers, nginx's shim, master and workers), keyed by the child's pid; this
    process's own under its pid (from /proc; empty elsewhere)."""
    if not os.path.isdir("/proc"):
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
            parent[int(entry)] = int(fields[1])
            used[int(entry)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    me = os.getpid()
    trees: dict[int, float] = {me: used.get(me, 0.0)}
    for pid in used:
        root, steps = pid, 0
        while parent.get(root, 0) not in (me, 0) and steps < 8:  # up to the child of this process
            root, steps = parent[root], steps + 1
        if parent.get(root) == me:
            trees[root] = trees.get(root, 0.0) + used[pid]
    return trees


def worker_pids(name: str, servers: list[int]) -> list[int]:
    """The processes that serve calls: each server, or the forked workers of `--workers 2`'s
    supervisor (its children; the supervisor itself only watches them)."""
    if name != "--workers 2":
        return servers
    children: list[int] = []
    for pid in servers:
        try:
            children += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            pass
    return children or servers


def tree_pids(root: int) -> list[int]:
    """`root` and every process below it (nginx's shim, master and workers), from /proc."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            todo += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            pass
    return found


def pin(pids: list[int], cores: set[int]) -> None:
    """`taskset` these processes onto `cores` (nothing where the platform cannot)."""
    for pid in pids:
        try:
            os.sched_setaffinity(pid, cores)
        except (AttributeError, OSError):
            pass


def load_generator_cores() -> tuple[set[int], set[int]]:
    """(the load generator's and nginx's core, the workers' cores): core 0 for the first, the
    others for the workers, on a machine with 2 cores or more; every core for both otherwise."""
    try:
        cores = sorted(os.sched_getaffinity(0))
    except AttributeError:
        cores = list(range(os.cpu_count() or 1))
    if len(cores) < 2:
        return set(cores), set(cores)
    return {cores[0]}, set(cores[1:])


def cpu_of(trees: dict[int, float], nginx: int, servers: list[int]) -> dict[str, float]:
    """One setup's CPU seconds by role: this process (the load generator), its nginx, its servers."""
    return {
        "client": trees.get(os.getpid(), 0.0),
        "nginx": trees.get(nginx, 0.0),
        "server": sum(trees.get(pid, 0.0) for pid in servers),
    }


def workers_part(
    client: ModuleType, folder: Path, args: argparse.Namespace
) -> tuple[
    dict[str, list[float]], dict[str, dict[str, list[float]]], dict[str, list[float]], dict[str, list[list[float]]]
]:
    """calls/s of each setup, one figure per round; the CPU µs per call of each role; the calls/s
    of the client's request replayed raw; and during that replay, each worker's CPU µs per call
    (of all the setup's calls), one list per round."""
    samples: dict[str, list[float]] = {name: [] for name in SETUPS}
    raw: dict[str, list[float]] = {name: [] for name in SETUPS}
    per_worker: dict[str, list[list[float]]] = {name: [] for name in SETUPS}
    cpu: dict[str, dict[str, list[float]]] = {name: {role: [] for role in ROLES} for name in SETUPS}
    with ExitStack() as stack:
        upstreams = {
            "1 worker": [stack.enter_context(server(folder, "--stateless"))],
            "--workers 2": [stack.enter_context(server(folder, "--stateless", "--workers", "2"))],
            "2 processes": [stack.enter_context(server(folder, "--stateless")) for _ in range(2)],
        }
        urls: dict[str, str] = {}
        pids: dict[str, tuple[int, list[int]]] = {}  # nginx's, the servers'
        for name, ups in upstreams.items():
            proxy = stack.enter_context(round_robin(folder / f"nginx-{len(urls)}", [url for url, _ in ups]))
            assert proxy.proc is not None
            urls[name] = proxy.url
            pids[name] = (proxy.proc.pid, [pid for _, pid in ups])
        request = asyncio.run(captured_call(client, urls["1 worker"]))
        # taskset: the load generator (this process) and nginx on a core of their own, the
        # workers on the others (on 2 cores: one core for 1 or 2 workers, so the calls/s
        # ratio cannot show scaling; the capacity from each worker's CPU per call can).
        generator_cores, worker_cores = load_generator_cores()
        pin([os.getpid()], generator_cores)
        for name in SETUPS:
            pin(tree_pids(pids[name][0]), generator_cores)
            pin([p for server in pids[name][1] for p in tree_pids(server)], worker_cores)
        for round_no in range(args.rounds):
            shift = round_no % len(SETUPS)
            for name in SETUPS[shift:] + SETUPS[:shift]:
                before = cpu_of(cpu_by_tree(), *pids[name])
                rate = asyncio.run(calls_per_second(client, urls[name], args.n, args.concurrency, MODERN))
                after = cpu_of(cpu_by_tree(), *pids[name])
                samples[name].append(rate)
                for role in after:  # the warm-up calls count too: a few percent more than n
                    cpu[name][role].append((after[role] - before[role]) * 1e6 / args.n)
                workers = worker_pids(name, pids[name][1])
                before_each = [process_cpu(pid) for pid in workers]
                raw[name].append(asyncio.run(raw_calls_per_second(urls[name], request, args.n, args.concurrency)))
                each = [(process_cpu(pid) - b) * 1e6 / args.n for pid, b in zip(workers, before_each, strict=True)]
                per_worker[name].append(each)
            print(f"workers: round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return samples, cpu, raw, per_worker


def store_part(
    client: ModuleType, folder: Path, args: argparse.Namespace
) -> tuple[dict[str, list[float]], dict[str, dict[str, list[float]]]]:
    """Per-call latency (µs, calls one at a time) of the handshake era, and a worker's CPU µs per
    call in each era (`args.concurrency` in flight), in-memory vs Redis store."""
    latency: dict[str, list[float]] = {"in-memory": [], "redis": []}
    cpu: dict[str, dict[str, list[float]]] = {era: {"in-memory": [], "redis": []} for era in ERAS}
    n = max(10, args.n // 4)
    with ExitStack() as stack:
        redis_url = stack.enter_context(redis_server(folder))
        servers: dict[str, tuple[str, int]] = {}
        for name, flags in (("in-memory", []), ("redis", ["--store", redis_url])):
            port = free_port()
            argv = [PY, "-m", SERVER_PKG, "--http", "--port", str(port), *KEEP_ALIVE, *flags]
            servers[name] = stack.enter_context(http_server(argv, port, cwd=folder))
        for round_no in range(args.rounds):
            order = list(servers) if round_no % 2 == 0 else list(servers)[::-1]
            for name in order:
                url, pid = servers[name]
                rate = asyncio.run(calls_per_second(client, url, n, 1, "legacy"))
                latency[name].append(1e6 / rate)
                for era, protocol in ERAS.items():
                    before = process_cpu(pid)
                    asyncio.run(calls_per_second(client, url, args.n, args.concurrency, protocol))
                    cpu[era][name].append((process_cpu(pid) - before) * 1e6 / args.n)
            print(f"store: round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return latency, cpu


def ratio(a: float, b: float) -> float:
    """a / b; nan when b is 0 (a tiny run can use less CPU than the clock's tick shows)."""
    return a / b if b else float("nan")


def capacity(per_worker: dict[str, list[list[float]]], name: str) -> list[float]:
    """Per round: the setup's calls/s with a core per worker, over 1 worker's, from CPU seconds:
    a worker saturates its core at 1 / (its CPU per call of all calls), so the setup serves
    1 / max over its workers; 1 worker's serves 1 / its own. (Load on the machine stretches
    wall-clock time, much less the CPU a call costs.)"""
    base = per_worker["1 worker"]
    return [ratio(one[0], max(each)) for one, each in zip(base, per_worker[name], strict=True) if one and each]


def scaling(cpu: dict[str, dict[str, list[float]]], name: str) -> list[float]:
    """Per round: how many times one worker's calls/s the setup serves with a core per worker,
    from the servers' CPU per call (workers x one worker's cost / this setup's)."""
    base = cpu["1 worker"]["server"]
    return [ratio(WORKERS[name] * b, v) for b, v in zip(base, cpu[name]["server"], strict=True)]


def print_store(store: dict[str, list[float]], store_cpu: dict[str, dict[str, list[float]]]) -> dict[str, float]:
    """The store tables; the median per-round Redis / in-memory CPU ratio of each era."""
    per_round = [r / m for r, m in zip(store["redis"], store["in-memory"], strict=True)]
    print("Handshake-era per-call latency, calls one at a time, one server process:")
    for name, values in store.items():
        print(f"{name + ' store':<20}{statistics.median(values):>10,.0f} µs")
    print(
        f"{'redis / in-memory':<20}{statistics.median(per_round):>10.2f}x"
        f"   (per-round ratios {min(per_round):.2f}x to {max(per_round):.2f}x)"
    )
    print()
    print("A worker's CPU per call, calls in flight, in-memory vs Redis store:")
    print(f"{'era':<10}{'in-memory µs':>14}{'redis µs':>10}{'redis / in-memory':>20}{'min':>8}{'max':>8}")
    ratios: dict[str, float] = {}
    for era, by_store in store_cpu.items():
        per_round = [ratio(r, m) for r, m in zip(by_store["redis"], by_store["in-memory"], strict=True)]
        ratios[era] = statistics.median(per_round)
        print(
            f"{era:<10}{statistics.median(by_store['in-memory']):>14,.0f}{statistics.median(by_store['redis']):>10,.0f}"
            f"{ratios[era]:>19.2f}x{min(per_round):>7.2f}x{max(per_round):>7.2f}x"
        )
    return ratios


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
        workers, cpu, raw, per_worker = workers_part(client, folder, args)
        store: dict[str, list[float]] | None = None
        store_cpu: dict[str, dict[str, list[float]]] = {}
        store_skipped = ""
        if not has_store_option(folder):
            store_skipped = "the scaffolded server has no --store option yet (the shared store of issue 23)"
        elif not os.access(REDIS_SERVER, os.X_OK):
            store_skipped = f"redis-server is not installed ({REDIS_SERVER}; apt-get install redis-server)"
        else:
            store, store_cpu = store_part(client, folder, args)

    print(
        f"Generated pair behind nginx round-robin, {MODERN} era: n={args.n} per measurement, "
        f"concurrency={args.concurrency}, {args.rounds} interleaved rounds (medians), "
        f"python {platform.python_version()}, {os.cpu_count()} cpu"
    )
    print(
        f"{'setup':<16}{'calls/s':>10}{'x 1 worker':>12}{'min':>8}{'max':>8}"
        f"{'CPU µs/call: client':>22}{'nginx':>8}{'server':>8}"
    )
    ratios: dict[str, float] = {}
    for name in SETUPS:
        per_round = [value / base for value, base in zip(workers[name], workers["1 worker"], strict=True)]
        ratios[name] = statistics.median(per_round)
        shares = [statistics.median(cpu[name][role]) if cpu[name][role] else float("nan") for role in ROLES]
        print(
            f"{name:<16}{statistics.median(workers[name]):>10,.0f}{ratios[name]:>11.2f}x"
            f"{min(per_round):>7.2f}x{max(per_round):>7.2f}x{shares[0]:>22,.0f}{shares[1]:>8,.0f}{shares[2]:>8,.0f}"
        )
    print(
        "(x 1 worker: median of the per-round ratios, then their min and max. A second worker can at "
        "most double the server's share of the cores; the load generator and nginx share them too.)"
    )
    report.update(workers=workers, ratios=ratios, cpu_us_per_call=cpu)
    print()
    print("The generated client's request replayed raw on 32 keep-alive connections (the servers' capacity):")
    print(f"{'setup':<16}{'calls/s':>10}{'x 1 worker':>12}{'min':>8}{'max':>8}")
    raw_ratios: dict[str, float] = {}
    for name in SETUPS:
        per_round = [value / base for value, base in zip(raw[name], raw["1 worker"], strict=True)]
        raw_ratios[name] = statistics.median(per_round)
        print(
            f"{name:<16}{statistics.median(raw[name]):>10,.0f}{raw_ratios[name]:>11.2f}x"
            f"{min(per_round):>7.2f}x{max(per_round):>7.2f}x"
        )
    report.update(raw=raw, raw_ratios=raw_ratios)

    print()
    print("Scaling with a core per worker, from the servers' CPU per call (workers x 1 worker's / the setup's):")
    print(f"{'setup':<16}{'scaling':>10}{'min':>8}{'max':>8}")
    scaled: dict[str, float] = {}
    for name in SETUPS[1:]:
        per_round = scaling(cpu, name)
        scaled[name] = statistics.median(per_round)
        print(f"{name:<16}{scaled[name]:>9.2f}x{min(per_round):>7.2f}x{max(per_round):>7.2f}x")
    report.update(scaling=scaled)

    print()
    print("Capacity with a core per worker, from each worker's CPU per call during the raw replay")
    print("(load generator and nginx pinned to a core of their own; workers x 1 worker's calls/s):")
    print(f"{'setup':<16}{'capacity':>10}{'min':>8}{'max':>8}{'worker CPU µs/call (of all calls)':>36}")
    capacities: dict[str, float] = {}
    for name in SETUPS:
        per_round = capacity(per_worker, name)
        capacities[name] = statistics.median(per_round) if per_round else float("nan")
        shares = " / ".join(
            f"{statistics.median(r[i] for r in per_worker[name]):,.0f}" for i in range(len(per_worker[name][0]))
        )
        low, high = (min(per_round), max(per_round)) if per_round else (float("nan"),) * 2
        print(f"{name:<16}{capacities[name]:>9.2f}x{low:>7.2f}x{high:>7.2f}x{shares:>36}")
    report.update(per_worker_cpu=per_worker, capacity=capacities)

    print()
    store_ratios: dict[str, float] = {}
    if store is None:
        print(f"SKIP the Redis store's cost: {store_skipped}")
        if store_skipped.startswith("redis-server") and os.environ.get("CI"):
            return 1  # in CI a missing peer is a failure, never a quiet skip
    else:
        store_ratios = print_store(store, store_cpu)
        report.update(store=store, store_cpu=store_cpu, store_cpu_ratios=store_ratios)

    print()
    missed = False
    for name in SETUPS[1:]:
        value = capacities[name]
        met = value >= SCALING_TARGET
        missed |= not met
        print(f"{'MET ' if met else 'MISS'} {name} serves >= {SCALING_TARGET}x 1 worker's capacity (a core per worker)")
        ours, one = (max(statistics.median(r[i] for r in per_worker[k]) for i in range(len(per_worker[k][0])))
                     for k in (name, "1 worker"))  # fmt: skip
        record(f"{name} behind nginx vs 1 worker, capacity from each worker's CPU per call, {MODERN} era",
               f"{ours:,.0f} us/call (busiest worker)", f"{one:,.0f} us/call", value,
               f">= {SCALING_TARGET:g}x", met)  # fmt: skip
        print(f"     {name} raw replay {raw_ratios[name]:.2f}x 1 worker's calls/s on this machine's cores (reported)")
        print(f"     {name} scales {scaled[name]:.2f}x from all servers' CPU per call (reported)")
    for era, value in store_ratios.items():
        met = value <= STORE_TARGET
        missed |= not met
        print(
            f"{'MET ' if met else 'MISS'} a worker's CPU per call with Redis <= {STORE_TARGET}x in memory ({era} era)"
        )
        redis_us, memory_us = (statistics.median(store_cpu[era][s]) for s in ("redis", "in-memory"))
        record(f"worker CPU per call, Redis store vs in memory, {era} era", f"{redis_us:,.0f} us/call",
               f"{memory_us:,.0f} us/call", value, f"<= {STORE_TARGET:g}x", met)  # fmt: skip
    if args.json:
        print(json.dumps(report))
    return 1 if missed else 0  # a missed target is a failed run


if __name__ == "__main__":
    sys.exit(main())
