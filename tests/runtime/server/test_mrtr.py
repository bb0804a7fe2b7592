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

CONFORMANCE = Path(__file__).resolve().parents[3] / "examples" / "conformance"
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
        async with connect_stdio(
            command, args, cwd=str(CONFORMANCE), protocol=protocol, on_elicitation=elicit, on_sampling=sample
        ) as s:
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
        [sys.executable, "-m", "conformance_server"],
        cwd=CONFORMANCE,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
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
        ((key, embedded),) = first["inputRequests"].items()
        assert embedded["method"] == "elicitation/create" and embedded["params"]["message"] == "hi"
        answer = {key: {"action": "accept", "content": {"username": "u", "email": "e"}}}
        state = first["requestState"]

        tampered = ask(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    **call,
                    "inputResponses": answer,
                    "requestState": state[:-1] + ("0" if state[-1] != "0" else "1"),
                },
            }
        )
        assert tampered["error"]["code"] == -32602
        other = {**call, "arguments": {"message": "something else"}}
        moved = ask(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {**other, "inputResponses": answer, "requestState": state},
            }
        )
        assert moved["error"]["code"] == -32602  # a state is only good for the request it was issued for
        done = ask(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {**call, "inputResponses": answer, "requestState": state},
            }
        )
        assert done["result"]["resultType"] == "complete" and "accept" in done["result"]["content"][0]["text"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


def test_undeclared_capability_is_refused_not_asked() -> None:
    async def main() -> None:
        command, args = server_args()
        async with connect_stdio(command, args, cwd=str(CONFORMANCE), protocol="2026-07-28") as s:
            with pytest.raises(
                RpcError, match=r"^\[-32021\] the client did not declare the elicitation capability$"
            ) as info:
                await s.call_tool("test_elicitation", {"message": "x"})
            assert info.value.code == -32021

    asyncio.run(asyncio.wait_for(main(), 60))


class StdioPeer:
    """The conformance server over raw stdio: one JSON-RPC line in, one out."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "conformance_server"],
            cwd=CONFORMANCE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def call(self, name: str, capabilities: dict[str, Any], **extra: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        meta = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": capabilities}
        params = {"name": name, "arguments": {}, "_meta": meta, **extra}
        self.proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params}).encode()
            + b"\n"
        )
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


ALL_INPUTS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def test_a_later_round_gets_earlier_answers_from_the_request_state() -> None:
    peer = StdioPeer()
    try:
        first = peer.call("test_input_required_result_multi_round", ALL_INPUTS)["result"]
        assert list(first["inputRequests"]) == ["step1"]
        second = peer.call(
            "test_input_required_result_multi_round",
            ALL_INPUTS,
            inputResponses={"step1": accept(name="Ada")},
            requestState=first["requestState"],
        )["result"]
        assert list(second["inputRequests"]) == ["step2"] and second["requestState"] != first["requestState"]
        # The retry answers step2 only: step1's answer comes back from the signed state.
        done = peer.call(
            "test_input_required_result_multi_round",
            ALL_INPUTS,
            inputResponses={"step2": accept(color="blue")},
            requestState=second["requestState"],
        )["result"]
        assert done["resultType"] == "complete" and done["content"][0]["text"] == "Ada likes blue"
        # Without the state, the earlier answer is gone and asked for again.
        again = peer.call(
            "test_input_required_result_multi_round", ALL_INPUTS, inputResponses={"step2": accept(color="red")}
        )["result"]
        assert list(again["inputRequests"]) == ["step1"]
    finally:
        peer.close()


def test_several_inputs_go_out_in_one_round_under_their_own_keys() -> None:
    peer = StdioPeer()
    try:
        first = peer.call("test_input_required_result_multiple_inputs", ALL_INPUTS)["result"]
        requests = first["inputRequests"]
        assert {k: v["method"] for k, v in requests.items()} == {
            "user_name": "elicitation/create",
            "greeting": "sampling/createMessage",
            "client_roots": "roots/list",
        }
        answers = {
            "user_name": accept(name="Ada"),
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
            "client_roots": {"roots": [{"uri": "file:///r"}]},
        }
        done = peer.call(
            "test_input_required_result_multiple_inputs",
            ALL_INPUTS,
            inputResponses=answers,
            requestState=first["requestState"],
        )
        assert done["result"]["resultType"] == "complete"
        # Undeclared capabilities are refused all at once, never asked for.
        refused = peer.call("test_input_required_result_multiple_inputs", {"elicitation": {}})
        assert refused["error"]["code"] == -32021
        assert refused["error"]["data"]["requiredCapabilities"] == {"sampling": {}, "roots": {}}
    finally:
        peer.close()


def test_a_request_state_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.runtime.server import request_state as mrtr

    params: dict[str, Any] = {"name": "t", "arguments": {"a": 1}}
    state = mrtr.issue_request_state("tools/call", params, {"k": {"action": "accept"}})
    assert mrtr.open_request_state("tools/call", {**params, "requestState": state}) == {"k": {"action": "accept"}}
    later = mrtr.time.time() + mrtr.STATE_TTL_SECONDS + 5
    monkeypatch.setattr(mrtr.time, "time", lambda: later)
    with pytest.raises(RpcError, match=r"^\[-32602\] Expired requestState: start the request again$") as info:
        mrtr.open_request_state("tools/call", {**params, "requestState": state})
    assert info.value.code == -32602


@pytest.mark.parametrize("protocol", ["2026-07-28", "legacy"])
def test_the_runtime_client_answers_several_inputs_in_either_era(protocol: str) -> None:
    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        return accept(name="Ada")

    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}

    async def roots() -> list[dict[str, Any]]:
        return [{"uri": "file:///r", "name": "r"}]

    async def main() -> None:
        command, args = server_args()
        async with connect_stdio(
            command,
            args,
            cwd=str(CONFORMANCE),
            protocol=protocol,
            on_elicitation=elicit,
            on_sampling=sample,
            on_roots=roots,
        ) as s:
            several = await s.call_tool("test_input_required_result_multiple_inputs", {})
            assert several["content"][0]["text"] == "Received answers for: client_roots, greeting, user_name"
            rounds = await s.call_tool("test_input_required_result_multi_round", {})
            assert rounds["content"][0]["text"] == "Ada likes None"  # the elicitation answers name only

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_partly_answered_round_asks_only_for_the_rest_and_keeps_the_answers() -> None:
    peer = StdioPeer()
    try:
        name = "test_input_required_result_multiple_inputs"
        partial = peer.call(name, ALL_INPUTS, inputResponses={"user_name": accept(name="Ada")})["result"]
        assert sorted(partial["inputRequests"]) == ["client_roots", "greeting"]
        rest = {
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
            "client_roots": {"roots": []},
        }
        done = peer.call(name, ALL_INPUTS, inputResponses=rest, requestState=partial["requestState"])["result"]
        assert done["resultType"] == "complete"
    finally:
        peer.close()
