"""Rule: no read of a request waits on its client without a deadline (issue 34, serious 5).

Sockets that send a POST head and then nothing, or trickle their body, hold a connection slot
for a bounded time: `--body-timeout` (idle) and `--body-total-timeout` close them, and while they
hang a new client is served. Real sockets on 127.0.0.1, the guarded protocol serve_http runs,
both of uvicorn's HTTP parsers; every wait is on the server's own deadline (a closed socket)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import httpx
import pytest

from mcpgen.runtime.server.http import protocol
from mcpgen.runtime.server.http.limits import HttpLimits

from ._asgi import ACCEPT, INIT_PARAMS, app, rpc
from ._inproc import app_serving

pytestmark = pytest.mark.timeout(60)

HEAD = (
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {accept}\r\nContent-Type: application/json\r\n"
    "Content-Length: {length}\r\n\r\n"
)


@pytest.fixture(params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "h11":
        import sys

        monkeypatch.setitem(sys.modules, "uvicorn.protocols.http.httptools_impl", None)
    yield request.param


async def _open(port: int, length: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(HEAD.format(accept=ACCEPT, length=length).encode())
    await writer.drain()
    return reader, writer


async def _closed(reader: asyncio.StreamReader) -> bytes:
    """What the server sent before it closed the connection (waits for the close). The server
    aborts a late body's connection: with our bytes unread, the kernel may signal it as a reset."""
    try:
        return await reader.read()
    except ConnectionResetError:
        return b""


async def _initialize(port: int) -> int:
    async with httpx.AsyncClient() as client:
        reply = await client.post(
            f"http://127.0.0.1:{port}/mcp",
            content=rpc(1, "initialize", INIT_PARAMS),
            headers={"accept": ACCEPT, "content-type": "application/json"},
        )
    return reply.status_code


def test_stalled_bodies_do_not_block_a_new_client_and_are_closed_by_the_idle_deadline(parser: str) -> None:
    limits = HttpLimits(body_timeout=0.3, body_total_timeout=30, max_connections=20, header_timeout=30)

    async def main() -> None:
        async with app_serving(app(), limits) as port:
            stalled = [await _open(port, 100) for _ in range(12)]
            assert await _initialize(port) == 200  # served while the twelve hang
            for reader, writer in stalled:
                assert await asyncio.wait_for(_closed(reader), 20) == b""
                writer.close()

    asyncio.run(main())


def test_a_trickled_body_is_closed_by_the_total_deadline(parser: str) -> None:
    limits = HttpLimits(body_timeout=5, body_total_timeout=0.5, header_timeout=30)

    async def main() -> int:
        async with app_serving(app(), limits) as port:
            reader, writer = await _open(port, 10_000)
            sent = 0
            closed = asyncio.ensure_future(_closed(reader))
            while not closed.done() and sent < 10_000:
                with contextlib.suppress(OSError):
                    writer.write(b" ")
                    await writer.drain()
                sent += 1
                await asyncio.wait([closed], timeout=0.05)  # a byte per 50 ms: never idle
            assert closed.done(), "the trickle outlived the total deadline"
            assert await closed == b""
            writer.close()
            return sent

    assert asyncio.run(main()) < 10_000


def test_a_body_that_completes_in_pieces_is_served_and_leaves_no_timer(parser: str) -> None:
    limits = HttpLimits(body_timeout=5, body_total_timeout=30, header_timeout=30)
    body = rpc(1, "initialize", INIT_PARAMS)

    async def main() -> bytes:
        async with app_serving(app(), limits) as port:
            reader, writer = await _open(port, len(body))
            for i in range(0, len(body), 7):
                writer.write(body[i : i + 7])
                await writer.drain()
                await asyncio.sleep(0.01)
            head = await reader.readuntil(b"\r\n\r\n")
            writer.close()
            return head

    assert asyncio.run(main()).startswith(b"HTTP/1.1 200")


def test_the_flags_carry_the_body_deadlines() -> None:
    import argparse

    from mcpgen.runtime.server.http.limits import add_limit_arguments, limits_from_args

    parser = argparse.ArgumentParser()
    add_limit_arguments(parser, {"MCPGEN_BODY_TOTAL_TIMEOUT": "42"})
    limits = limits_from_args(parser.parse_args(["--body-timeout", "2.5"]))
    assert (limits.body_timeout, limits.body_total_timeout) == (2.5, 42.0)
    assert HttpLimits().body_timeout <= 10
    assert protocol.guarded_protocol(limits, 5).body_total_timeout == 42.0
