"""A scaffolded server starts without work that can wait: no jsonschema import, no validator and
no pydantic model built until a tool is called (bench/cold_start.py measures what that buys);
the first call still checks its arguments exactly and builds only the models it uses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

WEATHER = Path(__file__).resolve().parents[3] / "examples" / "weather"

SCRIPT = """
import asyncio, json, sys
from pydantic import BaseModel
from mcpgen.runtime import connect_memory
from weather_server import build_server
from weather_server.handlers import Handlers
from weather_server._generated import models

def built():
    # (pydantic files a parametrized generic such as `RootModel[list[str]]` in the module too)
    return sorted(n for n, c in vars(models).items() if n.isidentifier() and isinstance(c, type)
                  and issubclass(c, BaseModel) and c.__module__ == models.__name__ and c.__pydantic_complete__)

async def main():
    report = {}
    server = build_server(Handlers())
    report["at start"] = {"jsonschema": "jsonschema" in sys.modules, "built": built()}
    async with connect_memory(server) as session:
        report["listed"] = len(await session.list_tools())
        report["after tools/list"] = {"jsonschema": "jsonschema" in sys.modules, "built": built()}
        report["refused"] = await session.call_tool("list_cities", {"country": 7})
        report["called"] = await session.call_tool("list_cities", {"country": "JP"})
        report["after tools/call"] = {"jsonschema": "jsonschema" in sys.modules, "built": built()}
    print(json.dumps(report))

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_server_builds_nothing_before_its_first_tool_call() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=WEATHER, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["at start"] == {"jsonschema": False, "built": []}
    assert report["listed"] == 3
    assert report["after tools/list"] == {"jsonschema": False, "built": []}
    # Checked exactly on first use: the wrong type is refused, naming the argument.
    assert report["refused"]["isError"] is True and "country" in report["refused"]["content"][0]["text"]
    assert report["called"]["isError"] is False
    after = report["after tools/call"]
    assert after["jsonschema"] is True
    assert "ListCitiesArgs" in after["built"] and "GetForecastArgs" not in after["built"]
