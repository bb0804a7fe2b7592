"""POST needs Accept: application/json and text/event-stream (406 otherwise) and a JSON body
(Content-Type: application/json, 415 otherwise), as the official SDK's server decides."""

from __future__ import annotations

import pytest

from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.http.limits import HttpLimits

from ._asgi import INIT_PARAMS, app, post, rpc, slow_server, sync

INIT = rpc(1, "initialize", INIT_PARAMS)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"accept": ""}, 406),
        ({"accept": "text/html"}, 406),
        ({"accept": "application/json"}, 406),
        ({"accept": "text/event-stream"}, 406),
        ({"content-type": "text/plain"}, 415),
        ({"content-type": ""}, 415),
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"accept": "*/*"}, 200),
        ({"accept": "application/*, text/*"}, 200),
        ({"content-type": "application/json; charset=utf-8"}, 200),
    ],
)
def test_post_content_negotiation(headers: dict[str, str], status: int) -> None:
    @sync
    async def check() -> None:
        exchange = await post(app(), INIT, headers=headers)
        assert exchange.reply.status == status, exchange.reply.body
        if status != 200:
            assert "error" in exchange.reply.json()

    check()


@sync
async def test_json_response_mode_needs_only_json() -> None:
    target = StreamableHttpApp(slow_server(), json_response=True, limits=HttpLimits())
    assert (await post(target, INIT, headers={"accept": "application/json"})).reply.status == 200
