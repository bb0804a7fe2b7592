"""requestState from a hostile client: a non-ASCII MAC, garbage, a state for another request;
every one is -32602 (never -32603 or a traceback). Replay is documented as safe."""

from __future__ import annotations

import pytest

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.core.errors import RpcError
from mcpgen.runtime.server import request_state
from mcpgen.runtime.server.request_state import issue_request_state, open_request_state

PARAMS = {"name": "t", "arguments": {"x": 1}}


@pytest.mark.parametrize(
    "forged",
    [
        "abc.é",
        "abc.\udcff",
        "é.0123456789abcdef0123456789abcdef",
        "x" * 100 + ".💥",
        ".",
        "no-dot",
    ],
)
def test_forged_states_are_invalid_params(forged: str) -> None:
    with pytest.raises(RpcError, match=r"^\[-32602\] Invalid requestState$") as caught:
        open_request_state("tools/call", {**PARAMS, "requestState": forged})
    assert caught.value.code == jsonrpc.INVALID_PARAMS


def test_a_state_for_other_arguments_is_refused_and_its_own_request_accepted() -> None:
    state = issue_request_state("tools/call", PARAMS, {"k": {"action": "accept"}})
    with pytest.raises(RpcError, match=r"^\[-32602\] Invalid requestState$"):
        open_request_state("tools/call", {"name": "t", "arguments": {"x": 2}, "requestState": state})
    assert open_request_state("tools/call", {**PARAMS, "requestState": state}) == {"k": {"action": "accept"}}


def test_why_replay_is_safe_is_documented() -> None:
    doc = request_state.__doc__ or ""
    assert "Replay is accepted on purpose" in doc
