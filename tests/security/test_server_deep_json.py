"""One deep line must cost that message only: JSON nested far deeper than the parser's recursion
limit is a parse error (-32700, id null), and the session keeps reading."""

from __future__ import annotations

import pytest

from mcpgen.runtime.core import jsonrpc

from ._asgi import INIT_PARAMS, app, post, rpc, sync
from ._stdio import INITIALIZE, INITIALIZED, answers, call, line, run_stdio

DEPTHS = [1_000, 5_000, 100_000]


@pytest.mark.parametrize("depth", DEPTHS)
def test_decode_refuses_deep_nesting_with_a_value_error(depth: int) -> None:
    with pytest.raises(ValueError, match="JSON nested too deeply"):
        jsonrpc.decode(b"[" * depth + b"]" * depth)
    with pytest.raises(ValueError, match="JSON nested too deeply"):
        jsonrpc.decode('{"a":' * depth + "1" + "}" * depth)


def test_stdio_server_answers_parse_error_and_keeps_reading() -> None:
    deep = b"[" * 2_000 + b"]" * 2_000 + b"\n"
    deep_object = b'{"jsonrpc":"2.0","id":5,"method":"ping","params":' + b'{"a":' * 3_000 + b"1" + b"}" * 3_001 + b"\n"
    data = line(INITIALIZE) + line(INITIALIZED) + deep + deep_object
    data += call(2, "get-forecast", {"city": "Paris", "days": 1})
    messages, proc = run_stdio(data)
    parse_errors = [m for m in messages if m.get("error", {}).get("code") == jsonrpc.PARSE_ERROR]
    assert len(parse_errors) == 2 and all(m["id"] is None for m in parse_errors)
    assert "result" in answers(messages).get(2, {}), proc.stderr.decode()[-2000:]


@sync
async def test_http_answers_400_with_a_parse_error_body() -> None:
    target = app()
    for body in (b"[" * 5_000 + b"]" * 5_000, b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 3_000):
        exchange = await post(target, body)
        assert exchange.reply.status == 400
        assert exchange.reply.headers["content-type"] == "application/json"
        reply = exchange.reply.json()
        assert reply["error"]["code"] == jsonrpc.PARSE_ERROR and reply["id"] is None
    assert (await post(target, rpc(1, "initialize", INIT_PARAMS))).reply.status == 200
