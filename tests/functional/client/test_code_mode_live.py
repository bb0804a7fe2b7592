"""Code-mode packages generated from live servers (npm server-everything, mcp-server-time) call
their tools through one connection, one tool module at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
EVERYTHING = [
    "node",
    str(REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
TIME_SERVER = [sys.executable, "-m", "mcp_server_time"]


def _generate(root: Path, name: str, command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", "-o", name, "--layout", "code-mode", "--", *command],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def _run(root: Path, code: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=180, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_everything_tools_called_one_module_at_a_time(tmp_path: Path) -> None:
    _generate(tmp_path, "everything_tools", EVERYTHING)
    got = _run(
        tmp_path,
        "import asyncio, json, sys\n"
        "from everything_tools import connect, search_tools\n"
        "from everything_tools.tools.echo import echo\n"
        "from everything_tools.tools.get_sum import get_sum\n"
        "from everything_tools.tools.get_structured_content import get_structured_content\n"
        "async def main():\n"
        "    async with connect():\n"
        "        said = (await echo(message='hi')).text\n"
        "        total = (await get_sum(a=2, b=40)).text\n"
        "        weather = await get_structured_content(location='Chicago')\n"
        "        both = await asyncio.gather(echo(message='x'), echo(message='y'))\n"
        "        return said, total, type(weather).__name__, weather.model_dump(), [r.text for r in both]\n"
        "said, total, kind, weather, both = asyncio.run(main())\n"
        "others = sorted(m for m in sys.modules if m.startswith('everything_tools.tools.'))\n"
        "print(json.dumps([said, total, kind, weather, both, others, search_tools('echo')[0][0]]))",
    )
    said, total, kind, weather, both, others, first = got
    assert said == "Echo: hi" and "42" in total
    assert kind == "GetStructuredContentResult" and "temperature" in weather
    assert both == ["Echo: x", "Echo: y"]
    # Only the three tools used were ever imported.
    assert others == [
        "everything_tools.tools.echo",
        "everything_tools.tools.get_structured_content",
        "everything_tools.tools.get_sum",
    ]
    assert first == "echo"


@pytest.mark.slow
def test_time_tools_through_a_client_connected_another_way(tmp_path: Path) -> None:
    _generate(tmp_path, "time_tools", TIME_SERVER)
    got = _run(
        tmp_path,
        "import asyncio, json, sys\n"
        "from time_tools import AsyncClient, use, HINTS\n"
        "from time_tools.tools.convert_time import convert_time\n"
        "async def main():\n"
        f"    async with AsyncClient.connect_stdio({sys.executable!r}, ['-m', 'mcp_server_time']) as c:\n"
        "        with use(c):\n"
        "            r = await convert_time(source_timezone='UTC', time='12:00', target_timezone='Europe/Paris')\n"
        "            return r.target.timezone\n"
        "print(json.dumps([asyncio.run(main()), {k: dict(v) for k, v in HINTS.items()}]))",
    )
    zone, hints = got
    assert zone == "Europe/Paris"
    assert set(hints) == {"convert_time", "get_current_time"}
