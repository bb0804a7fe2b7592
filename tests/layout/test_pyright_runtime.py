"""The runtime (`mcpgen/runtime`) passes pyright's strict mode, as the code it generates does:
`--runtime vendor` copies it into generated packages, which users check with pyright (Pylance).
The scope and the mode are [tool.pyright] in pyproject.toml, no rule relaxed; it holds for
every supported Python: the config's version, the oldest `requires-python` allows and the newest
pyright knows as stable (`make lint` runs the same three checks)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[2]
# The newest Python pyright 1.1.4xx treats as stable (its latestStablePythonVersion).
NEWEST = "3.14"


def _oldest() -> str:
    """The oldest Python the runtime supports: its distribution's `requires-python` floor."""
    spec = tomllib.loads((REPO / "runtime" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = re.fullmatch(r">=\s*(3\.\d+)", spec["requires-python"])
    assert found, spec["requires-python"]
    return found.group(1)


VERSIONS = (None, _oldest(), NEWEST)  # None: the config's own pythonVersion


def test_make_lint_runs_pyright_for_the_oldest_and_the_newest_python() -> None:
    lint = (REPO / "Makefile").read_text(encoding="utf-8").split("\nlint:", 1)[1].split("\n\n", 1)[0]
    runs = re.findall(r"-m pyright(?: --pythonversion (\S+))?", lint)
    assert sorted(runs) == sorted(v or "" for v in VERSIONS), lint


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v or "config")
def test_the_runtime_passes_pyright_strict(version: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYRIGHT_PYTHON_", "MYPYPATH"))}
    pinned = ["--pythonversion", version] if version else []
    done = subprocess.run(
        # (the venv's Python resolves the imports, as [tool.pyright]'s venv does under make lint)
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable, *pinned],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads(done.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    shown = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}" for d in errors[:20]]
    assert report["summary"]["filesAnalyzed"] > 100, report["summary"]
    assert errors == [], "\n".join(shown)
    assert done.returncode == 0, done.stderr[-2000:]
