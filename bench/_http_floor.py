"""The HTTP floor: what a Streamable HTTP tools/call costs when nothing but HTTP and JSON is done.

- server: a bare ASGI app (no framework, no MCP library) under uvicorn, which picks httptools and
  uvloop when they can be imported, as it does for every server the benchmark runs. It reads the
  whole body, parses it with the stdlib's json, and answers a JSON-RPC request with a canned
  result carrying the request's id (an initialize with a session id header, tools/call with the
  echoed text as text and structured content); a notification gets 202.
- client: a minimal keep-alive HTTP/1.1 client over raw asyncio streams, one connection per call
  in flight, writing the request with the era's headers (2026-07-28's mirrored Mcp-Method and
  Mcp-Name too) and reading the response by its Content-Length, then parsing it with json.

Neither checks anything an MCP peer must check: this is the cost of the bytes, the floor no real
pair can go below on this machine.

    python bench/_http_floor.py --port N       # serve at http://127.0.0.1:N/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

SESSION = b"floor-session"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "floor", "version": "1"},
}
Scope = dict[str, Any]


async def app(scope: Scope, receive: Any, send: Any) -> None:
    if scope["type"] != "http":  # served with lifespan="off": nothing else reaches it
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body)
    if "id" not in request:
        # An explicit empty length: without it uvicorn frames the empty body as chunked.
        await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})
        return
    headers = [(b"content-type", b"application/json")]
    if request["method"] == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "1"},
        }
        headers.append((b"mcp-session-id", SESSION))
    else:
        text = request["params"]["arguments"]["text"]
        result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    payload = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
    headers.append((b"content-length", str(len(payload)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class FloorConnection:
    """One kept-alive HTTP/1.1 connection posting JSON-RPC requests to the MCP endpoint."""

    def __init__(self, url: str, headers: dict[str, str], mirror: bool = False) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
        self.headers = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.next_id = 0
        self.mirror = mirror  # 2026-07-28: the method (and tool name) repeated in headers

    async def post(self, message: dict[str, Any]) -> tuple[dict[str, str], Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        body = json.dumps(message).encode()
        mirrored = ""
        if self.mirror:
            mirrored = f"mcp-method: {message['method']}\r\n"
            if message["method"] == "tools/call":
                mirrored += f"mcp-name: {message['params']['name']}\r\n"
        head = (
            f"POST {self.path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\n{self.headers}{mirrored}"
            f"content-length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status_and_headers = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = {}
        for line in status_and_headers[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        data = await self.reader.readexactly(length) if length else b""
        return headers, json.loads(data) if data else None

    async def call_echo(self, text: str) -> str:
        self.next_id += 1
        call: dict[str, Any] = {"name": "echo", "arguments": {"text": text}}
        if self.mirror:  # 2026-07-28: no session, so every request says who asks in its _meta
            call["_meta"] = MODERN_META
        _, reply = await self.post({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": call})
        return str(reply["result"]["structuredContent"]["result"])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def floor_connection(url: str, era: str) -> FloorConnection:
    """A connection with the era's headers: the handshake era initializes first and sends its
    session id with every call; 2026-07-28 sends its version header and no session."""
    if era != "legacy":
        return FloorConnection(url, {"mcp-protocol-version": era}, mirror=True)
    opening = FloorConnection(url, {})
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "floor", "version": "1"}}
    headers, _ = await opening.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    opening.close()
    connection = FloorConnection(
        url, {"mcp-protocol-version": "2025-11-25", "mcp-session-id": headers["mcp-session-id"]}
    )
    await connection.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return connection


class FloorPool:
    """`size` floor connections, each call taking a free one (one call in flight per connection)."""

    def __init__(self, connections: list[FloorConnection]) -> None:
        self.free: asyncio.Queue[FloorConnection] = asyncio.Queue()
        for connection in connections:
            self.free.put_nowait(connection)
        self.connections = connections

    @classmethod
    async def open(cls, url: str, era: str, size: int) -> FloorPool:
        return cls([await floor_connection(url, era) for _ in range(size)])

    async def call_echo(self, text: str) -> str:
        connection = await self.free.get()
        try:
            return await connection.call_echo(text)
        finally:
            self.free.put_nowait(connection)

    def close(self) -> None:
        for connection in self.connections:
            connection.close()


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--keep-alive-timeout", type=float, default=5.0, help="uvicorn's (default 5 s)")
    args = ap.parse_args()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=args.keep_alive_timeout,
    )


if __name__ == "__main__":
    main()
