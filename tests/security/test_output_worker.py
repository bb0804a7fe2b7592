"""mcpgen leaves no process behind: its datamodel-code-generator worker dies with it, even
when mcpgen itself is killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def cpu_ticks(pid: int) -> int:
    """The CPU time a process has used (user + system) in clock ticks; 0 once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_sigkill_of_mcpgen_takes_its_worker_with_it(tmp_path: Path) -> None:
    tools = [
        {
            "name": f"t{i}",
            "inputSchema": {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(30)}},
        }
        for i in range(300)
    ]
    (tmp_path / "t.json").write_text(json.dumps(tools))
    mcpgen = Path(sys.executable).with_name("mcpgen")
    proc = subprocess.Popen([str(mcpgen), "client", "t.json", "-o", "out"], cwd=tmp_path, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        workers: set[int] = set()
        while not workers and time.monotonic() < deadline and proc.poll() is None:
            workers = children(proc.pid)
            time.sleep(0.01)
        assert workers, "no worker seen"
        # Killed while a worker is at work (it has run for a tenth of a second of CPU), not at a
        # guessed instant; every child mcpgen has then is checked, those started since included.
        while max(map(cpu_ticks, workers)) < 10 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        workers |= children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # (a deadline, left as soon as they are gone: generous, since a loaded machine is slower
        # to schedule the workers' own exit; a worker that outlives mcpgen stays past any of it)
        deadline = time.monotonic() + 30
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [w for w in workers if alive(w)]
        for w in left:
            os.kill(w, signal.SIGKILL)
        assert not left, "worker outlived mcpgen"
    finally:
        if proc.poll() is None:
            proc.kill()
