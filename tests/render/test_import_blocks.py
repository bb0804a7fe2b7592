"""Generated imports read like a careful human wrote them: every generated file's import block is
grouped and sorted as ruff's isort rules write it, and nothing is imported that is not used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.cli import main

REPO = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).with_name("ruff")
SOURCES = {
    "everything": REPO / "tests/golden/inputs/everything.raw.json",  # tools with and without output schemas
    "conformance": REPO / "examples/conformance/schemas",  # prompts, resources, templates
    "time": REPO / "tests/golden/inputs/time.raw.json",  # every tool typed, no optional argument
}


def _generate(args: list[str]) -> None:
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(args)
    assert ei.value.code == 0


@pytest.mark.slow
def test_generated_imports_are_sorted_and_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, source in SOURCES.items():
        for kind in ("client", "server"):
            for runtime in ("import", "vendor"):
                _generate([kind, str(source), "-o", str(tmp_path / f"{name}_{kind}_{runtime}"), "--runtime", runtime])
    capsys.readouterr()
    done = subprocess.run(
        [str(RUFF), "check", "--isolated", "--select", "I,F401", "--line-length", "100", "--exclude", "_runtime", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-1000:]
    checked = list(tmp_path.rglob("*.py"))
    assert len([p for p in checked if "_runtime" not in p.parts]) >= 12 * 4
