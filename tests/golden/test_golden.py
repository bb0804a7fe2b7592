"""Golden end-to-end: captures of real servers -> committed packages, byte for byte; mypy --strict.

Refresh with MCPGEN_UPDATE_GOLDEN=1 after an intended change, and review the diff.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.cli import main
from mcpgen.output.formatter import RUFF_FORMAT_ARGS, ruff_binary

HERE = Path(__file__).resolve().parent
CASES = {
    "everything_client": ["inputs/everything.raw.json", "--name", "everything_client"],
    "time_client": ["inputs/time.raw.json", "--name", "time_client"],
}


def _tree(path: Path) -> dict[str, bytes]:
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, tmp_path: Path) -> None:
    src, *opts = CASES[case]
    out = tmp_path / case
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["client", str(HERE / src), "-o", str(out), *opts])
    assert ei.value.code == 0
    expected = HERE / "expected" / case
    if os.environ.get("MCPGEN_UPDATE_GOLDEN") == "1":
        shutil.rmtree(expected, ignore_errors=True)
        shutil.copytree(out, expected)
    got, want = _tree(out), _tree(expected)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], (
            f"{case}/{name} differs from the golden copy (MCPGEN_UPDATE_GOLDEN=1 to refresh)"
        )


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_passes_mypy_strict(case: str, tmp_path: Path) -> None:
    pkg = tmp_path / case
    shutil.copytree(HERE / "expected" / case, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11", case],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success: no issues found" in r.stdout


def _formatter_changes(paths: list[Path]) -> str:
    """What ruff's formatter (mcpgen's pinned one, mcpgen's settings) would still change ("" if nothing)."""
    ruff = ruff_binary()
    assert isinstance(ruff, str), ruff
    r = subprocess.run(
        [ruff, *RUFF_FORMAT_ARGS, "--check", "--", *map(str, paths)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode in (0, 1), r.stderr
    return r.stdout if r.returncode else ""


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_output_is_what_the_formatter_makes_of_it(case: str) -> None:
    # A hand edit of a golden copy (or a formatter that changes its mind on its own output) shows here.
    paths = sorted((HERE / "expected" / case).glob("*.py"))
    assert paths
    assert _formatter_changes(paths) == "", f"{case}: not formatter-stable"


def test_wide_signatures_and_long_literals_are_formatter_stable(tmp_path: Path) -> None:
    """Where a second formatting pass could matter: exploded signatures, long strings, nested calls."""
    import json

    long = "a_really_quite_long_argument_name_that_forces_the_formatter_to_split_the_signature"
    props = {
        f"{long}_{i}": {"type": ["string", "null"], "enum": [f"v{j}" * 9 for j in range(6)] + [None]} for i in range(4)
    }
    tools = [
        {
            "name": "wide-tool",
            "description": "x" * 300,
            "inputSchema": {"type": "object", "properties": props, "required": [f"{long}_0"]},
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
                "required": ["result"],
            },
        },
        {"name": "n" * 90, "inputSchema": {"type": "object", "properties": {"x": {"type": "integer", "default": 1}}}},
    ]
    src = tmp_path / "tools.json"
    src.write_text(json.dumps({"tools": tools}))
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["client", str(src), "-o", str(tmp_path / "wide_client")])
    assert ei.value.code == 0
    paths = sorted((tmp_path / "wide_client").glob("*.py"))
    assert len(paths) >= 4
    assert _formatter_changes(paths) == ""
