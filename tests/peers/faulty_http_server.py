"""Test peer: a fault-injecting MCP server over HTTP (raw ASGI under uvicorn, 127.0.0.1 only).

    python tests/peers/faulty_http_server.py MODE --port N [--log FILE]

It speaks just enough of the handshake era (2025-11-25) for the runtime client to connect:
``server/discover`` gets a JSON-RPC -32601 (so an "auto" client falls back), ``initialize``
answers normally with an ``Mcp-Session-Id``, notifications get 202, ``tools/list`` lists
``echo``, ``DELETE`` gets 200 and a GET without ``Last-Event-ID`` gets 405. The fault:

- ``500``: every POST gets HTTP 500 with a plain-text body (the handshake fails too).
- ``html``: every POST gets 200 with an HTML page (a proxy's login or error page).
- ``truncated``: every POST gets 200 ``application/json`` whose body is cut off mid-object
  (Content-Length matches the cut body, so only the JSON is broken).
- ``500-call``, ``html-call``, ``truncated-call``: the same, for ``tools/call`` only, after a
  normal handshake.
- ``cut-stream``: ``tools/call`` gets an SSE response carrying only a priming event
  (``id: e1``, ``retry: 300``, empty data), then the stream closes. A GET with
  ``Last-Event-ID: e1`` and the session id delivers the result as event ``e2``.
- ``cut-stream-never``: the same, but the resuming GET closes again without the result.
- ``cut-stream-long-retry``: as ``cut-stream``, but the priming event asks for a retry of
  999,999,999 ms (11.6 days).
- ``slow``: ``tools/call`` answers after 30 s.

``--log FILE`` appends one line per HTTP request: ``POST <method>`` or
``GET last-event-id=<id or ->`` or ``DELETE``, so a test can see what the client did.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
from typing import Any

MODES = (
    "500",
    "html",
    "truncated",
    "500-call",
    "html-call",
    "truncated-call",
    "cut-stream",
    "cut-stream-never",
    "cut-stream-long-retry",
    "slow",
)

_args = argparse.ArgumentParser()
_args.add_argument("mode", choices=MODES)
_args.add_argument("--port", type=int, required=True)
_args.add_argument("--log", default=None)
ARGS = _args.parse_args()

HTML = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><h1>Please sign in</h1></body></html>\n"
TOOLS = [
    {
        "name": "echo",
        "description": "Echo.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }
]

# session id -> the id of the tools/call whose stream was cut (for the resuming GET)
PENDING: dict[str, Any] = {}


def record(line: str) -> None:
    if ARGS.log:
        with open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def call_result(request_id: Any, params: dict[str, Any]) -> dict[str, Any]:
    text = str((params.get("arguments") or {}).get("text", "done"))
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"content": [{"type": "text", "text": text}], "isError": False},
    }


async def respond(send: Any, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def sse(send: Any, events: list[bytes], extra: dict[str, str] | None = None) -> None:
    """An SSE response carrying `events`, then closed by the server."""
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:
        await send({"type": "http.response.body", "body": event, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def fault(send: Any, mode: str, message: dict[str, Any]) -> bool:
    """Send the 500/html/truncated fault; False if `mode` is not one of those."""
    if mode.startswith("500"):
        await respond(send, 500, b"Internal Server Error: injected fault\n", "text/plain; charset=utf-8")
    elif mode.startswith("html"):
        await respond(send, 200, HTML, "text/html; charset=utf-8")
    elif mode.startswith("truncated"):
        whole = encode(
            {"jsonrpc": "2.0", "id": message.get("id"), "result": {"content": [{"type": "text", "text": "x" * 200}]}}
        )
        await respond(send, 200, whole[: len(whole) // 2], "application/json")
    else:
        return False
    return True


async def read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return b""
        chunks.append(event.get("body", b""))
        if not event.get("more_body"):
            return b"".join(chunks)


async def post(headers: dict[str, str], receive: Any, send: Any) -> None:
    mode = ARGS.mode
    message = json.loads(await read_body(receive) or b"{}")
    method = message.get("method")
    record(f"POST {method or 'response'}")
    if mode in ("500", "html", "truncated") and await fault(send, mode, message):
        return
    if "id" not in message or method is None:
        await respond(send, 202, b"", "text/plain")
        return
    request_id = message["id"]
    session = headers.get("mcp-session-id")
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"faulty-http-{mode}", "version": "0"},
        }
        reply = encode({"jsonrpc": "2.0", "id": request_id, "result": result})
        await respond(send, 200, reply, "application/json", {"mcp-session-id": secrets.token_hex(16)})
        return
    if method == "ping":
        await respond(send, 200, encode({"jsonrpc": "2.0", "id": request_id, "result": {}}), "application/json")
        return
    if method == "tools/list":
        await respond(
            send, 200, encode({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}}), "application/json"
        )
        return
    if method != "tools/call":
        error = {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": -32601, "message": f"Method not found: {method}"},
        }
        await respond(send, 200, encode(error), "application/json")
        return
    if await fault(send, mode, message):
        return
    if mode == "slow":
        await asyncio.sleep(30)
        await respond(send, 200, encode(call_result(request_id, message.get("params") or {})), "application/json")
        return
    # cut-stream, cut-stream-never: prime the stream, then close it without the answer.
    PENDING[session or ""] = (request_id, message.get("params") or {})
    retry = b"999999999" if mode == "cut-stream-long-retry" else b"300"
    await sse(send, [b"id: e1\nretry: " + retry + b"\ndata: \n\n"])


async def get(headers: dict[str, str], send: Any) -> None:
    last = headers.get("last-event-id")
    record(f"GET last-event-id={last or '-'}")
    if last is None:
        await respond(send, 405, b"No standalone stream\n", "text/plain", {"allow": "POST, DELETE"})
        return
    pending = PENDING.get(headers.get("mcp-session-id") or "")
    if last != "e1" or pending is None:
        await respond(send, 404, b"Unknown stream\n", "text/plain")
        return
    if ARGS.mode == "cut-stream-never":
        await sse(send, [])
        return
    request_id, params = pending
    await sse(send, [b"id: e2\nevent: message\ndata: " + encode(call_result(request_id, params)) + b"\n\n"])


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    if scope["method"] == "POST":
        await post(headers, receive, send)
    elif scope["method"] == "GET":
        await get(headers, send)
    elif scope["method"] == "DELETE":
        record("DELETE")
        await respond(send, 200, b"", "text/plain")
    else:
        await respond(send, 405, b"", "text/plain")


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=ARGS.port, log_level="warning", lifespan="off")
