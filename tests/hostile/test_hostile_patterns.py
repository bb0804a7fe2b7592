"""Issue 34 rule 6 against real peers: a catastrophic `pattern` in a schema never holds a call
past its own deadline, nor the event loop serving it.

Client side: a generated client whose tool's outputSchema (as a hostile server advertised it)
puts `^(a+)+$` in every position, calling a mock server (a subprocess) that answers the hostile
string there. Server side: a scaffolded server (a subprocess) whose author's inputSchema has the
pattern in every position, sent the hostile string in each; after each, a ping must be answered
within its own 2 s timeout (Python's re would hold the server's loop for hours)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcpgen.runtime import McpError, ToolOutputError, connect_stdio
from tests.generation import GenerateFn, scaffold_server

pytestmark = pytest.mark.slow

PY = sys.executable
EVIL = "^(a+)+$"
HOSTILE = "a" * 32 + "!"  # 2**32 steps for Python's re
S = {"type": "string", "pattern": EVIL}


def _schema(patterns: bool) -> dict[str, Any]:
    """An object schema with the pattern (or, without `patterns`, none) in every position."""
    s: dict[str, Any] = S if patterns else {"type": "string"}
    keyed = {"patternProperties": {EVIL: {"type": "integer"}}} if patterns else {}
    return {
        "type": "object",
        "$defs": {"s": s},
        "properties": {
            "y": s,
            "items": {"type": "array", "items": s},
            "either": {"anyOf": [s, {"type": "integer"}]},
            "ref": {"$ref": "#/$defs/s"},
            "keyed": {"type": "object", **keyed, "additionalProperties": not patterns},
            "deep": {"type": "array", "items": {"type": "object", "properties": {"z": s}}},
        },
    }


# One hostile value per position of _schema (each alone is enough to be refused).
HOSTILE_VALUES: dict[str, Any] = {
    "y": HOSTILE,
    "items": ["aaa", HOSTILE],
    "either": HOSTILE,
    "ref": HOSTILE,
    "keyed": {HOSTILE: 1},
    "deep": [{"z": HOSTILE}],
}


def _tool(input_schema: dict[str, Any], output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": "lookup", "description": "d", "inputSchema": input_schema}
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    return tool


@pytest.mark.timeout(120)
@pytest.mark.parametrize("position", sorted(HOSTILE_VALUES))
def test_a_hostile_result_schema_fails_the_typed_call_fast(position: str, generate: GenerateFn, tmp_path: Path) -> None:
    plain = {"type": "object", "properties": {}}
    pkg: ModuleType = generate({"tools": [_tool(plain, _schema(patterns=True))]})
    served = tmp_path / f"served_{position}.json"
    served.write_text(json.dumps({"tools": [_tool(plain, _schema(patterns=False))]}))
    overrides = tmp_path / f"overrides_{position}.json"
    structured = {position: HOSTILE_VALUES[position]}
    overrides.write_text(json.dumps({"tools": {"lookup": {"structured": structured}}}))

    async def run() -> None:
        async with pkg.AsyncClient.connect_stdio(
            PY, ["-m", "mcpgen.cli", "mock", str(served), "--overrides", str(overrides)], drift="off"
        ) as client:
            with pytest.raises(ToolOutputError, match="does not match|not allowed"):
                await client.with_options(timeout=1.0).lookup()
            await client.session.ping()  # and the session serves on

    asyncio.run(run())


HANDLERS = """
from __future__ import annotations

from ._generated import Context, ToolOutput, ToolsBase, models


class Handlers(ToolsBase):
    async def lookup(self, args: models.LookupArgs, ctx: Context) -> ToolOutput:
        return "served"
"""


@pytest.fixture(scope="module")
def server_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scaffold_server(
        tmp_path_factory.mktemp("patterns"), json.dumps([_tool(_schema(patterns=True))]), "pattern_server", HANDLERS
    )


@pytest.mark.timeout(120)
def test_a_hostile_argument_never_holds_the_server(server_package: Path) -> None:
    async def run() -> list[str]:
        refused: list[str] = []
        async with connect_stdio(PY, ["-m", "pattern_server"], cwd=str(server_package), protocol="legacy") as session:
            assert (await session.call_tool("lookup", {"y": "aaa"}, timeout=5.0))["content"][0]["text"] == "served"
            for position, value in sorted(HOSTILE_VALUES.items()):
                # The call is refused within its own deadline, and a ping sent after it is
                # answered within its own (each raises RequestTimeout otherwise).
                call = asyncio.ensure_future(session.call_tool("lookup", {position: value}, timeout=2.0))
                await asyncio.sleep(0)  # (the call goes out first)
                await session.request("ping", timeout=2.0)
                try:
                    result = await call
                except McpError as exc:
                    refused.append(f"{position}: {exc}")
                else:
                    assert result.get("isError") is True, (position, result)
                    refused.append(f"{position}: {result['content'][0]['text']}")
        return refused

    refused = asyncio.run(run())
    assert len(refused) == len(HOSTILE_VALUES)
    assert all("does not match" in r or "not allowed" in r for r in refused), refused
