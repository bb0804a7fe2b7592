"""Progressive discovery: a host with ~200 tools hands the model the three meta-tools; a scripted
model searches, describes, loads and calls a tool through `dispatch`, in every API's shape."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from generation import GenerateFn, tool

from mcpgen.runtime import Server, connect_memory
from mcpgen.runtime.client.llm_discovery import MAX_LOADED, META_TOOLS, _for_api, meta_names
from mcpgen.runtime.client.llm_names import NAME_PATTERNS, RULE_OF_FORMAT
from mcpgen.runtime.client.llm_tools import LLM_FORMATS, definition_name
from mcpgen.runtime.client.tool_index import ToolIndex, ToolInfo
from mcpgen.runtime.client.tool_search import MAX_LIMIT, rank
from mcpgen.runtime.server.server import RequestContext

TOPICS = ["weather", "calendar", "files", "billing", "search", "mail", "maps", "music"]


def _catalog_tools() -> list[dict[str, Any]]:
    """200 tools; some with names every API refuses, one named like a meta-tool."""
    tools = []
    for i in range(199):
        topic = TOPICS[i % len(TOPICS)]
        name = f"{topic}.op{i}" if i % 3 == 0 else f"{topic}_op{i}"
        props = {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}}
        tools.append(tool(name, props, ["city"], description=f"Do {topic} thing {i} for a city.\nMore text."))
    tools.append(tool("search_tools", {}, description="A server tool that happens to hold the meta name."))
    return tools


def _server(tools: list[dict[str, Any]], seen: list[tuple[str, dict[str, Any]]]) -> Server:
    server = Server("big", "1.0")
    for definition in tools:

        async def handler(arguments: dict[str, Any], ctx: RequestContext, wire: str = definition["name"]) -> Any:
            seen.append((wire, arguments))
            return {"content": [{"type": "text", "text": f"ran {wire}"}], "isError": False}

        server.add_tool(definition, handler)
    return server


def _run(generate: GenerateFn, script: Any) -> Any:
    tools = _catalog_tools()
    pkg = generate({"tools": tools})
    seen: list[tuple[str, dict[str, Any]]] = []

    async def main() -> Any:
        async with connect_memory(_server(tools, seen)) as session:
            return await script(pkg.AsyncClient(session), seen)

    return asyncio.run(main())


def _names(definitions: list[Any], format: str) -> list[str]:
    return [definition_name(d, format) for d in definitions]  # type: ignore[arg-type]


@pytest.mark.parametrize("format", LLM_FORMATS)
def test_a_scripted_model_searches_loads_and_calls_through_dispatch(generate: GenerateFn, format: str) -> None:
    async def script(client: Any, seen: list[tuple[str, dict[str, Any]]]) -> None:
        first = client.tool_definitions(format, discovery=True)
        # The meta-tool name a server tool already holds moved aside; the model sees only three tools.
        assert _names(first, format) == ["_search_tools", "describe_tool", "load_tools"]
        assert len(client.tool_definitions(format)) == 200
        found = await client.dispatch("_search_tools", {"query": "weather op24"})
        hits = json.loads(found.text)
        assert [h["name"] for h in hits] == ["weather_op24"]
        assert hits[0]["summary"] == "Do weather thing 24 for a city."
        described = json.loads((await client.dispatch("describe_tool", {"name": "weather_op24"})).text)
        assert described == client._catalog.llm_definitions(format).tools[_index_of(client, format, "weather.op24")]
        loaded = await client.dispatch("load_tools", json.dumps({"names": ["weather_op24"]}))
        assert json.loads(loaded.text)["loaded"] == ["weather_op24"] and not loaded.is_error
        second = client.tool_definitions(format, discovery=True)
        assert _names(second, format) == ["_search_tools", "describe_tool", "load_tools", "weather_op24"]
        result = await client.dispatch("weather_op24", {"city": "Oslo", "days": 2})
        assert result.text == "ran weather.op24" and seen == [("weather.op24", {"city": "Oslo", "days": 2})]

    _run(generate, script)


def _index_of(client: Any, format: str, wire: str) -> int:
    name = client._catalog.llm_names().name(wire, format)
    return _names(client._catalog.llm_definitions(format).tools, format).index(name)


def test_every_searched_name_round_trips_through_load_and_dispatch(generate: GenerateFn) -> None:
    async def script(client: Any, seen: list[tuple[str, dict[str, Any]]]) -> None:
        for format in LLM_FORMATS:
            client.tool_definitions(format, discovery=True)
            search = definition_name(client.tool_definitions(format, discovery=True)[0], format)
            names = [h["name"] for t in TOPICS for h in json.loads((await client.dispatch(search, {"query": t})).text)]
            names += [h["name"] for h in json.loads((await client.dispatch(search, {"query": "server tool"})).text)]
            for name in names:
                assert NAME_PATTERNS[RULE_OF_FORMAT[format]].fullmatch(name), (format, name)
                seen.clear()
                await client.dispatch(name, {"city": "x"})
                assert seen and client._catalog.llm_names().name(seen[0][0], format) == name

    _run(generate, script)


def test_loaded_tools_are_bounded_and_bad_calls_come_back_as_errors(generate: GenerateFn) -> None:
    async def script(client: Any, seen: list[tuple[str, dict[str, Any]]]) -> None:
        client.tool_definitions("openai", discovery=True)
        every = [definition_name(d, "openai") for d in client.tool_definitions("openai")]
        for start in range(0, 60, 10):
            assert not (await client.dispatch("load_tools", {"names": every[start : start + 10]})).is_error
        kept = _names(client.tool_definitions("openai", discovery=True), "openai")[3:]
        assert kept == every[60 - MAX_LOADED : 60]  # the oldest went first
        too_many = await client.dispatch("load_tools", {"names": every[:11]})
        assert too_many.is_error and "at most 10" in too_many.text
        unknown = await client.dispatch("describe_tool", {"name": "weather_op2x"})
        assert unknown.is_error and "did you mean" in unknown.text
        bad = await client.dispatch("_search_tools", "[1]")
        assert bad.is_error and "JSON object" in bad.text
        assert seen == []

    _run(generate, script)


def test_anthropic_keeps_its_deferred_tools_deferred_and_the_cache_breakpoint_last(generate: GenerateFn) -> None:
    async def script(client: Any, seen: list[tuple[str, dict[str, Any]]]) -> None:
        await client.dispatch("load_tools", {"names": ["maps_op6"]})
        sent = client.tool_definitions(
            "anthropic", discovery=True, defer_loading={"maps_op6", "music_op7"}, cache_control=True
        )
        assert [(d["name"], d.get("defer_loading", False)) for d in sent[3:]] == [
            ("maps_op6", False),
            ("music_op7", True),
        ]
        assert sent[-1]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in sent[2]

    _run(generate, script)


def test_the_meta_tools_are_accepted_by_every_api_as_they_are() -> None:
    from mcpgen.runtime.client.llm_tools import llm_definitions

    for format in LLM_FORMATS:
        for field in ("parametersJsonSchema", "parameters"):
            made = llm_definitions(_for_api(list(META_TOOLS.values()), format), format, gemini_field=field)  # type: ignore[arg-type]
            assert made.refused == {} and len(made.tools) == 3
            if format.startswith("openai"):
                assert all((d.get("function") or d)["strict"] for d in made.tools)
    assert meta_names(lambda n: n in {"load_tools", "_load_tools"})["load_tools"] == "__load_tools"


def test_code_mode_and_discovery_share_one_search_with_bounds() -> None:
    infos = [ToolInfo(f"t{i}", f"t.{i}", f"thing {i}", "", "") for i in range(80)]
    index = ToolIndex("pkg", infos)
    assert [n for n, _ in index.search("thing", limit=1000)] == sorted(f"t{i}" for i in range(80))[:MAX_LIMIT]
    # A query is cut to its first words: the 17th word onwards is not looked at.
    assert index.search("thing " * 5000 + "nothing") == index.search("thing")
    assert rank("b a", [("k2", "a b", "", 2), ("k1", "a", "b", 1), ("k0", "c", "", 0)]) == [2, 1]
