"""A drift warning says what changed (issue 35, item 8): a client generated from a snapshot whose
tool description embedded another machine's working directory, and whose argument type has since
changed, connects to the real server (tests/peers/real_shapes_server.py) and the warning names
the changed pointer and shows the changed text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PEER = str(REPO / "tests/peers/real_shapes_server.py")
PY = sys.executable


@pytest.mark.slow
def test_the_drift_warning_names_the_changed_field_and_text(tmp_path: Path) -> None:
    def mcpgen(*args: str) -> None:
        done = subprocess.run(
            [PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=tmp_path, timeout=180
        )
        assert done.returncode == 0, done.stderr

    mcpgen("snapshot", "-q", "-o", "snap.json", "--", PY, PEER)
    doc = json.loads((tmp_path / "snap.json").read_text())
    (tool,) = doc["tools"]
    tool["description"] = "Add two numbers (run in /home/alice/work)."  # the server now says "Add two numbers."
    tool["inputSchema"]["properties"]["a"] = {"type": "number"}  # the server now says integer
    (tmp_path / "snap.json").write_text(json.dumps(doc))
    mcpgen("client", "-q", "-o", "shapes_client", "snap.json")
    script = (
        "import warnings\n"
        "from shapes_client import Client\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    with Client.connect_stdio({PY!r}, [{PEER!r}]):\n"
        "        pass\n"
        "print('\\n'.join(str(w.message) for w in caught))\n"
    )
    done = subprocess.run([PY, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "changed: add (at /inputSchema/properties/a/type)" in done.stdout
    # The changed span with ten characters before it, and what it became.
    shown = (
        'add/description: tool description changed (..."wo numbers (run in /home/alice/work)"... -> ..."wo numbers"...)'
    )
    assert shown in done.stdout
