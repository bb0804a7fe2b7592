"""The many-servers client meets an LLM as one server's client does: every provider option,
progressive discovery across servers, and one name per tool per API that `dispatch` maps back.

Two servers in memory (one named `3d`: Gemini refuses a name starting with a digit, so the one
name rule gives its tools `_3d__...` in TOOL_NAMES and to every API alike), generated into one
package by `generate_many`; a scripted model searches, describes, loads and calls their tools in
every API's shape. The subprocess version of the same script is in
tests/functional/client/test_many_servers.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from generation import imported, tool
from llm_api_checkers import refusals

from mcpgen.generate import generate_many
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.runtime import Server, connect_memory
from mcpgen.runtime.client.llm_names import NAME_PATTERNS, RULE_OF_FORMAT
from mcpgen.runtime.client.llm_tools import LLM_FORMATS, definition_name
from mcpgen.runtime.server.server import RequestContext
from mcpgen.sources.files import catalog_from_document

CITY = {"city": {"type": "string"}}
SERVERS: dict[str, list[dict[str, Any]]] = {
    "weather": [
        tool("alert.send", CITY, ["city"], description="Send a weather alert for a city."),
        tool("forecast", CITY, ["city"], description="The weather forecast of a city."),
        # A server tool holding a meta-tool's name: prefixed, it no longer clashes.
        tool("search_tools", {}, description="A server tool named like the meta-tool."),
    ],
    "3d": [
        tool("scan", {"object": {"type": "string"}}, ["object"], description="Scan an object in 3D."),
        tool("forecast", CITY, ["city"], description="Forecast the print time of a city model."),
    ],
}


@pytest.fixture
def many_pkg(tmp_path: Path) -> Iterator[ModuleType]:
    catalogs = {}
    for server, tools in SERVERS.items():
        catalog, problems = catalog_from_document({"tools": tools}, server)
        assert catalog is not None, problems
        catalogs[server] = catalog
    files, _ = generate_many(catalogs, ClientOptions(), config_file="../mcp.json")
    name = f"many_{uuid.uuid4().hex[:8]}"
    write_atomic(files, tmp_path / name)
    with imported(tmp_path, name) as pkg:
        yield pkg


def _server(name: str, seen: list[tuple[str, str, dict[str, Any]]]) -> Server:
    server = Server(name, "1.0")
    for definition in SERVERS[name]:

        async def handler(arguments: dict[str, Any], ctx: RequestContext, wire: str = definition["name"]) -> Any:
            seen.append((name, wire, arguments))
            return {"content": [{"type": "text", "text": f"{name} ran {wire}"}], "isError": False}

        server.add_tool(definition, handler)
    return server


def _run(pkg: ModuleType, script: Any) -> Any:
    seen: list[tuple[str, str, dict[str, Any]]] = []
    namespaces = {ns: server for ns, server in pkg.SERVERS.items()}

    async def main() -> Any:
        async with contextlib.AsyncExitStack() as stack:
            clients = {}
            for ns, server in namespaces.items():
                session = await stack.enter_async_context(connect_memory(_server(server, seen)))
                clients[ns] = getattr(pkg.servers, ns).AsyncClient(session)
            return await script(pkg.AsyncClient(**clients), seen)

    return asyncio.run(main())


def _names(definitions: list[Any], format: str) -> list[str]:
    return [definition_name(d, format) for d in definitions]  # type: ignore[arg-type]


@pytest.mark.parametrize("format", LLM_FORMATS)
def test_a_scripted_model_finds_loads_and_calls_tools_of_both_servers(many_pkg: ModuleType, format: str) -> None:
    async def script(client: Any, seen: list[tuple[str, str, dict[str, Any]]]) -> None:
        assert _names(client.tool_definitions(format, discovery=True), format) == [
            "search_tools",
            "describe_tool",
            "load_tools",
        ]
        every = client.tool_definitions(format)
        assert sorted(_names(every, format)) == sorted(many_pkg.TOOL_NAMES)
        # One search spans both servers; the names are the ones tool_definitions gives.
        hits = json.loads((await client.dispatch("search_tools", {"query": "forecast"})).text)
        assert sorted(h["name"] for h in hits) == ["_3d__forecast", "weather__forecast"]
        scan = "_3d__scan"  # every API gets the name TOOL_NAMES holds
        described = json.loads((await client.dispatch("describe_tool", {"name": scan})).text)
        assert described == every[_names(every, format).index(scan)]
        loaded = await client.dispatch("load_tools", {"names": [scan, "weather__alert_send"]})
        assert json.loads(loaded.text)["loaded"] == [scan, "weather__alert_send"], loaded.text
        sent = client.tool_definitions(format, discovery=True)
        assert _names(sent, format)[3:] == [scan, "weather__alert_send"]
        assert (await client.dispatch(scan, {"object": "cube"})).text == "3d ran scan"
        assert (await client.dispatch("weather__alert_send", '{"city": "Oslo"}')).text == "weather ran alert.send"
        # The server tool named like the meta-tool is reachable by its prefixed name.
        assert (await client.dispatch("weather__search_tools", {})).text == "weather ran search_tools"
        assert seen == [
            ("3d", "scan", {"object": "cube"}),
            ("weather", "alert.send", {"city": "Oslo"}),
            ("weather", "search_tools", {}),
        ]

    _run(many_pkg, script)


def test_every_name_of_every_api_round_trips_through_dispatch(many_pkg: ModuleType) -> None:
    async def script(client: Any, seen: list[tuple[str, str, dict[str, Any]]]) -> None:
        for format in LLM_FORMATS:
            # Each API's documented request schema accepts every definition, the meta-tools' too.
            assert refusals(client.tool_definitions(format), format) == []
            assert refusals(client.tool_definitions(format, discovery=True), format) == []
            for prefixed, (ns, wire) in many_pkg.TOOL_NAMES.items():
                names = [n for n in _names(client.tool_definitions(format), format) if n == prefixed]
                assert len(names) == 1 and NAME_PATTERNS[RULE_OF_FORMAT[format]].fullmatch(names[0]), (format, names)
                seen.clear()
                arguments = {"object": "x"} if wire == "scan" else {"city": "x"} if wire != "search_tools" else {}
                result = await client.dispatch(names[0], arguments)
                assert not result.is_error, result.text
                assert [(many_pkg.SERVERS[ns], wire)] == [(s, w) for s, w, _ in seen]
        unknown = await client.dispatch("forecast", {"city": "x"})
        assert unknown.is_error and unknown.text.startswith("Unknown tool 'forecast'")

    _run(many_pkg, script)


def test_provider_options_name_tools_by_their_prefixed_names(many_pkg: ModuleType) -> None:
    async def script(client: Any, seen: list[tuple[str, str, dict[str, Any]]]) -> None:
        sent = client.tool_definitions(
            "anthropic",
            input_examples={"_3d__scan": [{"object": "vase"}]},
            defer_loading={"weather__forecast"},
            allowed_callers={"_3d__forecast": ["code_execution_20250825"]},
            cache_control=True,
        )
        by_name = {d["name"]: d for d in sent}
        assert by_name["_3d__scan"]["input_examples"] == [{"object": "vase"}]
        assert by_name["weather__forecast"]["defer_loading"] is True
        assert by_name["_3d__forecast"]["allowed_callers"] == ["code_execution_20250825"]
        assert sent[-1]["cache_control"] == {"type": "ephemeral"}
        with pytest.raises(ValueError, match="input example for tool '_3d__scan' does not match"):
            client.tool_definitions("anthropic", input_examples={"_3d__scan": [{"object": 3}]})
        gemini = client.tool_definitions("gemini", gemini_field="parameters")
        assert all("parameters" in d and "parametersJsonSchema" not in d for d in gemini)
        assert client.refused_tools("openai") == {}
        # Discovery under Anthropic: the deferred tool stays in, deferred; loaded ones are not.
        await client.dispatch("load_tools", {"names": ["_3d__scan"]})
        found = client.tool_definitions("anthropic", discovery=True, defer_loading={"weather__forecast"})
        assert [(d["name"], d.get("defer_loading", False)) for d in found[3:]] == [
            ("_3d__scan", False),
            ("weather__forecast", True),
        ]
        assert seen == []

    _run(many_pkg, script)
