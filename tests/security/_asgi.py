"""Call the Streamable HTTP ASGI app directly, with a body fed in chunks and every read counted."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.server.server import RequestContext, Server

ACCEPT = "application/json, text/event-stream"
INIT_PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


class Reply:
    def __init__(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""

    def json(self) -> Any:
        return json.loads(self.body)


class Exchange:
    """One request: `chunks` are the body pieces; `reads` counts the receive() calls that got one."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.reads = 0
        self.reply = Reply()
        self.done = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.chunks:
            self.reads += 1
            body = self.chunks.pop(0)
            return {"type": "http.request", "body": body, "more_body": bool(self.chunks)}
        await asyncio.Event().wait()  # the client stays connected
        raise AssertionError("unreachable")

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.reply.status = message["status"]
            self.reply.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        else:
            self.reply.body += message.get("body", b"")
            if not message.get("more_body"):
                self.done.set()


def slow_server(gate: asyncio.Event | None = None) -> Server:
    server = Server("t", "1")

    async def wait(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        if gate is not None:
            await gate.wait()
        return {"content": [{"type": "text", "text": "done"}]}

    server.add_tool({"name": "wait", "inputSchema": {"type": "object"}}, wait)
    return server


def app(server: Server | None = None, **limits: Any) -> StreamableHttpApp:
    return StreamableHttpApp(server or slow_server(), limits=HttpLimits(**limits))


async def post(
    target: StreamableHttpApp,
    body: bytes | list[bytes],
    *,
    headers: dict[str, str] | None = None,
    wait: bool = True,
) -> Exchange:
    chunks = body if isinstance(body, list) else [body]
    merged = {"host": "127.0.0.1:8000", "accept": ACCEPT, "content-type": "application/json", **(headers or {})}
    if isinstance(body, bytes) and "content-length" not in merged:
        merged["content-length"] = str(len(body))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in merged.items() if v is not None],
    }
    exchange = Exchange(chunks)
    task = asyncio.ensure_future(target(scope, exchange.receive, exchange.send))
    if wait:
        await asyncio.wait_for(exchange.done.wait(), 10)
        task.cancel()
    return exchange


def rpc(request_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return jsonrpc.encode(message)


async def open_session(target: StreamableHttpApp) -> str:
    exchange = await post(target, rpc(1, "initialize", INIT_PARAMS))
    assert exchange.reply.status == 200, exchange.reply.body
    return exchange.reply.headers["mcp-session-id"]


def sync(test: Callable[[], Awaitable[None]]) -> Callable[[], None]:
    """Run an async test on a fresh event loop, bounded to 30 s."""

    @functools.wraps(test)
    def run() -> None:
        asyncio.run(asyncio.wait_for(test(), 30))

    return run
