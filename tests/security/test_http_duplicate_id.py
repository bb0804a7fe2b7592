"""A second POST reusing the id of a request still in flight in the same session is refused at
once (409 with a JSON-RPC error), and the first POST still gets its own answer."""

from __future__ import annotations

import asyncio

from mcpgen.runtime.core import jsonrpc

from ._asgi import app, open_session, post, rpc, slow_server, sync


@sync
async def test_duplicate_in_flight_id_is_refused_and_the_first_is_answered() -> None:
    gate = asyncio.Event()
    target = app(slow_server(gate))
    session = await open_session(target)
    headers = {"mcp-session-id": session}
    body = rpc(7, "tools/call", {"name": "wait", "arguments": {}})
    first = await post(target, body, headers=headers, wait=False)
    await asyncio.sleep(0.05)
    second = await post(target, body, headers=headers)
    assert second.reply.status == 409
    assert second.reply.json()["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert not first.done.is_set()
    gate.set()
    await asyncio.wait_for(first.done.wait(), 5)
    assert first.reply.status == 200
    assert b'"done"' in first.reply.body
    # Once answered, the id may be used again.
    again = await post(target, body, headers=headers)
    assert again.reply.status == 200
