"""`python -m PKG --http --workers N`: a real scaffolded server package run as a subprocess. Its
one tool answers the serving process's pid after blocking that process for a moment, so that
concurrent calls on fresh connections land on every worker; the workers themselves are read
from /proc (the supervisor's children)."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import ServerProcess, started

from mcpgen.runtime import connect_http
from mcpgen.runtime.server.command import workers_problem
from mcpgen.runtime.server.http.workers import Supervision
from tests.generation import scaffold_server

PY = sys.executable
PKG = "pid_server"
SCHEMA = """[{"name": "pid", "description": "The serving process id, after blocking it for `hold` seconds.",
  "inputSchema": {"type": "object", "properties": {"hold": {"type": "number"}}}},
 {"name": "signer", "description": "The pid and a digest of the key signing its requestState.",
  "inputSchema": {"type": "object", "properties": {"hold": {"type": "number"}}}}]"""
HANDLERS = """
from __future__ import annotations

import hashlib
import os
import time

from mcpgen.runtime.server.request_state import _key

from ._generated import Context, ToolOutput, ToolsBase, models


class Handlers(ToolsBase):
    def __init__(self) -> None:
        if os.environ.get("PID_SERVER_FAIL"):
            raise RuntimeError("this worker cannot start")

    async def pid(self, args: models.PidArgs, ctx: Context) -> ToolOutput:
        # Blocks this worker's event loop: meanwhile another worker accepts the next connection.
        time.sleep(args.hold or 0)
        return str(os.getpid())

    async def signer(self, args: models.SignerArgs, ctx: Context) -> ToolOutput:
        time.sleep(args.hold or 0)
        return f"{os.getpid()} {hashlib.sha256(_key()).hexdigest()[:16]}"
"""
# Bounds: every wait below ends with a failure after this long.
DEADLINE = 30.0

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc").is_dir(), reason="POSIX with /proc")


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the scaffolded `pid_server` package, its handler filled in."""
    return scaffold_server(tmp_path_factory.mktemp("workers"), SCHEMA, PKG, HANDLERS)


def argv(*extra: str) -> list[str]:
    return [PY, "-m", PKG, "--http", "--port", "{port}", *extra]


@pytest.fixture
def two_workers(package: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    with started(argv("--workers", "2", "--stateless"), cwd=package, log_dir=tmp_path) as server:
        yield server


def children(parent: int) -> set[int]:
    """The live (not zombie) processes whose parent is `parent`, from /proc."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        if fields[0] != "Z" and int(fields[1]) == parent:
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def wait_for(what: str, check: object, timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


def workers_of(server: ServerProcess, count: int) -> set[int]:
    assert server.proc is not None
    wait_for(f"{count} workers", lambda: len(children(server.proc.pid)) == count)  # type: ignore[union-attr]
    return children(server.proc.pid)


async def one_call(url: str, hold: float) -> int:
    """One call on a connection of its own (a new client each time)."""
    async with connect_http(url, protocol="2026-07-28") as session:
        result = await session.call_tool("pid", {"hold": hold})
        return int(result["content"][0]["text"])


async def pids_answering(url: str, expected: set[int]) -> set[int]:
    """The pids that answer calls, rounds of concurrent calls until all `expected` answered."""
    seen: set[int] = set()
    deadline = time.monotonic() + DEADLINE
    while not expected <= seen and time.monotonic() < deadline:
        seen |= set(await asyncio.gather(*(one_call(url, 0.2) for _ in range(4))))
    return seen


@needs_fork
@pytest.mark.slow
def test_n_worker_processes_serve_one_port(two_workers: ServerProcess) -> None:
    workers = workers_of(two_workers, 2)
    assert asyncio.run(pids_answering(two_workers.url, workers)) == workers
    assert "(2 workers)" in two_workers.output()


async def signers(url: str, expected: set[int]) -> dict[int, set[str]]:
    """pid -> the key digests it answered with, until every `expected` pid answered."""
    seen: dict[int, set[str]] = {}

    async def one(hold: float) -> tuple[int, str]:
        async with connect_http(url, protocol="2026-07-28") as session:
            result = await session.call_tool("signer", {"hold": hold})
            pid, digest = result["content"][0]["text"].split()
            return int(pid), digest

    deadline = time.monotonic() + DEADLINE
    while not expected <= set(seen) and time.monotonic() < deadline:
        for pid, digest in await asyncio.gather(*(one(0.2) for _ in range(4))):
            seen.setdefault(pid, set()).add(digest)
    return seen


@needs_fork
@pytest.mark.slow
def test_workers_sign_request_state_with_one_key(two_workers: ServerProcess) -> None:
    # An MRTR retry may land on another worker than its first round; a replaced worker too.
    first, second = sorted(workers_of(two_workers, 2))
    before = asyncio.run(signers(two_workers.url, {first, second}))
    assert set(before) == {first, second}
    os.kill(first, signal.SIGKILL)
    wait_for("a replacement", lambda: len(children(two_workers.proc.pid) - {first}) == 2)  # type: ignore[union-attr]
    after = asyncio.run(signers(two_workers.url, children(two_workers.proc.pid)))  # type: ignore[union-attr]
    digests = set().union(*before.values(), *after.values())
    assert len(digests) == 1, (before, after)


@needs_fork
@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_serving_goes_on(two_workers: ServerProcess) -> None:
    first, second = sorted(workers_of(two_workers, 2))
    os.kill(first, signal.SIGKILL)
    assert two_workers.proc is not None
    supervisor = two_workers.proc.pid

    def replaced() -> bool:
        # One read of /proc: two reads raced the killed worker's turn into a zombie (the first
        # still listed it beside `second`, the second no longer did) before the new one existed.
        return len(kids := children(supervisor)) == 2 and first not in kids

    wait_for("a new worker", replaced)
    now = children(supervisor)
    assert second in now and first not in now
    assert asyncio.run(pids_answering(two_workers.url, now)) == now
    assert f"worker {first} was killed by SIGKILL; restarting it" in two_workers.output()
    two_workers.assert_alive()


@needs_fork
@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_every_worker_and_exits_0(two_workers: ServerProcess, stop: signal.Signals) -> None:
    workers = workers_of(two_workers, 2)
    assert asyncio.run(one_call(two_workers.url, 0)) in workers
    assert two_workers.proc is not None
    two_workers.proc.send_signal(stop)  # the supervisor alone, not its process group
    assert two_workers.proc.wait(timeout=DEADLINE) == 0, two_workers.tail()
    for pid in workers:
        wait_for(f"worker {pid} gone", lambda pid=pid: not alive(pid), timeout=5)  # type: ignore[misc]


@needs_fork
@pytest.mark.slow
def test_workers_never_outlive_a_killed_supervisor(two_workers: ServerProcess) -> None:
    workers = workers_of(two_workers, 2)
    assert two_workers.proc is not None
    two_workers.proc.kill()  # SIGKILL: no chance to stop anyone
    two_workers.proc.wait(timeout=DEADLINE)
    try:
        for pid in workers:
            wait_for(f"orphaned worker {pid} gone", lambda pid=pid: not alive(pid))  # type: ignore[misc]
    finally:
        for pid in workers:  # whatever the outcome, nothing of this test keeps running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@needs_fork
@pytest.mark.slow
def test_a_crash_loop_ends_the_supervisor_with_one_line(package: Path) -> None:
    done = subprocess.run(
        [PY, "-m", PKG, "--http", "--port", "0", "--workers", "2", "--stateless"],
        cwd=package,
        env={**os.environ, "PID_SERVER_FAIL": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "worker" in lines[-1] and "giving up" in lines[-1], lines
    assert any("this worker cannot start" in line for line in lines), lines
    assert f"ended {Supervision().crash_limit} times" in lines[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--http", "--workers", "2"], "add --stateless or --store redis://"),
        (["--workers", "2", "--stateless"], "add --http"),
        (["--workers", "1"], "add --http"),
    ],
)
def test_refusals_are_one_line_and_exit_2(package: Path, flags: list[str], says: str) -> None:
    done = subprocess.run([PY, "-m", PKG, *flags], cwd=package, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr


def namespace(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**{"http": True, "stateless": False, "workers": 2, **values})


def test_several_workers_need_the_stateless_era_or_a_shared_store() -> None:
    assert "add --stateless or --store" in (workers_problem(namespace(), environ={}) or "")
    assert workers_problem(namespace(stateless=True), environ={}) is None
    assert workers_problem(namespace(store="redis://127.0.0.1:6379/0"), environ={}) is None
    assert workers_problem(namespace(), environ={"MCPGEN_STORE": "redis://127.0.0.1:6379/0"}) is None
    # An in-memory store is one process's, like no store at all.
    assert workers_problem(namespace(store="memory://"), environ={}) is not None
    assert workers_problem(namespace(store=None), environ={"MCPGEN_STORE": ""}) is not None


def test_one_worker_is_the_single_process_and_needs_nothing() -> None:
    assert workers_problem(namespace(workers=1), environ={}) is None
    assert workers_problem(namespace(workers=None, http=False), environ={}) is None
    assert "add --http" in (workers_problem(namespace(workers=1, http=False), environ={}) or "")
