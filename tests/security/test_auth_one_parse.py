"""Rule: a request is parsed once, with one depth and size limit, and the resource-server layer
and the MCP server judge the same parsed message; what the layer cannot parse is refused, never
passed on (issue 34, serious 2: JSON nested ~980 deep made the layer's own parser give up and
let a token without the tool's scope call it).

The attack on the rule: every way found to make two parsers disagree (depth, size, duplicate
keys, a BOM, bytes that are not UTF-8, lone surrogates, batches, trailing data, NaN/Infinity,
huge numbers, escaped names, content-codings), in both protocol eras, sent over a real socket
with a token that lacks the tool's scope: each ends in 403 insufficient_scope or a refusal, and
the tool never runs. The same requests with a token that has the scope show the decision is the
message's: where they reach the tool, only the scope stopped the other. A structural check
counts the parses of one request: exactly one."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.server.auth.info import AuthInfo
from mcpgen.runtime.server.auth.resource import ProtectedResource
from mcpgen.runtime.server.auth.settings import AuthSettings
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.server.server import RequestContext, Server

from ._asgi import ACCEPT, INIT_PARAMS, rpc
from ._inproc import app_serving

pytestmark = pytest.mark.timeout(120)

CAP = 256 * 1024
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


class Verifier:
    """Any token is valid; its text names its scopes ("tools" or "tools+admin")."""

    async def verify(self, token: str) -> AuthInfo:
        return AuthInfo("u", "c", frozenset(token.split("+")), "http://127.0.0.1:9", ("http://127.0.0.1/mcp",), None)


def protected(ran: list[str]) -> ProtectedResource:
    server = Server("t", "1")

    async def secret(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        ran.append("secret")
        return {"content": [{"type": "text", "text": "the secret"}]}

    server.add_tool({"name": "secret", "inputSchema": {"type": "object"}}, secret)
    server.tool_scopes["secret"] = frozenset({"admin"})
    settings = AuthSettings(issuer="http://127.0.0.1:9", resource="http://127.0.0.1/mcp")
    app = StreamableHttpApp(server, limits=HttpLimits(max_body_bytes=CAP))
    return ProtectedResource(app, server, settings, path="/mcp", max_body_bytes=CAP, verifier=Verifier())


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _call(era: str, arguments: str = "{}", name: str = '"secret"', extra: str = "") -> str:
    meta = f',"_meta":{json.dumps(META)}' if era == "modern" else ""
    params = f'{{"name":{name},"arguments":{arguments}{meta}}}'
    return f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}{extra}}}'


# Each: era -> (body bytes, extra headers).
Payload = Callable[[str], tuple[bytes, dict[str, str]]]


def _text(make: Callable[[str], str], **headers: str) -> Payload:
    return lambda era: (make(era).encode(), headers)


PAYLOADS: dict[str, Payload] = {
    "plain": _text(_call),
    "deep-500": _text(lambda era: _call(era, f'{{"pad":{_nested(500)}}}')),
    "deep-980": _text(lambda era: _call(era, f'{{"pad":{_nested(980)}}}')),
    "deep-5000": _text(lambda era: _call(era, f'{{"pad":{_nested(5000)}}}')),
    "deep-in-extra-member": _text(lambda era: _call(era, extra=f',"x":{_nested(3000)}')),
    "near-the-cap": _text(lambda era: _call(era, f'{{"pad":"{"a" * (CAP - 400)}"}}')),
    "over-the-cap": _text(lambda era: _call(era, f'{{"pad":"{"a" * CAP}"}}')),
    "duplicate-name": _text(lambda era: _call(era, name='"public","name":"secret"')),
    "duplicate-name-reversed": _text(lambda era: _call(era, name='"secret","name":"public"')),
    "duplicate-method": _text(
        lambda era: _call(era).replace('"method":"tools/call"', '"method":"ping","method":"tools/call"')
    ),
    "bom": lambda era: (b"\xef\xbb\xbf" + _call(era).encode(), {}),
    "not-utf8": lambda era: (_call(era, '{"x":"\xe9"}').encode("latin-1"), {}),
    "lone-surrogate": _text(lambda era: _call(era, '{"x":"\\ud800"}')),
    "escaped-name": _text(lambda era: _call(era, name='"\\u0073ecret"')),
    "batch": _text(lambda era: f"[{_call(era)}]"),
    "batch-behind-a-ping": _text(lambda era: f'[{{"jsonrpc":"2.0","id":1,"method":"ping"}},{_call(era)}]'),
    "trailing-object": _text(lambda era: _call(era) + '{"jsonrpc":"2.0","id":8,"method":"ping"}'),
    "trailing-garbage": _text(lambda era: _call(era) + " x"),
    "whitespace-around": _text(lambda era: " \n\t" + _call(era) + " \r\n"),
    "nan": _text(lambda era: _call(era, '{"x":NaN,"y":-Infinity}')),
    "huge-float": _text(lambda era: _call(era, '{"x":1e400}')),
    "huge-int": _text(lambda era: _call(era, '{"x":' + "9" * 5000 + "}")),
    "gzip": lambda era: (gzip.compress(_call(era).encode()), {"content-encoding": "gzip"}),
    "gzip-deep": lambda era: (
        gzip.compress(_call(era, f'{{"pad":{_nested(5000)}}}').encode()),
        {"content-encoding": "gzip"},
    ),
    "gzip-gzip": lambda era: (gzip.compress(gzip.compress(_call(era).encode())), {"content-encoding": "gzip, gzip"}),
}


async def _post(
    port: int, token: str, era: str, body: bytes, extra: dict[str, str], session: str | None
) -> httpx.Response:
    headers = {"accept": ACCEPT, "content-type": "application/json", "authorization": f"Bearer {token}", **extra}
    if era == "modern":
        headers |= {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "secret"}
    elif session is not None:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.post(f"http://127.0.0.1:{port}/mcp", content=body, headers=headers)


async def _session(port: int, token: str) -> str:
    opened = await _post(port, token, "handshake", rpc(1, "initialize", INIT_PARAMS), {}, None)
    assert opened.status_code == 200, opened.text
    return opened.headers["mcp-session-id"]


def _reached_the_tool(reply: httpx.Response) -> bool:
    return reply.status_code == 200 and "the secret" in reply.text


@pytest.mark.slow
@pytest.mark.parametrize("era", ["modern", "handshake"])
def test_no_payload_makes_the_scope_check_and_the_server_disagree(era: str) -> None:
    ran: list[str] = []
    outcomes: dict[str, tuple[int, bool]] = {}

    async def main() -> None:
        async with app_serving(protected(ran), HttpLimits(max_body_bytes=CAP)) as port:
            for label, payload in PAYLOADS.items():
                body, extra = payload(era)
                for token in ("tools", "tools+admin"):
                    session = await _session(port, token) if era == "handshake" else None
                    before = len(ran)
                    reply = await _post(port, token, era, body, extra, session)
                    if token == "tools":
                        # Without the scope: 403, or a refusal of the request; never the tool.
                        assert len(ran) == before, f"{label}: the tool ran for a token without its scope"
                        assert not _reached_the_tool(reply), label
                        assert reply.status_code in (403, 400, 413, 415) or "error" in reply.json(), (label, reply.text)
                        denied = reply.status_code == 403
                        if denied:
                            assert 'error="insufficient_scope"' in reply.headers["www-authenticate"], label
                    else:
                        outcomes[label] = (reply.status_code, _reached_the_tool(reply))
                        # Where the scoped token reached the tool, the other was stopped by the scope.
                        if outcomes[label][1]:
                            assert denied, f"{label}: reached the tool with the scope, refused otherwise than 403"

    asyncio.run(main())
    assert outcomes["plain"][1] and outcomes["escaped-name"][1] and outcomes["gzip"][1]
    # A deep but parsable request is served (and so judged) with the scope. (How deep the parser
    # goes depends on the stack it runs on: ~980 may or may not parse; once, for both layers.)
    assert outcomes["deep-500"][1]


def test_one_request_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real_decode = jsonrpc.decode
    real_loads = json.loads

    def counting_decode(data: bytes | str) -> Any:
        calls.append(len(data))
        return real_decode(data)

    def counting_loads(data: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(-1)
        return real_loads(data, *args, **kwargs)

    ran: list[str] = []

    async def main() -> list[httpx.Response]:
        async with app_serving(protected(ran), HttpLimits(max_body_bytes=CAP)) as port:
            monkeypatch.setattr(jsonrpc, "decode", counting_decode)
            monkeypatch.setattr(json, "loads", counting_loads)
            replies = []
            for body in (_call("modern"), _call("modern", '{"x":"\\ud800"}')):
                calls.clear()
                replies.append(await _post(port, "tools+admin", "modern", body.encode(), {}, None))
                assert len(calls) == 1, f"{len(calls)} parses of one request"
            return replies

    replies = asyncio.run(main())
    assert all(_reached_the_tool(reply) for reply in replies)
