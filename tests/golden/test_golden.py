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
    with pytest.raises(SystemExit) as ei:
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


def _black_stable(text: str) -> bool:
    import black
    from black.mode import Mode, TargetVersion

    mode = Mode(target_versions={TargetVersion.PY310}, line_length=100)
    return black.format_str(text, mode=mode) == text


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_output_is_what_black_makes_of_it(case: str) -> None:
    # mcpgen formats with one black pass (black.format_str does two); the result must be final.
    for path in sorted((HERE / "expected" / case).glob("*.py")):
        assert _black_stable(path.read_text(encoding="utf-8")), f"{case}/{path.name} is not black-stable"


def test_wide_signatures_and_long_literals_are_black_stable(tmp_path: Path) -> None:
    """Where black's second pass would matter: exploded signatures, long strings, nested calls."""
    import json

    long = "a_really_quite_long_argument_name_that_forces_black_to_split_the_signature"
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
    with pytest.raises(SystemExit) as ei:
        main(["client", str(src), "-o", str(tmp_path / "wide_client")])
    assert ei.value.code == 0
    for path in sorted((tmp_path / "wide_client").glob("*.py")):
        assert _black_stable(path.read_text(encoding="utf-8")), path.name
