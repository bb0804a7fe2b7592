"""The generated `_generated/` holds only what differs between servers (issue 12's budget):
its code outside the models' declarations (_models/) and pure-data modules stays within 80
lines plus 8 per tool."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from generated_size import budget, code_lines, counted_files, is_pure_data, synthetic_catalog

REPO = Path(__file__).resolve().parents[3]
EVERYTHING_CAPTURE = REPO / "tests/golden/inputs/everything.raw.json"


def scaffold(source: Path, out: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("catalog", ["everything", "synthetic100"])
def test_generated_code_stays_within_the_budget(catalog: str, tmp_path: Path) -> None:
    if catalog == "everything":
        source, tools = EVERYTHING_CAPTURE, 13
    else:
        source, tools = tmp_path / "synthetic.json", 100
        source.write_text(json.dumps(synthetic_catalog(tools)), encoding="utf-8")
    package = scaffold(source, tmp_path / "out_server")
    counts = counted_files(package)
    # The tables are pure data (that is why they are not counted); the code is what is left.
    assert is_pure_data((package / "_generated/tables.py").read_text(encoding="utf-8"))
    assert set(counts) == {"__init__.py", "base.py", "models.py"}
    assert sum(counts.values()) <= budget(tools), counts


def test_the_counting_rules() -> None:
    source = '"""Doc\n\nstring."""\n\n# a comment\nx = 1  # trailing\n\n\ndef f() -> None:\n    pass\n'
    assert code_lines(source) == 5  # the docstring's three lines, `x = 1`, `def`, `pass`: not blanks or comments
    assert is_pure_data('"""Doc."""\nfrom __future__ import annotations\nA = 1\nB: dict[str, int] = {}\n')
    assert not is_pure_data("import json\nA = json.loads('1')\n")
    assert not is_pure_data("def f() -> None: ...\n")
