"""JSON that is not a JSON-RPC object (42, "x", null, [] outside batches, an object without
jsonrpc) gets -32600 with id null instead of silence, and the session goes on."""

from __future__ import annotations

from mcpgen.runtime.core import jsonrpc

from ._stdio import INITIALIZE, INITIALIZED, answers, call, line, run_stdio

NOT_REQUESTS = [b"42", b'"x"', b"null", b"true", b'{"method":"ping","id":3}', b'{"jsonrpc":"2.0","method":7}']


def test_each_non_request_value_gets_invalid_request() -> None:
    data = line(INITIALIZE) + line(INITIALIZED) + b"\n".join(NOT_REQUESTS) + b"\n"
    data += call(2, "get-forecast", {"city": "Paris", "days": 1})
    messages, proc = run_stdio(data)
    invalid = [m for m in messages if m.get("error", {}).get("code") == jsonrpc.INVALID_REQUEST]
    assert len(invalid) == len(NOT_REQUESTS), messages
    assert [m["id"] for m in invalid].count(None) >= 5
    assert "result" in answers(messages).get(2, {}), proc.stderr.decode()[-2000:]
