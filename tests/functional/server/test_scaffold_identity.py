"""A scaffold says about itself what its source said (issue 35, item 3): generated from a live
server (tests/peers/real_shapes_server.py) or from its snapshot, the running scaffold answers
`initialize` with the source's instructions, title, websiteUrl and icons, in both eras; its
handlers.py overrides them (SERVER_INFO keys, INSTRUCTIONS)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
PEER = str(REPO / "tests/peers/real_shapes_server.py")
PY = sys.executable


def mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run([PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=180)
    assert done.returncode == 0, done.stderr


def said(argv: list[str], cwd: Path, protocol: str = "legacy") -> tuple[dict[str, Any], Any]:
    """serverInfo and instructions of the stdio server `argv`, as its `initialize` says them."""
    from mcpgen.runtime import connect_stdio

    async def main() -> tuple[dict[str, Any], Any]:
        async with connect_stdio(PY, argv, cwd=str(cwd), protocol=protocol) as c:
            return dict(c.server_info), c.instructions

    return asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("source", ["live", "snapshot"])
def test_the_scaffold_answers_initialize_as_its_source_did(tmp_path: Path, source: str) -> None:
    if source == "live":
        mcpgen("server", "-q", "-o", "shapes_server", "--", PY, PEER, cwd=tmp_path)
    else:
        mcpgen("snapshot", "-q", "-o", "snap.json", "--", PY, PEER, cwd=tmp_path)
        mcpgen("server", "-q", "-o", "shapes_server", "snap.json", cwd=tmp_path)
    source_info, source_instructions = said([PEER], tmp_path)
    assert {"title", "websiteUrl", "icons"} <= source_info.keys() and source_instructions
    for protocol in ("legacy", "2026-07-28"):
        assert said(["-m", "shapes_server"], tmp_path, protocol) == (source_info, source_instructions), protocol


@pytest.mark.slow
def test_handlers_override_what_the_scaffold_says(tmp_path: Path) -> None:
    mcpgen("server", "-q", "-o", "shapes_server", "--", PY, PEER, cwd=tmp_path)
    handlers = tmp_path / "shapes_server/handlers.py"
    text = handlers.read_text()
    head = "class Handlers(ToolsBase):\n"
    assert head in text
    handlers.write_text(
        text.replace(head, head + '    SERVER_INFO = {"title": "Mine", "websiteUrl": "https://mine.invalid"}\n'
                     "    INSTRUCTIONS = None\n")
    )  # fmt: skip
    info, instructions = said(["-m", "shapes_server"], tmp_path)
    assert info == {**said([PEER], tmp_path)[0], "title": "Mine", "websiteUrl": "https://mine.invalid"}
    assert instructions is None


@pytest.mark.slow
def test_a_source_without_instructions_gives_a_scaffold_without(tmp_path: Path) -> None:
    mcpgen("server", "-q", "-o", "shapes_server", "--", PY, PEER, "--no-instructions", cwd=tmp_path)
    info, instructions = said(["-m", "shapes_server"], tmp_path)
    assert info["title"] == "Real Shapes" and instructions is None
