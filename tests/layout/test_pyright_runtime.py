"""The runtime (`mcpgen/runtime`) passes pyright's strict mode, as the code it generates does:
`--runtime vendor` copies it into generated packages, which users check with pyright (Pylance).
The scope, the mode and the one relaxed rule are [tool.pyright] in pyproject.toml (`make lint`
runs the same check)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_runtime_passes_pyright_strict() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYRIGHT_PYTHON_", "MYPYPATH"))}
    done = subprocess.run(
        # (the venv's Python resolves the imports, as [tool.pyright]'s venv does under make lint)
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable],
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
