"""Real sockets on 127.0.0.1 inside the test's event loop: our ASGI app under uvicorn with the
guarded protocol `serve_http` uses (`app_serving`), and a canned HTTP peer that answers every
request with what the test tells it (`canned_peer`), for the client's readers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn

from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.server.http.protocol import guarded_protocol

INIT_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "canned", "version": "1"},
}


@contextlib.asynccontextmanager
async def app_serving(app: Any, limits: HttpLimits) -> AsyncIterator[int]:
    """`app` under uvicorn on a 127.0.0.1 port (yielded), with serve_http's guarded protocol."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level="warning",
        http=guarded_protocol(limits, limits.max_connections),
        timeout_keep_alive=5,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await task
        sock.close()


Answer = Callable[[dict[str, Any]], tuple[int, dict[str, str], bytes]]


def jsonrpc_answer(hostile: Callable[[Any], tuple[int, dict[str, str], bytes]]) -> Answer:
    """initialize answered properly, notifications with 202, every other request with
    `hostile(its id)`."""

    def answer(message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        if message.get("method") == "initialize":
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": INIT_RESULT}).encode()
            return 200, {"content-type": "application/json"}, body
        if "id" not in message:
            return 202, {}, b""
        return hostile(message["id"])

    return answer


@contextlib.asynccontextmanager
async def canned_peer(answer: Answer) -> AsyncIterator[str]:
    """An HTTP/1.1 peer on 127.0.0.1 (its base URL yielded): one request per connection, each
    answered by `answer(parsed JSON body or {})` with Content-Length, then the connection closed."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = await reader.readexactly(length) if length else b""
            try:
                message = json.loads(body) if body else {}
            except ValueError:
                message = {}
            status, headers, payload = answer(message if isinstance(message, dict) else {})
            lines = [f"HTTP/1.1 {status} X", f"content-length: {len(payload)}", "connection: close"]
            lines += [f"{k}: {v}" for k, v in headers.items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()
