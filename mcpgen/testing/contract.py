"""The protocol contract every tool of a server keeps, as pytest cases (a scaffold's contract
test file calls `contract_cases` and `check_contract`).

For each tool: arguments drawn from its inputSchema must get a result whose structuredContent
matches its outputSchema, or a ToolError; arguments that break the schema must get an isError
naming the field; nothing may crash. A handler still raising NotImplementedError is an expected
failure (pytest's xfail), so a fresh scaffold's run is green and says what is left to write.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog.instances import Unsatisfiable, draw
from ..runtime.client.connect import connect_memory
from ..runtime.core.errors import McpError, RpcError
from ..runtime.core.jsonrpc import MISSING_CLIENT_CAPABILITY
from ..runtime.core.protocol import ERA_MODERN
from ..runtime.core.validation import compile_validator
from ..runtime.server.server import Server

# Valid draws per tool and era; each is one pytest case, so keep the count small.
VALID_DRAWS = 3
ERAS = ("auto", "legacy")
CALL_TIMEOUT = 30.0


class ContractBroken(AssertionError):
    """A tool broke the contract: the message names the tool and what it did."""


@dataclass(frozen=True)
class ContractCase:
    tool: dict[str, Any]
    arguments: Any
    valid: bool
    protocol: str
    # The field an invalid case breaks (the isError must name it).
    field: str = ""

    def __str__(self) -> str:
        kind = "valid" if self.valid else f"invalid-{self.field or 'args'}"
        return f"{self.tool['name']}-{kind}-{self.protocol}"


def contract_cases(tools_json: str | Sequence[str | dict[str, Any]], *, draws: int = VALID_DRAWS) -> list[ContractCase]:
    """Every case for every tool: valid draws and one invalid set of arguments, in both eras.
    `tools_json` is a JSON array text, or the tools one each (a generated `TOOLS_JSON`: one JSON
    text a tool), or the tool objects."""
    if isinstance(tools_json, str):
        tools = json.loads(tools_json)
    else:
        tools = [json.loads(t) if isinstance(t, str) else t for t in tools_json]
    cases: list[ContractCase] = []
    for tool in tools:
        schema = tool.get("inputSchema", {})
        valid: list[Any] = []
        for seed in range(draws):
            try:
                valid.append(draw(schema, seed=seed))
            except Unsatisfiable:
                break
        invalid = _invalid(schema)
        for protocol in ERAS:
            cases += [ContractCase(tool, arguments, True, protocol) for arguments in valid]
            if invalid is not None:
                cases.append(ContractCase(tool, invalid[0], False, protocol, invalid[1]))
    return cases


def _invalid(schema: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """Arguments the schema refuses, and the field to blame: a required one missing, or one of
    the wrong type. None when the schema accepts anything mcpgen would try."""
    try:
        base = draw(schema, seed=0)
    except Unsatisfiable:
        return None
    if not isinstance(base, dict):
        return None
    check = compile_validator(schema)
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    for name in schema.get("required") or []:
        if isinstance(name, str) and name in base:
            broken = {k: v for k, v in base.items() if k != name}
            if check(broken) is not None:
                return broken, name
    for name in props:
        for wrong in ({"not": "expected"}, "not-a-number", 12345, [1, 2]):
            broken = copy.deepcopy(base)
            broken[name] = wrong
            if check(broken) is not None:
                return broken, name
    return None


def check_contract(make_server: Callable[[], Server], case: ContractCase) -> None:
    """Run one case against a fresh server in memory; raise ContractBroken, or call `xfail` for
    an unimplemented handler (pytest's, passed in by the test file through `xfail`)."""
    import pytest

    name = case.tool["name"]
    execution = case.tool.get("execution")
    # A tool that runs only as a task (Tasks extension) is run as one where the era can declare
    # the extension (2026-07-28); in the handshake era its contract is the refusal, -32021.
    task_only = isinstance(execution, dict) and execution.get("taskSupport") == "required"

    async def call() -> dict[str, Any] | None:
        async with connect_memory(
            make_server(),
            protocol=case.protocol,
            timeout=CALL_TIMEOUT,
            on_sampling=_sampled,
            on_elicitation=_elicited,
            on_roots=_roots,
        ) as session:
            if not task_only:
                return await session.call_tool(name, case.arguments)
            if session.era == ERA_MODERN:
                return await (await session.start_tool(name, case.arguments)).wait(CALL_TIMEOUT)
            try:
                await session.call_tool(name, case.arguments)
            except RpcError as refused:
                if refused.code == MISSING_CLIENT_CAPABILITY:
                    return None
                raise
            raise ContractBroken(f"tool {name!r} runs only as a task, yet answered a plain call")

    try:
        answered = asyncio.run(call())
    except McpError as exc:
        raise ContractBroken(f"tool {name!r}: a JSON-RPC error instead of a result: {exc}") from None
    if answered is None:
        return  # a task-only tool refused a plain call, as it must
    result = answered
    text = _text(result)
    if not case.valid:
        if result.get("isError") is not True:
            raise ContractBroken(f"tool {name!r} accepted arguments its inputSchema refuses: {case.arguments!r}")
        if case.field and case.field not in text:
            raise ContractBroken(f"tool {name!r}: the error for bad {case.field!r} does not name it: {text!r}")
        return
    if result.get("isError") is True:
        if text == f"Tool {name!r} is not implemented yet":
            pytest.xfail(f"tool {name!r} is not implemented yet")
        if text.startswith(f"Tool {name!r} failed:"):
            raise ContractBroken(
                f"tool {name!r} failed with valid arguments {case.arguments!r} (an exception escaped the "
                f"handler, or its return value does not fit the outputSchema): {text}"
            )
        return  # a ToolError: the handler refused on purpose, which the contract allows
    output_schema = case.tool.get("outputSchema")
    if output_schema is not None:
        if "structuredContent" not in result:
            raise ContractBroken(f"tool {name!r} has an outputSchema but returned no structuredContent")
        problem = compile_validator(output_schema)(result["structuredContent"])
        if problem is not None:
            raise ContractBroken(f"tool {name!r} returned a result its outputSchema refuses: {problem}")


# A tool may ask its client for things; the contract's client answers plausibly, so that the
# tool's own behaviour is what is tested.


async def _sampled(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": "a sampled answer"},
        "model": "mcpgen-contract",
        "stopReason": "endTurn",
    }


async def _elicited(params: dict[str, Any]) -> dict[str, Any]:
    schema = params.get("requestedSchema")
    if isinstance(schema, dict):
        try:
            return {"action": "accept", "content": draw(schema)}
        except Unsatisfiable:
            pass
    return {"action": "decline"}


async def _roots() -> list[dict[str, Any]]:
    return [{"uri": "file:///tmp/mcpgen-contract", "name": "contract"}]


def _text(result: dict[str, Any]) -> str:
    blocks = result.get("content") or []
    return " ".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


__all__ = ["ContractBroken", "ContractCase", "check_contract", "contract_cases"]
