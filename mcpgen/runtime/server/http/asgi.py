"""ASGI plumbing: reading a request (headers, a bounded body, the disconnect) and writing plain,
JSON and SSE responses. Knows HTTP, not MCP (but for the JSON-RPC error -> status map)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, TypeVar

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject
from ...transports.content_coding import ContentDecoder

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_ERROR_STATUS = {
    jsonrpc.METHOD_NOT_FOUND: 404,
    jsonrpc.HEADER_MISMATCH: 400,
    jsonrpc.MISSING_CLIENT_CAPABILITY: 400,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
    jsonrpc.INVALID_PARAMS: 400,
}
# Set (True) in an `http.response.start` whose whole body the app sends next without waiting on
# anything (json_body): serve_http's protocol then writes head and body once the body is
# sent, rather than at the end of the loop's step. Other ASGI servers ignore the key.
WHOLE_KEY = "mcpgen.whole_response"
K = TypeVar("K")
V = TypeVar("V")
SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no"}


def headers_of(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def header_list(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


def declared_length(headers: dict[str, str]) -> int:
    try:
        return int(headers.get("content-length", "0"))
    except ValueError:
        return 0  # h11 refuses a malformed Content-Length before we see it


# Header values whose verdict is remembered (Accept, Content-Type): a client sends the same few
# on every request. Bounded: at most _MEMO_MAX values of at most _MEMO_CHARS each are kept, and a
# client sending ever new ones only empties the memo again (each is then judged afresh).
_MEMO_MAX = 64
_MEMO_CHARS = 256
_accepts_memo: dict[str, tuple[bool, bool]] = {}
_is_json_memo: dict[str, bool] = {}


def remember(memo: dict[K, V], key: K, value: V, size: int) -> None:
    """`memo[key] = value` within the bounds above, `size` the characters of the header values
    in `key` (never more than _MEMO_MAX keys, none of more than _MEMO_CHARS)."""
    if size <= _MEMO_CHARS:
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[key] = value


def accepts(accept: str) -> tuple[bool, bool]:
    """(takes JSON, takes SSE) by an Accept header, wildcards included."""
    found = _accepts_memo.get(accept)
    if found is None:
        found = _accepts(accept)
        remember(_accepts_memo, accept, found, len(accept))
    return found


def _accepts(accept: str) -> tuple[bool, bool]:
    types = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    anything = "*/*" in types
    return (
        anything or "application/json" in types or "application/*" in types,
        anything or "text/event-stream" in types or "text/*" in types,
    )


def is_json(content_type: str) -> bool:
    found = _is_json_memo.get(content_type)
    if found is None:
        found = content_type.split(";")[0].strip().lower() == "application/json"
        remember(_is_json_memo, content_type, found, len(content_type))
    return found


def status_of(message: JSONObject) -> int:
    """The HTTP status a JSON-RPC answer goes out with (200 but for a few errors)."""
    error = message.get("error")
    if isinstance(error, dict):
        return _ERROR_STATUS.get(error.get("code"), 200)  # type: ignore[arg-type]
    return 200


async def read_body(receive: Receive, limit: int, decoder: ContentDecoder | None = None) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` bytes (the rest is never read). With a
    `decoder` (a Content-Encoding), both what arrives and what it decodes to count against
    `limit`, a bounded piece at a time; ProtocolError for a corrupt or truncated coding."""
    chunks: list[bytes] = []
    size = raw = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        if decoder is None:
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        else:
            raw += len(chunk)
            if raw > limit:
                return None
            for piece in decoder.pieces(chunk):
                size += len(piece)
                if size > limit:
                    return None
                chunks.append(piece)
        if not message.get("more_body"):
            if decoder is not None:
                decoder.finish()
            return b"".join(chunks)


async def wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def too_large(send: Send) -> None:
    # The unread rest of the body makes the connection useless: close it after this answer.
    await json_reply(
        send,
        413,
        jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Request body too large"),
        {"connection": "close"},
    )


async def start_sse(send: Send, extra: dict[str, str]) -> None:
    """The head of an SSE response (unbuffered by proxies: `x-accel-buffering: no`)."""
    await send({"type": "http.response.start", "status": 200, "headers": header_list(SSE_HEADERS | extra)})


def sse_event(event_id: str | None, payload: bytes) -> bytes:
    """One SSE `message` event carrying a JSON-RPC message (with its id, when it has one)."""
    head = b"id: " + event_id.encode() + b"\n" if event_id is not None else b""
    return head + b"event: message\ndata: " + payload + b"\n\n"


async def plain(send: Send, status: int, text: str, extra: dict[str, str] | None = None) -> None:
    body = text.encode()
    headers = {"content-type": "text/plain; charset=utf-8", "content-length": str(len(body)), **(extra or {})}
    await send({"type": "http.response.start", "status": status, "headers": header_list(headers)})
    await send({"type": "http.response.body", "body": body})


async def json_reply(send: Send, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
    await json_body(send, status, jsonrpc.encode(payload), extra)


async def json_body(send: Send, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if extra:
        headers += header_list(extra)
    # (The body follows at once: WHOLE_KEY.)
    await send({"type": "http.response.start", "status": status, "headers": headers, WHOLE_KEY: True})
    await send({"type": "http.response.body", "body": body})


async def refuse(send: Send, status: int, request_id: Any, text: str, extra: dict[str, str] | None = None) -> None:
    """A JSON-RPC -32600 (invalid request) error body with this HTTP status."""
    await json_reply(send, status, jsonrpc.error_response(request_id, jsonrpc.INVALID_REQUEST, text), extra)
