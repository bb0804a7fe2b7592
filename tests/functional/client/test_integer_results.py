"""A number result keeps an integer an integer (issue 35, item 8): a scaffold whose handler answers
`value=1` and `items=[1, 2.5]` under an outputSchema of "number"s, called through a client
generated from the same file over stdio, gives back 1 (an int) and [1, 2.5], not 1.0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PY = sys.executable
TOOL = {
    "name": "measure",
    "inputSchema": {"type": "object", "properties": {}},
    "outputSchema": {
        "type": "object",
        "properties": {"value": {"type": "number"}, "items": {"type": "array", "items": {"type": "number"}}},
        "required": ["value", "items"],
    },
}


@pytest.mark.slow
def test_an_integer_number_result_stays_an_integer(tmp_path: Path) -> None:
    def mcpgen(*args: str) -> None:
        done = subprocess.run(
            [PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=tmp_path, timeout=180
        )
        assert done.returncode == 0, done.stderr

    (tmp_path / "tools.json").write_text(json.dumps({"tools": [TOOL]}), encoding="utf-8")
    mcpgen("server", "-q", "tools.json", "-o", "measure_server")
    mcpgen("client", "-q", "tools.json", "-o", "measure_client")
    handlers = tmp_path / "measure_server/handlers.py"
    text = handlers.read_text(encoding="utf-8")
    handlers.write_text(
        text.replace("raise NotImplementedError", "return models.MeasureResult(value=1, items=[1, 2.5])", 1)
    )
    script = (
        "from measure_client import Client\n"
        f"with Client.connect_stdio({PY!r}, ['-m', 'measure_server']) as c:\n"
        "    r = c.measure()\n"
        "print(repr(r.value), repr(r.items))\n"
    )
    done = subprocess.run([PY, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 [1, 2.5]"
