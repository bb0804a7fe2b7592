"""Stateless-era input (MRTR): a handler's elicitation/sampling becomes an input_required result and
a retry, driven by the runtime client and by the official SDK client; requestState is signed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import RpcError, connect_stdio

CONFORMANCE = Path(__file__).resolve().parents[2] / "examples" / "conformance"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


def server_args() -> tuple[str, list[str]]:
    return sys.executable, ["-m", "conformance_server"]


@pytest.mark.parametrize("protocol", ["2026-07-28", "legacy"])
def test_runtime_client_answers_elicitation_and_sampling(protocol: str) -> None:
    asked: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}

    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "test"}

    async def main() -> None:
        command, args = server_args()
        async with connect_stdio(command, args, cwd=str(CONFORMANCE), protocol=protocol, on_elicitation=elicit, on_sampling=sample) as s:
            elicited = await s.call_tool("test_elicitation", {"message": "Who are you?"})
            assert "ada@example.com" in elicited["content"][0]["text"]
            sampled = await s.call_tool("test_sampling", {"prompt": "6*7?"})
            assert sampled["content"][0]["text"] == "LLM response: forty-two"
            with_defaults = await s.call_tool("test_elicitation_sep1034_defaults", {})
            assert "accept" in with_defaults["content"][0]["text"]

    asyncio.run(asyncio.wait_for(main(), 60))
    assert asked[0]["message"] == "Who are you?"


def test_official_sdk_client_drives_the_retry() -> None:
    import mcp.types as types
    from mcp import StdioServerParameters
    from mcp.client import Client

    async def elicit(ctx: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"username": "grace", "email": "g@example.com"})

    async def main() -> None:
        command, args = server_args()
        params = StdioServerParameters(command=command, args=args, cwd=str(CONFORMANCE))
        async with Client(params, mode="2026-07-28", elicitation_callback=elicit) as c:
            result = await c.call_tool("test_elicitation", {"message": "name?"})
            assert "g@example.com" in result.content[0].text  # type: ignore[union-attr]

    asyncio.run(asyncio.wait_for(main(), 60))


def test_request_state_is_signed_and_bound_to_the_request() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance_server"], cwd=CONFORMANCE,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        return dict(json.loads(proc.stdout.readline()))

    try:
        call = {"name": "test_elicitation", "arguments": {"message": "hi"}, "_meta": MODERN_META}
        first = ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})["result"]
        assert first["resultType"] == "input_required"
        (key, embedded), = first["inputRequests"].items()
        assert embedded["method"] == "elicitation/create" and embedded["params"]["message"] == "hi"
        answer = {key: {"action": "accept", "content": {"username": "u", "email": "e"}}}
        state = first["requestState"]

        tampered = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {**call, "inputResponses": answer, "requestState": state[:-1] + ("0" if state[-1] != "0" else "1")}})
        assert tampered["error"]["code"] == -32602
        other = {**call, "arguments": {"message": "something else"}}
        moved = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {**other, "inputResponses": answer, "requestState": state}})
        assert moved["error"]["code"] == -32602  # a state is only good for the request it was issued for
        done = ask({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {**call, "inputResponses": answer, "requestState": state}})
        assert done["result"]["resultType"] == "complete" and "accept" in done["result"]["content"][0]["text"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


def test_undeclared_capability_is_refused_not_asked() -> None:
    async def main() -> None:
        command, args = server_args()
        async with connect_stdio(command, args, cwd=str(CONFORMANCE), protocol="2026-07-28") as s:
            with pytest.raises(RpcError) as info:
                await s.call_tool("test_elicitation", {"message": "x"})
            assert info.value.code == -32021

    asyncio.run(asyncio.wait_for(main(), 60))
