"""Request heads are bounded in size (--max-header-bytes) and in fields (--max-headers): beyond
either the client gets 431 and its connection is closed (issue 34, minor: there was no limit).
Real sockets on 127.0.0.1, both of uvicorn's parsers, the head sent whole and in small pieces."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from mcpgen.runtime.server.http.limits import HttpLimits

from ._asgi import ACCEPT, INIT_PARAMS, app, rpc
from ._inproc import app_serving

pytestmark = pytest.mark.timeout(60)

LIMITS = HttpLimits(max_header_bytes=4096, max_headers=20, header_timeout=30)


@pytest.fixture(params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "h11":
        monkeypatch.setitem(sys.modules, "uvicorn.protocols.http.httptools_impl", None)
    yield request.param


def _request(extra: list[str]) -> bytes:
    body = rpc(1, "initialize", INIT_PARAMS)
    lines = [
        "POST /mcp HTTP/1.1",
        "Host: 127.0.0.1",
        f"Accept: {ACCEPT}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _exchange(port: int, data: bytes, piece: int) -> bytes:
    """Everything the server sent until it closed (or its first answer, when it keeps going)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for at in range(0, len(data), piece):
            writer.write(data[at : at + piece])
            try:
                await writer.drain()
            except OSError:
                break
            await asyncio.sleep(0)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        return head
    finally:
        writer.close()


@pytest.mark.parametrize("piece", [100, 1 << 20], ids=["pieces", "whole"])
def test_too_many_header_fields_get_431(parser: str, piece: int) -> None:
    async def main() -> tuple[bytes, bytes]:
        async with app_serving(app(max_header_bytes=4096, max_headers=20), LIMITS) as port:
            many = await _exchange(port, _request([f"X-{i}: v" for i in range(30)]), piece)
            few = await _exchange(port, _request([f"X-{i}: v" for i in range(10)]), piece)
            return many, few

    many, few = asyncio.run(main())
    assert many.startswith(b"HTTP/1.1 431"), many
    assert few.startswith(b"HTTP/1.1 200"), few


def test_a_head_over_the_byte_limit_sent_slowly_is_closed(parser: str) -> None:
    async def main() -> tuple[bytes, bytes]:
        async with app_serving(app(max_header_bytes=4096, max_headers=20), LIMITS) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            for _ in range(100):  # 10 KB of one header, never finished
                writer.write(b"X-Pad: " + b"a" * 93 + b"\r\n")
                try:
                    await writer.drain()
                except OSError:
                    break
                await asyncio.sleep(0)
            try:
                sent = await asyncio.wait_for(reader.read(), 20)  # until the server closes
            except ConnectionResetError:
                # Closed with our unread bytes in its buffer: the kernel resets, and may drop the
                # 431 it carried. Closed either way; the answer itself is checked below.
                sent = b"HTTP/1.1 431 (reset)"
            writer.close()
            fine = await _exchange(port, _request(["X-Pad: " + "a" * 2000]), 100)
            return sent, fine

    refused, fine = asyncio.run(main())
    assert refused.startswith(b"HTTP/1.1 431"), refused
    assert fine.startswith(b"HTTP/1.1 200"), fine


def test_a_head_over_the_byte_limit_gets_431(parser: str) -> None:
    start = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    pad = b"X-Pad: " + b"a" * 91 + b"\r\n"  # 100 bytes
    count = (4096 - len(start)) // len(pad) + 1  # the last piece passes the limit: nothing after it

    async def main() -> bytes:
        async with app_serving(app(max_header_bytes=4096, max_headers=20), LIMITS) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(start)
            for _ in range(count):
                await asyncio.sleep(0.002)
                writer.write(pad)
                await writer.drain()
            answer = await asyncio.wait_for(reader.read(), 20)
            writer.close()
            return answer

    assert asyncio.run(main()).startswith(b"HTTP/1.1 431")
