"""Interrupted at any step of a write (SIGKILL, Ctrl-C, a full disk), the output folder exists
and holds the complete old tree or the complete new tree, byte for byte; temporaries are
dot-named and the next run removes them."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from mcpgen.output import write
from mcpgen.output.ownership import walk

OLD = {"a.py": "old a\n", "sub/b.py": "old b\n", "stale.py": "stale\n", ".mcpgen-manifest.json": "{}\n"}
USER = {"handlers.py": "mine\n", "notes/x.txt": "mine too\n"}
NEW = {"a.py": "new a\n", "sub/b.py": "old b\n", "c/d.py": "new d\n", ".mcpgen-manifest.json": "{1}\n"}


def state(folder: Path) -> dict[str, str]:
    """Every entry (links as links), dot-named ones included."""
    out: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            p = Path(root) / name
            rel = p.relative_to(folder).as_posix()
            out[rel] = "-> " + os.readlink(p) if p.is_symlink() else p.read_text()
    return out


def setup(tmp: Path) -> Path:
    out = tmp / "pkg"
    for rel, text in {**OLD, **USER}.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    os.symlink("notes/x.txt", out / "ln")
    return out


def expected(tmp: Path) -> tuple[dict[str, str], dict[str, str]]:
    ref = setup(tmp / "ref")
    old = state(ref)
    write.write_tree(ref, NEW, walk(ref), {"stale.py"})
    return old, state(ref)


DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from mcpgen.output import write
    from mcpgen.output.ownership import walk
    n, how, exchange = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
    # A shell's background job starts with SIGINT ignored, and Python keeps that: restore Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []
    def hook(what):
        seen.append(what)
        if len(seen) == n:
            os.kill(os.getpid(), signal.SIGKILL if how == "kill" else signal.SIGINT)
    write.step_hook = hook
    if not exchange:
        write._exchange = lambda a, b: False
    out = Path(sys.argv[4])
    write.write_tree(out, eval(sys.argv[5]), walk(out), {"stale.py"})
    print(len(seen))
    """
)


def run_driver(n: int, how: str, exchange: bool, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, str(n), how, "1" if exchange else "0", str(out), repr(NEW)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
@pytest.mark.parametrize("how", ["kill", "int"])
def test_killed_or_interrupted_at_every_step(how: str, exchange: bool, tmp_path: Path) -> None:
    old, new = expected(tmp_path)
    n = 1
    while True:
        case = tmp_path / f"case{n}"
        out = setup(case)
        proc = run_driver(n, how, exchange, out)
        if proc.returncode == 0:  # the write finished before step n: every step was tried
            assert int(proc.stdout) == n - 1 and state(out) == new
            break
        assert proc.returncode == (-signal.SIGKILL if how == "kill" else -signal.SIGINT), proc.stderr
        if how == "int":
            assert "KeyboardInterrupt" in proc.stderr
        now = state(out) if out.is_dir() else None
        if exchange or now is not None:
            assert now in (old, new), (n, now)
        leftovers = [p.name for p in case.iterdir() if p.name != "pkg"]
        assert all(name.startswith(".pkg.mcpgen-") for name in leftovers), leftovers
        if how == "int":
            assert not leftovers  # Ctrl-C cleans up at once
        # The next run recovers (an old tree moved back, temporaries removed) and writes.
        write.recover(out)
        assert state(out) in (old, new)
        write.write_tree(out, NEW, walk(out), {"stale.py"})
        assert state(out) == new and sorted(p.name for p in case.iterdir()) == ["pkg"]
        n += 1
    assert n > 8  # mkdir, links, writes, swap, cleanup


FILLS = ("write", "link", "mkdir")  # the steps that take disk space


def reference_steps(tmp: Path) -> list[str]:
    """The steps of one uninterrupted write of NEW over OLD, in order."""
    out = setup(tmp / "steps")
    seen: list[str] = []
    saved, write.step_hook = write.step_hook, seen.append
    try:
        write.write_tree(out, NEW, walk(out), {"stale.py"})
    finally:
        write.step_hook = saved
    return seen


@pytest.mark.parametrize("at", range(1, 12))
def test_a_full_disk_at_any_write_leaves_the_old_tree(at: int, tmp_path: Path, monkeypatch: Any) -> None:
    old, new = expected(tmp_path)
    steps = reference_steps(tmp_path)
    assert len(steps) < 12 and sum(s.startswith(FILLS) for s in steps) == 8  # the cases reach every step
    out = setup(tmp_path / "case")
    seen: list[str] = []

    def hook(what: str) -> None:
        seen.append(what)
        if len(seen) == at and what.startswith(FILLS):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(write, "step_hook", hook)
    if at <= len(steps) and steps[at - 1].startswith(FILLS):
        with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)) as caught:
            write.write_tree(out, NEW, walk(out), {"stale.py"})
        assert caught.value.errno == errno.ENOSPC
        assert seen == steps[:at]  # it stopped at the full disk
        assert state(out) == old
    else:
        # A rename, the cleanup, or past the last step: nothing takes space, so a full disk
        # cannot stop it, and the write completes.
        write.write_tree(out, NEW, walk(out), {"stale.py"})
        assert seen == steps and state(out) == new
    assert sorted(p.name for p in (tmp_path / "case").iterdir()) == ["pkg"]


def test_a_real_full_disk_is_one_error_and_the_old_tree_stays(tmp_path: Path) -> None:
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        out = setup(mnt)
        old = state(out)
        big = {**NEW, "big.py": "x" * 400_000}
        with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)) as ei:
            write.write_tree(out, big, walk(out), {"stale.py"})
        assert ei.value.errno == errno.ENOSPC
        assert state(out) == old and sorted(p.name for p in mnt.iterdir()) == ["pkg"]
        # Through the command: one `mcpgen: error:` line, exit 2.
        schema = tmp_path / "t.json"
        many = {f"p{i}": {"type": "string", "description": "d" * 2000} for i in range(100)}
        schema.write_text(json.dumps([{"name": "t", "inputSchema": {"type": "object", "properties": many}}]))
        proc = subprocess.run(
            [sys.executable, "-m", "mcpgen.cli", "client", str(schema), "-o", str(mnt / "gen"), "--runtime", "vendor"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert lines[0].startswith("mcpgen: error: ") and "No space left" in lines[0]
        assert not (mnt / "gen").exists() and not [p for p in mnt.iterdir() if ".mcpgen-" in p.name]
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_user_files_keep_their_inode_and_a_new_folder_is_made_in_one_rename(tmp_path: Path) -> None:
    out = setup(tmp_path)
    ino = (out / "handlers.py").stat().st_ino
    write.write_tree(out, NEW, walk(out), {"stale.py"})
    assert (out / "handlers.py").stat().st_ino == ino
    assert not (out / "stale.py").exists() and (out / "ln").is_symlink()
    fresh = tmp_path / "fresh"
    write.write_tree(fresh, NEW, walk(fresh), set())
    assert state(fresh) == NEW
