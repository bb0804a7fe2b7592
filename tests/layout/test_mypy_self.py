"""mcpgen itself (generator and runtime) passes mypy --strict, as the code it generates does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
# 3.10 is the oldest Python pyproject admits: a 3.11-only call (create_task(context=)) once
# slipped through because only the default version was checked.
@pytest.mark.parametrize("python_version", ["3.10", "3.11"])
def test_mcpgen_passes_mypy_strict(python_version: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", python_version, "mcpgen"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]
    assert "Success: no issues found" in r.stdout
