"""A scaffolded server starts without work that can wait: no jsonschema import, no validator and
no pydantic model declared or built until a tool is called, no HTTP stack when it serves stdio
(bench/cold_start.py measures what that buys); the first call still checks its arguments
exactly and builds only the models it uses. A typed client's import loads no HTTP stack either."""

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

PARTS = "weather_server._generated._models."

def declared():
    # Each tool's classes live in _generated/_models/<method>.py, loaded on first use.
    return sorted(name[len(PARTS):] for name in sys.modules if name.startswith(PARTS)) or None

def state():
    return {"jsonschema": "jsonschema" in sys.modules, "declared": declared(), "built": built()}

def built():
    # (pydantic files a parametrized generic such as `RootModel[list[str]]` in the module too)
    return sorted(n for m in declared() or () for n, c in vars(sys.modules[PARTS + m]).items()
                  if n.isidentifier() and isinstance(c, type) and issubclass(c, BaseModel)
                  and c.__module__ == PARTS + m and c.__pydantic_complete__) or None

async def main():
    report = {}
    server = build_server(Handlers())
    report["at start"] = state()
    async with connect_memory(server) as session:
        report["listed"] = len(await session.list_tools())
        report["after tools/list"] = state()
        report["refused"] = await session.call_tool("list_cities", {"country": 7})
        report["called"] = await session.call_tool("list_cities", {"country": "JP"})
        report["after tools/call"] = state()
    print(json.dumps(report))

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_server_declares_nothing_before_its_first_tool_call_then_only_that_tools_models() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=WEATHER, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    # Not even declared: the model classes load with the first tool call.
    assert report["at start"] == {"jsonschema": False, "declared": None, "built": None}
    assert report["listed"] == 3
    assert report["after tools/list"] == {"jsonschema": False, "declared": None, "built": None}
    # Checked exactly on first use: the wrong type is refused, naming the argument.
    assert report["refused"]["isError"] is True and "country" in report["refused"]["content"][0]["text"]
    assert report["called"]["isError"] is False
    after = report["after tools/call"]
    assert after["jsonschema"] is True
    assert "ListCitiesArgs" in after["built"] and "GetForecastArgs" not in after["built"]
    # Only that tool's module (and what tools share) was even declared.
    assert after["declared"] == ["_shared", "list_cities"]


# What a stdio server or a typed client has no use for before its first answer: the HTTP stack
# (ours and the libraries under it), the CLI and the generator's own dependencies.
NOT_BEFORE_FIRST_ANSWER = (
    "http",
    "uvicorn",
    "httptools",
    "uvloop",
    "h11",
    "httpx",
    "httpcore",
    "click",
    "jsonschema",
    "jinja2",
    "mcpgen.runtime.transports.http_client",
    # The HTTP server but for what its command line and serve_http's signature need.
    *(
        f"mcpgen.runtime.server.http.{module.stem}"
        for module in (Path(__file__).resolve().parents[3] / "mcpgen" / "runtime" / "server" / "http").glob("*.py")
        if module.stem not in ("__init__", "limits", "security", "serving", "workers")
    ),
)
STDIO_REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _imported(importtime: str) -> set[str]:
    """Module names `python -X importtime` reported on stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


def _unwanted(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == bad or m.startswith(bad + ".") for bad in NOT_BEFORE_FIRST_ANSWER))


@pytest.mark.slow
def test_a_stdio_server_starts_without_the_http_stack(tmp_path: Path) -> None:
    assert "mcpgen.runtime.server.http.app" in NOT_BEFORE_FIRST_ANSWER  # (the folder is read right)
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(r) + "\n" for r in STDIO_REQUESTS), encoding="utf-8")
    with requests.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "weather_server"],
            stdin=stdin,
            capture_output=True,
            text=True,
            cwd=WEATHER,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    answers = {m.get("id"): m for m in map(json.loads, done.stdout.splitlines())}
    assert len(answers[2]["result"]["tools"]) == 3
    imported = _imported(done.stderr)
    assert "weather_server.handlers" in imported  # (the report is read right)
    assert _unwanted(imported) == []


@pytest.mark.slow
def test_importing_a_typed_client_and_a_tools_models_loads_no_http_stack_and_no_event_loop(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", str(WEATHER / "schemas"), "-o", "weather_client"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import weather_client\nfrom weather_client.models import ListCitiesArgs",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    imported = _imported(done.stderr)
    assert "weather_client._models._shared" in imported  # (the report is read right)
    # A client connects over stdio or HTTP: httpx loads with connect_http, not with the package,
    # and asyncio (with its ssl, subprocess and logging) with the first connection.
    assert _unwanted(imported) == []
    assert sorted(imported & {"asyncio", "ssl", "subprocess", "logging", "concurrent.futures"}) == []
