"""`mcpgen mock SOURCE` as a process: the official SDK client lists and calls it over stdio and
Streamable HTTP, in both eras; bad input exits 2 with one line; a scripted crash exits."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kit_support import SOURCES, load
from serving import serving

from mcpgen.catalog.instances import draw
from mcpgen.runtime.core.validation import compile_validator

ERAS = ["legacy", "2026-07-28"]
MCPGEN = [sys.executable, "-m", "mcpgen.cli"]


async def list_and_call_everything(client: Any, source: str) -> None:
    catalog = load(source)
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert sorted(listed) == sorted(t.name for t in catalog.tools)
    for i, tool in enumerate(catalog.tools):
        assert listed[tool.name].input_schema == tool.input_schema  # verbatim
        if (tool.raw.get("execution") or {}).get("taskSupport") == "required":
            # (Tasks extension) a tool that runs only as a task refuses a plain call, -32021
            with pytest.raises(Exception, match="this tool runs only as a task"):
                await client.call_tool(tool.name, draw(tool.input_schema, seed=i))
            continue
        result = await client.call_tool(tool.name, draw(tool.input_schema, seed=i))
        assert result.is_error is False, (tool.name, result)
        if tool.output_schema is not None:
            assert compile_validator(tool.output_schema)(result.structured_content) is None, tool.name


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("source", ["everything", "time", "conformance"])
def test_the_official_sdk_client_drives_the_stdio_mock(source: str, mode: str) -> None:
    from mcp import StdioServerParameters
    from mcp.client import Client

    async def main() -> None:
        params = StdioServerParameters(command=MCPGEN[0], args=[*MCPGEN[1:], "mock", str(SOURCES[source])])
        async with Client(params, mode=mode) as client:
            await list_and_call_everything(client, source)

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
def test_mock_http_serves_the_same_catalog_over_streamable_http(mode: str) -> None:
    from mcp.client import Client

    async def main(url: str) -> None:
        async with Client(url, mode=mode) as client:
            await list_and_call_everything(client, "everything")

    with serving([*MCPGEN, "mock", str(SOURCES["everything"]), "--http", "--port", "{port}"]) as url:
        asyncio.run(main(url))


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCPGEN, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_a_bad_overrides_file_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "over.yaml"
    bad.write_text("tools:\n  nope: {}\n", encoding="utf-8")
    done = run("mock", str(SOURCES["time"]), "--overrides", str(bad))
    assert done.returncode == 2
    assert "'nope' is not in the catalog" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_no_source_and_no_cassette_is_a_usage_error() -> None:
    done = run("mock")
    assert done.returncode == 2 and "give a SOURCE" in done.stderr


@pytest.mark.slow
def test_a_scripted_crash_ends_the_mock_process(tmp_path: Path) -> None:
    over = tmp_path / "over.json"
    over.write_text(json.dumps({"tools": {"get_current_time": {"fault": "crash"}}}), encoding="utf-8")
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}},
        },
    ]
    proc = subprocess.Popen(
        [*MCPGEN, "mock", str(SOURCES["time"]), "--overrides", str(over)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, _err = proc.communicate("".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    assert proc.returncode == 70
    assert '"id": 2' not in out and '"id":2' not in out
