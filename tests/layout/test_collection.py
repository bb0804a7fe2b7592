"""Any test folder runs alone or with any other (`pytest tests/models tests/testing` collected
with two errors once: two conftest.py are both imported as `conftest`).

pytest's default import mode puts each test folder without an `__init__.py` first on sys.path
and imports its modules by their bare names, so a name two folders share (a helper module, or a
test importing `conftest`) resolves to whichever folder came first. The rule that prevents it:
every module name under tests/ is unique (conftest.py and __init__.py aside) and no module
imports `conftest`; the static test holds the rule for every pair at once, and the slow one
collects, for real, every folder alone and every pair of folders that both have a conftest.py
(the one name folders may share)."""

from __future__ import annotations

import ast
import itertools
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
SHARED = {"conftest.py", "__init__.py"}


def _modules() -> list[Path]:
    skip = (TESTS / "golden" / "expected", TESTS / "peers" / "node_modules")
    return [p for p in TESTS.rglob("*.py") if not any(p.is_relative_to(s) for s in skip)]


def _folders() -> list[Path]:
    return sorted(p for p in TESTS.iterdir() if p.is_dir() and any(p.rglob("test_*.py")) and p.name != "peers")


def test_module_names_are_unique_and_nothing_imports_conftest() -> None:
    names = Counter(p.name for p in _modules() if p.name not in SHARED)
    assert [n for n, count in names.items() if count > 1] == []
    importing: list[str] = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append(node.module)
            if any(name.split(".")[0] == "conftest" for name in found):
                importing.append(str(path.relative_to(TESTS)))
    assert importing == []


def _collect(*folders: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *map(str, folders)],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
@pytest.mark.timeout(1800)  # some 25 collections, a few at a time
def test_every_folder_alone_and_every_pair_with_a_conftest_each_collect() -> None:
    folders = _folders()
    with_conftest = [f for f in folders if any(f.rglob("conftest.py"))]
    assert len(folders) > 10 and len(with_conftest) >= 3
    runs = [(f,) for f in folders] + list(itertools.permutations(with_conftest, 2))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda run: _collect(*run), runs))
    failed = {
        " ".join(f.name for f in run): d.stdout[-2000:] for run, d in zip(runs, done, strict=True) if d.returncode != 0
    }
    assert failed == {}
