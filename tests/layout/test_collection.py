"""Any test folder runs alone or with any other (`pytest tests/models tests/testing` collected
with two errors once: two conftest.py are both imported as `conftest`).

pytest's default import mode puts each test folder without an `__init__.py` first on sys.path
and imports its modules by their bare names, so a name two folders share (a helper module, or a
test importing `conftest`) resolves to whichever folder came first. The rule that prevents it:
every module name under tests/ is unique (conftest.py and __init__.py aside) and no module
imports `conftest`; the static test holds the rule for every pair at once, and the slow one
collects, for real, every folder alone, recording what each imported under which name, and
checks every pair of folders from those records (one collection per folder, not one per pair)."""

from __future__ import annotations

import ast
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

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


# One collection of one folder, in a fresh interpreter, recording what the pair check needs:
# the name and file of every module under tests/ it imported (test modules, helpers, packages)
# and of every conftest pytest registered (a bare `conftest` is dropped from sys.modules before
# the next one is imported, so the snapshot alone would miss them).
_RECORD = """
import json, sys, types
from pathlib import Path
import pytest

tests, out, folder = Path(sys.argv[1]), sys.argv[2], sys.argv[3]


def _file(module):
    file = getattr(module, "__file__", None)
    return str(Path(file).resolve()) if file and Path(file).resolve().is_relative_to(tests) else None


class Record:
    conftests, modules, conftest_users = [], {}, []

    def pytest_plugin_registered(self, plugin):
        if _file(plugin) and Path(_file(plugin)).name == "conftest.py":
            self.conftests.append([plugin.__name__, _file(plugin)])

    def pytest_collection_finish(self, session):
        self.modules = {n: _file(m) for n, m in list(sys.modules.items()) if _file(m)}
        # A module holding a conftest, or what one defined, got whichever `conftest` was last
        # imported: alone its own folder's, in a pair perhaps the other's.
        self.conftest_users = sorted(
            n
            for n, m in list(sys.modules.items())
            if _file(m)
            and Path(_file(m)).name != "conftest.py"
            and any(_of_conftest(v) for v in list(vars(m).values()))
        )


def _of_conftest(value):
    try:
        name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    except Exception:
        return False
    return isinstance(name, str) and name.split(".")[-1] == "conftest"


record = Record()
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", folder], plugins=[record])
with open(out, "w") as f:
    kept = {"conftests": record.conftests, "modules": record.modules, "conftest_users": record.conftest_users}
    json.dump({"code": int(code), **kept}, f)
sys.exit(int(code))
"""


def _collect(folder: Path, out: Path, tests: Path = TESTS) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-c", _RECORD, str(tests), str(out), str(folder)],
        cwd=tests.parent,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return done, json.loads(out.read_text()) if out.exists() else {}


def _clashes(*records: dict[str, Any]) -> dict[str, list[str]]:
    """Module names the folders of `records` would import from two different files, run
    together. A bare `conftest` is the one name they may share: pytest drops it from
    sys.modules before it imports the next (nothing imports it by name: the static test)."""
    files: dict[str, set[str]] = {}
    for record in records:
        for name, file in [*record["modules"].items(), *record["conftests"]]:
            if name != "conftest":
                files.setdefault(name, set()).add(file)
    return {name: sorted(found) for name, found in files.items() if len(found) > 1}


@pytest.mark.slow
@pytest.mark.timeout(1800)  # some 30 collections, a few at a time
def test_every_folder_alone_and_every_pair_collect(tmp_path: Path) -> None:
    """Each folder collected once, alone (for real); every pair of folders checked from those
    collections' records: the failure a pair can add to two folders that collect alone is a
    module name both import from different files (the static test's rule, on what really
    gets imported, package-qualified names and conftests included)."""
    folders = _folders()
    with_conftest = [f for f in folders if any(f.rglob("conftest.py"))]
    assert len(folders) > 10 and len(with_conftest) >= 3
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda f: _collect(f, tmp_path / f"{f.name}.json"), folders))
    failed = {f.name: d.stdout[-2000:] for f, (d, _) in zip(folders, done, strict=True) if d.returncode != 0}
    assert failed == {}
    records = {f.name: record for f, (_, record) in zip(folders, done, strict=True)}
    assert {name: r["conftest_users"] for name, r in records.items() if r["conftest_users"]} == {}
    # The records see what they must: each folder's own test modules and its conftests.
    assert all(any(Path(file).name.startswith("test_") for file in r["modules"].values()) for r in records.values())
    assert all(
        any(Path(c[1]).parent == f for c in records[f.name]["conftests"])
        for f in with_conftest
        if (f / "conftest.py").exists()
    )
    pairs = {f"{a} {b}": _clashes(records[a], records[b]) for a, b in itertools.combinations(sorted(records), 2)}
    assert {pair: clash for pair, clash in pairs.items() if clash} == {}


@pytest.mark.slow
def test_the_records_predict_what_a_pair_collected_together_breaks_on(tmp_path: Path) -> None:
    """Two folders that collect alone and fail together (a helper name both use, a test taking
    what its folder's conftest defines by importing `conftest`): their records say both."""
    tests = tmp_path / "tests"
    files = {
        "a/conftest.py": "LIMIT = object()\n\ndef made():\n    return 1\n",
        "a/helpers.py": "A = 1\n",
        "a/test_a.py": "from conftest import made\nfrom helpers import A\n\ndef test_a():\n    assert A and made()\n",
        "b/conftest.py": "",
        "b/helpers.py": "B = 1\n",
        "b/test_b.py": "from helpers import B\n\ndef test_b():\n    assert B\n",
    }
    for name, text in files.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(text)
    (done_a, a), (done_b, b) = (_collect(tests / f, tmp_path / f"{f}.json", tests) for f in "ab")
    assert done_a.returncode == done_b.returncode == 0, done_a.stdout + done_b.stdout
    assert a["conftest_users"] == ["test_a"] and b["conftest_users"] == []
    assert _clashes(a, b) == {
        "helpers": [str((tests / "a/helpers.py").resolve()), str((tests / "b/helpers.py").resolve())]
    }
    together = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "b", "a"],
        cwd=tests,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert together.returncode != 0 and "error" in together.stdout.lower()


def test_the_pair_check_finds_two_files_imported_under_one_name() -> None:
    a = {
        "modules": {"helpers": "/t/a/helpers.py", "test_a": "/t/a/test_a.py"},
        "conftests": [["conftest", "/t/a/conftest.py"]],
    }
    b = {
        "modules": {"helpers": "/t/b/helpers.py"},
        "conftests": [["conftest", "/t/b/conftest.py"], ["pkg.conftest", "/t/b/pkg/conftest.py"]],
    }
    c = {"modules": {"test_a": "/t/a/test_a.py"}, "conftests": [["pkg.conftest", "/t/c/pkg/conftest.py"]]}
    assert _clashes(a, b) == {"helpers": ["/t/a/helpers.py", "/t/b/helpers.py"]}
    assert _clashes(a, c) == {}  # the same file twice, and bare conftests, are no clash
    assert _clashes(b, c) == {"pkg.conftest": ["/t/b/pkg/conftest.py", "/t/c/pkg/conftest.py"]}
