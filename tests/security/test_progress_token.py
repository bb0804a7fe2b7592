"""A progressToken that is no string or integer (NaN, a float, an object) must not make the tool
fail: the call is answered, without progress notifications."""

from __future__ import annotations

import json

from ._stdio import INITIALIZE, INITIALIZED, answers, line, run_stdio


def raw_call(request_id: int, token_json: str) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get-forecast",'
        b'"arguments":{"city":"Paris","days":2},"_meta":{"progressToken":%s}}}\n' % (request_id, token_json.encode())
    )


def test_odd_progress_tokens_do_not_fail_the_tool() -> None:
    tokens = ["NaN", "Infinity", "-Infinity", "1.5", '{"a":1}', "true"]
    data = line(INITIALIZE) + line(INITIALIZED)
    data += b"".join(raw_call(10 + i, token) for i, token in enumerate(tokens))
    data += raw_call(99, '"ok"')
    messages, proc = run_stdio(data)
    got = answers(messages)
    for i in range(len(tokens)):
        reply = got.get(10 + i)
        assert reply is not None and "result" in reply, (tokens[i], reply, proc.stderr.decode()[-1500:])
        assert not reply["result"].get("isError"), (tokens[i], json.dumps(reply)[:300])
    progress = [m for m in messages if m.get("method") == "notifications/progress"]
    assert progress and all(m["params"]["progressToken"] == "ok" for m in progress)
