"""`mock_server`: every tool of each capture and of the conformance schemas, served in memory to
a client generated from the same source, with arguments drawn from the schemas, in both eras."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from kit_support import SOURCES, client_package, load

from mcpgen.catalog.instances import draw
from mcpgen.runtime import McpError, RpcError, connect_memory
from mcpgen.runtime.core.validation import compile_validator
from mcpgen.testing.mock import MockOptions, mock_server
from mcpgen.testing.overrides import parse_overrides


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_generated_client_calls_every_tool_of_the_mock(source: str, protocol: str, tmp_path: Path) -> None:
    catalog = load(source)
    package = client_package(catalog, tmp_path)
    task_only = {t.name for t in catalog.tools if (t.raw.get("execution") or {}).get("taskSupport") == "required"}
    checks = {
        t.name: compile_validator(t.output_schema)
        for t in catalog.tools
        if t.output_schema is not None and t.name not in task_only
    }

    async def main() -> int:
        structured = 0
        async with package.AsyncClient.connect_memory(mock_server(catalog), protocol=protocol) as client:
            listed = await client.session.list_tools()
            assert listed == [t.raw for t in catalog.tools]  # verbatim, in order
            for i, tool in enumerate(catalog.tools):
                arguments = draw(tool.input_schema, seed=i)
                if tool.name in task_only:  # (Tasks extension) a plain call is refused, -32021
                    with pytest.raises(RpcError, match=r"^\[-32021\] this tool runs only as a task"):
                        await client.call_tool(tool.name, arguments)
                    continue
                await client.dispatch(tool.name, arguments)  # typed, validated against outputSchema
                raw = await client.call_tool(tool.name, arguments)
                assert raw["isError"] is False, (tool.name, raw)
                if tool.name in checks:
                    assert checks[tool.name](raw["structuredContent"]) is None, tool.name
                    structured += 1
        return structured

    structured = asyncio.run(main())
    assert structured == len(checks)


def test_the_sync_client_connects_in_memory_too(tmp_path: Path) -> None:
    catalog = load("time")
    package = client_package(catalog, tmp_path)
    with package.Client.connect_memory(mock_server(catalog)) as client:
        result = client.get_current_time(timezone="Europe/Oslo")
    assert isinstance(result.datetime, str) and result.timezone


def test_results_are_deterministic_under_a_seed() -> None:
    catalog = load("everything")

    async def results(seed: int) -> list[Any]:
        out = []
        async with connect_memory(mock_server(catalog, MockOptions(seed=seed))) as session:
            for tool in catalog.tools:
                if tool.output_schema is not None:
                    out.append(await session.call_tool(tool.name, draw(tool.input_schema)))
        return out

    first, again, other = asyncio.run(results(1)), asyncio.run(results(1)), asyncio.run(results(2))
    assert first and first == again
    assert first != other


def test_invalid_arguments_get_an_is_error_naming_the_field() -> None:
    catalog = load("time")

    async def main() -> dict[str, Any]:
        async with connect_memory(mock_server(catalog)) as session:
            return await session.call_tool("convert_time", {"source_timezone": "UTC", "time": 5})

    result = asyncio.run(main())
    assert result["isError"] is True
    assert "time" in result["content"][0]["text"]


def test_overrides_script_results_errors_and_latency() -> None:
    catalog = load("time")
    overrides = parse_overrides(
        {
            "tools": {
                "get_current_time": [
                    {"error": "busy"},
                    {"rpc_error": {"code": -32001, "message": "upstream down"}},
                    {
                        "structured": {
                            "timezone": "X",
                            "datetime": "2026-01-01T00:00:00Z",
                            "day_of_week": "Thursday",
                            "is_dst": False,
                        }
                    },
                ],
                "convert_time": {"latency": 0.2, "content": [{"type": "text", "text": "canned"}]},
            }
        },
        catalog,
    )

    async def main() -> None:
        async with connect_memory(mock_server(catalog, MockOptions(overrides=overrides))) as session:
            first = await session.call_tool("get_current_time", {"timezone": "UTC"})
            assert first["isError"] is True and first["content"][0]["text"] == "busy"
            with pytest.raises(McpError, match="upstream down"):
                await session.call_tool("get_current_time", {"timezone": "UTC"})
            for _ in range(2):  # the last behaviour repeats
                third = await session.call_tool("get_current_time", {"timezone": "UTC"})
                assert third["structuredContent"]["timezone"] == "X"
            loop = asyncio.get_running_loop()
            started = loop.time()
            slow = await session.call_tool(
                "convert_time", {"source_timezone": "UTC", "time": "10:00", "target_timezone": "UTC"}
            )
            assert loop.time() - started >= 0.2
            assert slow["content"] == [{"type": "text", "text": "canned"}]

    asyncio.run(main())


@pytest.mark.parametrize("fault", ["drop", "crash"])
def test_drop_and_in_process_crash_close_the_connection(fault: str) -> None:
    catalog = load("time")
    overrides = parse_overrides({"tools": {"*": {"fault": fault}}}, catalog)

    async def main() -> None:
        async with connect_memory(mock_server(catalog, MockOptions(overrides=overrides)), timeout=5) as session:
            with pytest.raises(McpError, match="closed"):
                await session.call_tool("get_current_time", {"timezone": "UTC"})

    asyncio.run(main())


def test_hang_never_answers_until_the_client_times_out() -> None:
    catalog = load("time")
    overrides = parse_overrides({"tools": {"get_current_time": {"fault": "hang"}}}, catalog)

    async def main() -> None:
        async with connect_memory(mock_server(catalog, MockOptions(overrides=overrides))) as session:
            with pytest.raises(McpError, match="no response within"):
                await session.call_tool("get_current_time", {"timezone": "UTC"}, timeout=0.3)
            # the connection survives a hung call
            assert len(await session.list_tools()) == 2

    asyncio.run(main())


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"tools": {"nope": {}}}, "'nope' is not in the catalog"),
        ({"tools": {"convert_time": {"colour": 1}}}, "unknown key 'colour'"),
        ({"tools": {"get_current_time": {"structured": {"timezone": 3}}}}, "does not match the outputSchema"),
        ({"tools": {"get_current_time": {"fault": "explode"}}}, "fault is one of"),
        ({"tools": {"get_current_time": {"latency": -1}}}, "latency is seconds"),
    ],
)
def test_a_wrong_overrides_file_is_refused_on_load(document: Any, message: str) -> None:
    from mcpgen.testing.overrides import OverridesError

    with pytest.raises(OverridesError, match=message):
        parse_overrides(document, load("time"))
