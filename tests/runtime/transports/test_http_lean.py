"""The lean HTTP/1.1 client (http_lean) against a scripted asyncio server: bodies by length,
chunked and read-to-close, keep-alive reuse, a kept-alive connection the server closed, read
timeouts, a cut response, cancellation, and which URLs and headers it leaves to httpx."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcpgen.runtime.transports.http_lean import LeanHttpError, LeanPool, ReadTimeout, headers_ok, lean_target

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[bool]]


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


class Scripted:
    """A server answering each request with handler(reader, writer, n); False closes the connection."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests: list[bytes] = []
        self.closed_by_client = asyncio.Event()
        self.ended = asyncio.Event()  # a connection's serve() is over, its socket closed

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while (request := await _read_request(reader)) is not None:
                self.requests.append(request)
                if not await self.handler(reader, writer, len(self.requests)):
                    break
            else:
                self.closed_by_client.set()
        finally:
            writer.close()
            self.ended.set()

    async def __aenter__(self) -> LeanPool:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        target = lean_target(f"http://127.0.0.1:{port}/mcp?x=1")
        assert target is not None
        self.pool = LeanPool(target)
        return self.pool

    async def __aexit__(self, *exc: object) -> None:
        await self.pool.aclose()
        self.server.close()


def _json_answer(body: bytes = b'{"ok":true}') -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 20))  # type: ignore[arg-type]


def test_length_bodies_reuse_one_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(_json_answer(b'{"n":%d}' % n))
        return True

    async def main() -> None:
        script = Scripted(handler)
        async with script as pool:
            for n in (1, 2, 3):
                response = await pool.post({"accept": "application/json", "x-custom": "v"}, b'{"a":1}', 5.0)
                assert response.status_code == 200
                assert response.headers["content-type"] == "application/json"
                assert await response.aread() == b'{"n":%d}' % n
        assert script.connections == 1
        first = script.requests[0]
        assert first.startswith(b"POST /mcp?x=1 HTTP/1.1\r\n")
        assert b"\r\nx-custom: v\r\n" in first and b"\r\nuser-agent: python-mcpgen\r\n" in first
        assert first.endswith(b'\r\n\r\n{"a":1}')

    run(main())


def test_chunked_event_stream_lines_split_anywhere() -> None:
    payload = b'id: 1\r\nevent: message\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\ndata: last\n\n'

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        for i in range(0, len(payload), 7):  # chunks that cut lines, and CRLFs, in two
            part = payload[i : i + 7]
            writer.write(b"%x;ext=1\r\n%s\r\n" % (len(part), part))
            await writer.drain()
            await asyncio.sleep(0.001)
        writer.write(b"0\r\ntrailer: x\r\n\r\n")
        return True

    async def main() -> None:
        script = Scripted(handler)
        async with script as pool:
            for _ in range(2):
                response = await pool.post({}, b"{}", 5.0)
                lines = [line async for line in response.aiter_lines()]
                assert lines == ["id: 1", "event: message", 'data: {"a":1}', "", ": keep-alive", "", "data: last", ""]
        assert script.connections == 1  # the chunked body ended cleanly: reused

    run(main())


def test_body_read_to_close_is_not_reused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 500 Oops\r\ncontent-type: text/html\r\n\r\n<html>broken</html>")
        return False

    async def main() -> None:
        script = Scripted(handler)
        async with script as pool:
            for _ in range(2):
                response = await pool.post({}, b"{}", 5.0)
                assert response.status_code == 500
                assert await response.aread() == b"<html>broken</html>"
        assert script.connections == 2

    run(main())


def test_a_kept_alive_connection_the_server_closed_is_retried_once() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(_json_answer())
        await writer.drain()
        return False  # answers as keep-alive, then closes (an idle timeout)

    async def main() -> None:
        script = Scripted(handler)
        async with script as pool:
            assert await (await pool.post({}, b"{}", 5.0)).aread() == b'{"ok":true}'
            await script.ended.wait()  # the server closed the idle connection
            assert await (await pool.post({}, b"{}", 5.0)).aread() == b'{"ok":true}'
        assert script.connections == 2

    run(main())


def test_interim_response_is_skipped_and_no_content_has_no_body() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
        return True

    async def main() -> None:
        async with Scripted(handler) as pool:
            response = await pool.post({}, b"{}", 5.0)
            assert response.status_code == 202
            assert await response.aread() == b""

    run(main())


def test_read_timeout_and_cut_responses_raise() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        await reader.read()  # never answers: only the client's own timeout ends the request
        return False

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial"')
        await writer.drain()
        return False

    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
        return False

    async def main() -> None:
        async with Scripted(silent) as pool:
            loop = asyncio.get_running_loop()
            start = loop.time()
            with pytest.raises(ReadTimeout, match="timed out waiting for the server"):
                await pool.post({}, b"{}", 0.3)
            assert loop.time() - start >= 0.25  # not before its time (later is the machine's load)
        async with Scripted(cut) as pool:
            response = await pool.post({}, b"{}", 5.0)
            with pytest.raises(LeanHttpError, match="the server closed the connection"):
                await response.aread()
        async with Scripted(garbage) as pool:
            with pytest.raises(LeanHttpError, match="status line"):
                await pool.post({}, b"{}", 5.0)

    run(main())


def test_connection_refused_is_a_lean_error() -> None:
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        target = lean_target(f"http://127.0.0.1:{port}/mcp")
        assert target is not None
        pool = LeanPool(target)
        with pytest.raises(LeanHttpError, match="cannot connect"):
            await pool.post({}, b"{}", 5.0)
        await pool.aclose()

    run(main())


def test_cancelling_a_request_closes_its_connection() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        await writer.drain()
        await reader.read()  # until the client goes away
        return False

    async def main() -> None:
        script = Scripted(slow)
        async with script as pool:
            response = await pool.post({}, b"{}", None)

            async def read_all() -> list[str]:
                return [line async for line in response.aiter_lines()]

            task = asyncio.ensure_future(read_all())
            await asyncio.sleep(0)  # the task runs until it waits for a line that never comes
            task.cancel()
            with pytest.raises(asyncio.CancelledError, match=r"^$"):
                await task
            response.aclose()
            await script.ended.wait()  # the server saw the connection closed
            assert len(script.requests) == 1
            assert pool._open == 0 and not pool._idle

    run(main())


def test_what_stays_on_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert lean_target("http://127.0.0.1:8000/mcp") is not None
    assert lean_target("http://[::1]:8000/mcp") is not None
    assert lean_target("https://127.0.0.1:8000/mcp") is None
    assert lean_target("http://user:pw@127.0.0.1:8000/mcp") is None
    assert lean_target("http://127.0.0.1:99999/mcp") is None
    monkeypatch.setenv("HTTP_PROXY", "http://proxy:3128")
    assert lean_target("http://127.0.0.1:8000/mcp") is None
    assert headers_ok({"authorization": "Bearer x", "x-a": "é"})
    assert not headers_ok({"x-a": "a\r\nx-injected: 1"})
    assert not headers_ok({"bad name": "v"})
    assert not headers_ok({"x-a": "€"})


def test_the_streamable_transport_uses_it_only_where_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    from mcpgen.runtime.transports.http_client import StreamableHttpTransport

    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert StreamableHttpTransport("http://127.0.0.1:1/mcp")._lean is not None
    assert StreamableHttpTransport("https://127.0.0.1:1/mcp")._lean is None
    assert StreamableHttpTransport("http://127.0.0.1:1/mcp", headers={"x-a": "€"})._lean is None
    assert StreamableHttpTransport("http://127.0.0.1:1/mcp", client=httpx.AsyncClient())._lean is None


def test_headers_it_writes_itself_go_to_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("Host", "content-length", "Transfer-Encoding", "connection"):
        assert not headers_ok({name: "x"})
    monkeypatch.setenv("all_proxy", "socks5://proxy:1080")
    assert lean_target("http://127.0.0.1:8000/mcp") is None
