"""A big catalog through the `mcpgen` command, its models made in parts by worker processes:
the same bytes every run and as made in one process, packages that type-check with mypy
--strict, and every way it can end (a worker killed, Ctrl-C, mcpgen killed) leaves no process
behind and says what happened in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from big_catalog_lib import tools

from mcpgen.models.dcg import worker_count

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _session(sid: int) -> list[int]:
    """The processes still in session `sid` (each test starts mcpgen in a session of its own)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == sid and fields[0] != "Z":  # field 6 of stat: the session id
            pids.append(int(entry.name))
    return pids


def _wait_empty(sid: int, seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _session(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _mcpgen(args: list[str], cwd: Path, prelude: str = "") -> subprocess.Popen[str]:
    """`mcpgen ARGS` as the installed command runs it (entry.py starts the workers first)."""
    code = f"{prelude}\nimport sys; sys.argv = ['mcpgen', *{args!r}]\nfrom mcpgen.entry import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bigcat") / "tools.json"
    path.write_text(json.dumps({"tools": tools()}), encoding="utf-8")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.name != ".mcpgen-manifest.json"
    }


def _mypy(package: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", package.name],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


@pytest.mark.parametrize("kind", ["client", "server"])
def test_workers_make_the_same_package_every_time_and_it_type_checks(kind: str, source: Path, tmp_path: Path) -> None:
    assert worker_count() >= 2 or "CI" not in os.environ, "CI has 2 cores: the parts run in parallel"
    for run in ("a", "b"):
        proc = _mcpgen([kind, str(source), "-o", f"{run}/big_{kind}"], tmp_path)
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert not _wait_empty(proc.pid), "a worker outlived mcpgen"
    made = _files(tmp_path / "a" / f"big_{kind}")
    assert made == _files(tmp_path / "b" / f"big_{kind}")
    # In one process (no worker started: the parts are made one after another): the same bytes.
    from mcpgen.cli import main

    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main([kind, str(source), "-o", str(tmp_path / "c" / f"big_{kind}")])
    assert ei.value.code == 0
    assert made == _files(tmp_path / "c" / f"big_{kind}")
    checked = _mypy(tmp_path / "a" / f"big_{kind}")
    assert checked.returncode == 0, checked.stdout[-3000:]


# A worker that dies holding a part: the first part a worker (not mcpgen itself) is handed.
_KILL_A_WORKER = """
import os, signal
import mcpgen.models.dcg as dcg
_main, _real = os.getpid(), dcg.run_in_process
def _dying(doc, aliases):
    if os.getpid() != _main and "Tool000Args" in doc.get("$defs", {}):
        os.kill(os.getpid(), signal.SIGKILL)
    return _real(doc, aliases)
dcg.run_in_process = _dying
"""


def test_a_worker_killed_midway_is_one_line_and_a_failed_run(source: Path, tmp_path: Path) -> None:
    proc = _mcpgen(["client", str(source), "-o", "out"], tmp_path, prelude=_KILL_A_WORKER)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode not in (0, None)
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert "datamodel-code-generator failed: its worker process ended (killed by signal 9)" in err
    assert not (tmp_path / "out").exists()
    assert not _wait_empty(proc.pid), "a worker outlived mcpgen"


# A worker that signals it holds a document (a file appears) and then keeps it: the run cannot
# end on its own, so the test stops it by an event, never after a guessed sleep. `{part}` picks
# the document: the first part of the catalog (midway), or any, the warm-up's included (startup).
_HOLD = """
import os, time
import mcpgen.models.dcg as dcg
_main, _real = os.getpid(), dcg.run_in_process
def _holding(doc, aliases):
    if os.getpid() != _main and {part}:
        open(os.environ["MCPGEN_TEST_HOLDING"], "a").close()
        time.sleep(3600)
    return _real(doc, aliases)
dcg.run_in_process = _holding
"""
_HOLD_A_PART = _HOLD.format(part='"Tool000Args" in doc.get("$defs", {})')
_HOLD_THE_WARM_UP = _HOLD.format(part="True")


def _mcpgen_holding(
    prelude: str, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> subprocess.Popen[str]:
    """`mcpgen client` with a worker holding the document `prelude` picks, once it holds it."""
    holding = tmp_path / "holding"
    monkeypatch.setenv("MCPGEN_TEST_HOLDING", str(holding))
    proc = _mcpgen(["client", str(source), "-o", "out"], tmp_path, prelude=prelude)
    deadline = time.monotonic() + 120
    while not holding.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holding.exists(), "no worker was handed the document"
    return proc


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_ctrl_c_or_killing_mcpgen_midway_leaves_no_process(
    how: int, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _mcpgen_holding(_HOLD_A_PART, source, tmp_path, monkeypatch)
    assert len(_session(proc.pid)) == 1 + worker_count(), "mcpgen and its workers"
    if how == signal.SIGINT:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    else:
        os.kill(proc.pid, signal.SIGKILL)  # mcpgen alone: its workers must follow
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in err, err
    assert not _wait_empty(proc.pid), "a worker outlived mcpgen"
    assert not (tmp_path / "out").exists()


def test_ctrl_c_while_mcpgen_starts_is_one_line(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker warms up while mcpgen still imports its CLI: Ctrl-C then lands in an import.
    proc = _mcpgen_holding(_HOLD_THE_WARM_UP, source, tmp_path, monkeypatch)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "mcpgen: error: interrupted\n", err
    assert not _wait_empty(proc.pid), "a worker outlived mcpgen"
