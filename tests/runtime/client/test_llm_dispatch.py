"""Every name `tool_definitions` gives a tool, for every API, is one `dispatch()` routes back to
that tool's wire name: over each recorded capture of a real server, and over awkward names."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from generation import AWKWARD, GenerateFn, tool

from mcpgen.runtime import Server, connect_memory
from mcpgen.runtime.client.llm_tools import LLM_FORMATS
from mcpgen.runtime.server.server import RequestContext

LIVE = Path("/work/shared/fixtures/live")
CAPTURES = sorted(LIVE.glob("*.raw.json"))


def _tools_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    listed = doc["tools"]
    return list(listed["tools"] if isinstance(listed, dict) else listed)


def _recording_server(tools: list[dict[str, Any]], seen: list[str]) -> Server:
    """Every tool of the list, each answering with no content and recording its wire name."""
    server = Server("recorder", "1.0")
    for definition in tools:
        plain = {k: v for k, v in definition.items() if k != "outputSchema"}

        async def handler(arguments: dict[str, Any], ctx: RequestContext, wire: str = plain["name"]) -> dict[str, Any]:
            seen.append(wire)
            return {"content": [], "isError": False}

        server.add_tool(plain, handler)
    return server


def _round_trip(pkg: Any, tools: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(format, the name the model would send, the wire name the server saw) for every definition."""

    async def main() -> list[tuple[str, str, str]]:
        out: list[tuple[str, str, str]] = []
        seen: list[str] = []
        async with connect_memory(_recording_server(tools, seen)) as session:
            client = pkg.AsyncClient(session)
            for format in LLM_FORMATS:
                for definition in client.tool_definitions(format):
                    name = definition["function"]["name"] if format == "openai" else definition["name"]
                    seen.clear()
                    result = await client.dispatch(name, "{}")
                    # Arguments a schema refuses come back as an error naming the wire name.
                    text = "" if not result.is_error else result.text
                    out.append((format, name, seen[0] if seen else text))
        return out

    return asyncio.run(main())


def _wire_named(entry: str, wires: set[str]) -> str | None:
    if entry in wires:
        return entry
    return next((w for w in wires if entry.startswith(f"Invalid arguments for tool {w!r}")), None)


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_every_mapped_name_of_a_capture_dispatches_to_its_tool(capture: Path, generate: GenerateFn) -> None:
    doc = json.loads(capture.read_text(encoding="utf-8"))
    tools = _tools_of(doc)
    pkg = generate(doc)
    trips = _round_trip(pkg, tools)
    assert len(trips) == len(tools) * len(LLM_FORMATS)  # no capture tool is refused by any API
    wires = {t["name"] for t in tools}
    for format, name, reached in trips:
        wire = _wire_named(reached, wires)
        assert wire is not None, (format, name, reached)
        assert pkg.AsyncClient._catalog.llm_names().name(wire, format) == name


def test_awkward_names_are_renamed_and_still_reach_their_tool(generate: GenerateFn) -> None:
    tools = [tool(n) for n in AWKWARD if n]
    pkg = generate({"tools": tools})
    trips = _round_trip(pkg, tools)
    assert {(f, n): w for f, n, w in trips if n != w}, "some names must have been mapped"
    for format, name, reached in trips:
        assert pkg.AsyncClient._catalog.llm_names().name(reached, format) == name, (format, name)
