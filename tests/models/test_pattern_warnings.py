"""The generator warns, one line per tool and position, about each pattern the run time's linear
engine (runtime/core/patterns.py) cannot run; and generated models never carry a pattern of their
own (pydantic's `pattern=`): the exact check, through RE2, is the only reader."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

LOOK = {"type": "string", "pattern": "(?=x)y"}
BACKREF = r"(a)\1"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {"d": LOOK},
    "properties": {
        "a": LOOK,
        "b": {"type": "object", "patternProperties": {BACKREF: {}}},
        "c": {"type": "array", "items": {"anyOf": [LOOK, {"type": "integer"}]}},
        "fine": {"type": "string", "pattern": "^(a+)+$"},  # RE2 runs it: no warning
    },
}
EXPECTED = {
    "'look'#/inputSchema/$defs/d/pattern",
    "'look'#/inputSchema/properties/a/pattern",
    "'look'#/inputSchema/properties/b/patternProperties",
    "'look'#/inputSchema/properties/c/items/anyOf/0/pattern",
    "'look'#/outputSchema/properties/r/pattern",
}


def test_one_warning_per_pattern_that_cannot_run_and_no_pattern_in_models(tmp_path: Path) -> None:
    tool = {"name": "look", "inputSchema": SCHEMA, "outputSchema": {"type": "object", "properties": {"r": LOOK}}}
    (tmp_path / "t.json").write_text(json.dumps([tool]))
    for kind in ("client", "server"):
        done = subprocess.run(
            [sys.executable, "-m", "mcpgen.cli", kind, str(tmp_path / "t.json"), "-o", str(tmp_path / kind)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        warned = [line for line in done.stderr.splitlines() if "cannot run in linear time" in line]
        assert {line.split(": ")[2] for line in warned} == EXPECTED, warned
        assert len(warned) == len(EXPECTED)
        assert any("lookaround" in line for line in warned) and any("backreference" in line for line in warned)
        models = "".join(p.read_text() for p in (tmp_path / kind).rglob("*.py") if "_models" in p.parts)
        assert models and "pattern=" not in models and "regex" not in models
