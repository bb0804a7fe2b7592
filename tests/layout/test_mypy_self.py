"""mcpgen itself (generator and runtime) passes mypy --strict, as the code it generates does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_mcpgen_passes_mypy_strict() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "mcpgen"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]
    assert "Success: no issues found" in r.stdout
