"""Rule: every HTTP body the runtime reads, on either side, is decoded a bounded piece at a time
against the reader's cap, and more than one content-coding is refused (issue 34, serious 4).

Every reader is attacked over real 127.0.0.1 sockets: the client's POST answers (the lean client
and httpx, which serves https and every `auth=` connection), its SSE streams, OAuth discovery, the
resource server's JWKS/introspection fetches, and the server's own request bodies; each with
gzip, deflate (zlib and raw), an unsupported coding (br), stacked codings (`gzip, gzip`, the
6.9 KB bomb's shape) and a single-layer bomb far over the cap. A last test holds the rule in the
source: no runtime module reads an HTTP body but through guard.chunks / read_body."""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpgen.runtime import MessageTooLarge, ProtocolError, connect_http
from mcpgen.runtime.client.auth.discovery import get_json
from mcpgen.runtime.client.auth.provider import BearerToken
from mcpgen.runtime.core.errors import AuthServerUnavailable
from mcpgen.runtime.server.auth.remote import fetch_json
from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.transports.content_coding import PIECE, ContentDecoder

from ._asgi import ACCEPT, INIT_PARAMS, app, rpc
from ._inproc import app_serving, canned_peer, jsonrpc_answer

pytestmark = pytest.mark.timeout(60)

MB = 1024 * 1024
CAP = 1 * MB  # the client's max_message_bytes in these tests


class _Token:
    async def token(self) -> str | None:
        return "t"


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@functools.cache
def _bomb(size: int) -> bytes:
    return gzip.compress(b"\0" * size, compresslevel=9)


def _encoded(payload: bytes, coding: str) -> tuple[dict[str, str], bytes]:
    if coding == "gzip":
        return {"content-encoding": "gzip"}, gzip.compress(payload)
    if coding == "deflate":
        return {"content-encoding": "deflate"}, zlib.compress(payload)
    if coding == "raw-deflate":
        return {"content-encoding": "deflate"}, _raw_deflate(payload)
    if coding == "gzip, gzip":
        return {"content-encoding": "gzip, gzip"}, gzip.compress(gzip.compress(payload))
    if coding == "br":
        return {"content-encoding": "br"}, payload
    if coding == "bomb":
        return {"content-encoding": "gzip"}, _bomb(16 * MB)
    if coding == "truncated":
        return {"content-encoding": "gzip"}, gzip.compress(payload)[:-6]
    return {}, payload


RESULT = {"content": [{"type": "text", "text": "decoded"}]}
GOOD = ["identity", "gzip", "deflate", "raw-deflate"]
REFUSED = {
    "gzip, gzip": "2 content-codings",
    "br": "content-coding 'br'",
    "bomb": "limit",
    "truncated": "truncated gzip",
}


def _answer(coding: str, sse: bool) -> Any:
    def hostile(request_id: Any) -> tuple[int, dict[str, str], bytes]:
        message = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": RESULT}).encode()
        payload = b"event: message\ndata: " + message + b"\n\n" if sse else message
        if coding == "bomb" and sse:
            payload = b"data: " + b"x" * (16 * MB)  # one endless SSE line, gzip'd below
            headers, body = {"content-encoding": "gzip"}, gzip.compress(payload, compresslevel=9)
        else:
            headers, body = _encoded(payload, coding)
        headers["content-type"] = "text/event-stream" if sse else "application/json"
        return 200, headers, body

    return jsonrpc_answer(hostile)


async def _call(url: str, via: str) -> Any:
    extra: dict[str, Any] = {"auth": BearerToken(_Token())} if via == "httpx" else {}
    async with connect_http(url, transport="streamable", timeout=30, max_message_bytes=CAP, **extra) as session:
        return await session.call_tool("echo", {})


@pytest.mark.parametrize("via", ["lean", "httpx"])
@pytest.mark.parametrize("sse", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("coding", GOOD + list(REFUSED))
def test_the_client_decodes_against_its_cap(via: str, sse: bool, coding: str) -> None:
    async def main() -> Any:
        async with canned_peer(_answer(coding, sse)) as base:
            return await _call(base + "/mcp", via)

    if coding in GOOD or (sse and coding == "truncated"):
        # (A stream cut inside the gzip trailer has delivered its whole event: the call has it.)
        assert asyncio.run(main())["content"][0]["text"] == "decoded"
        return
    expected = MessageTooLarge if coding == "bomb" else ProtocolError
    with pytest.raises(expected, match=REFUSED[coding]):
        asyncio.run(main())


@pytest.mark.parametrize("coding", GOOD + list(REFUSED))
def test_oauth_discovery_and_the_resource_servers_fetches_decode_against_their_caps(coding: str) -> None:
    document = {"issuer": "http://127.0.0.1", "jwks_uri": "http://127.0.0.1/jwks"}
    headers, body = _encoded(json.dumps(document).encode(), coding)
    if coding == "bomb":
        body = _bomb(64 * MB)  # both caps are smaller (1 MiB, 256 KiB)
    headers["content-type"] = "application/json"

    async def main() -> tuple[Any, Any]:
        async with canned_peer(lambda _message: (200, headers, body)) as base:
            async with httpx.AsyncClient() as client:
                discovered = await get_json(client, base + "/.well-known/oauth-authorization-server")
                try:
                    fetched: Any = await fetch_json(client, "GET", base + "/jwks")
                except AuthServerUnavailable as exc:
                    fetched = exc
            return discovered, fetched

    discovered, fetched = asyncio.run(main())
    if coding in GOOD:
        assert discovered == document
        assert fetched == document
    else:
        assert discovered is None  # discovery goes on to its next candidate
        assert isinstance(fetched, AuthServerUnavailable)
        assert re.search("more than|content-coding|truncated", str(fetched)), fetched


@pytest.mark.parametrize("coding", GOOD + list(REFUSED))
def test_the_server_decodes_request_bodies_against_its_cap(coding: str) -> None:
    headers, body = _encoded(rpc(1, "initialize", INIT_PARAMS), coding)
    expected = {"gzip, gzip": 415, "br": 415, "truncated": 415, "bomb": 413}.get(coding, 200)

    async def main() -> httpx.Response:
        async with app_serving(app(max_body_bytes=CAP), HttpLimits(max_body_bytes=CAP)) as port:
            async with httpx.AsyncClient() as client:
                return await client.post(
                    f"http://127.0.0.1:{port}/mcp",
                    content=body,
                    headers={"accept": ACCEPT, "content-type": "application/json", **headers},
                )

    reply = asyncio.run(main())
    assert reply.status_code == expected, reply.text
    if expected == 200:
        assert reply.json()["result"]["serverInfo"]["name"] == "t"


def test_a_decoder_step_never_produces_more_than_a_piece() -> None:
    decoder = ContentDecoder.for_header("gzip")
    assert decoder is not None
    pieces = decoder.pieces(_bomb(64 * MB))  # the whole bomb in one read
    taken = [next(pieces) for _ in range(8)]
    assert all(0 < len(piece) <= PIECE for piece in taken)
    with pytest.raises(ProtocolError, match="2 content-codings"):
        ContentDecoder.for_header("gzip, identity, deflate")
    with pytest.raises(ProtocolError, match="data after the end"):
        list(ContentDecoder.for_header("gzip").pieces(gzip.compress(b"{}") + b"junk"))  # type: ignore[union-attr]


RUNTIME = Path(__file__).resolve().parents[2] / "mcpgen" / "runtime"
# What reads an HTTP body: httpx's and the lean client's readers, and ASGI body events.
_BODY_READS = re.compile(r"\.aiter_bytes\(|\.aiter_text\(|\.aiter_lines\(|\.aread\(\)|\.json\(\)|\.aiter_raw\(")
_OWNERS = {"transports/guard.py", "transports/http_lean.py"}


def test_every_http_body_is_read_through_the_one_reader() -> None:
    offenders = []
    for path in RUNTIME.rglob("*.py"):
        name = path.relative_to(RUNTIME).as_posix()
        if name in _OWNERS:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _BODY_READS.search(line):
                offenders.append(f"{name}:{number}: {line.strip()}")
    assert offenders == [], "read HTTP bodies through transports/guard.py:\n" + "\n".join(offenders)
