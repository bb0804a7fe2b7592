"""One parse per request: a POST body is read once, its content-coding undone against the body
cap (transports/content_coding.py, the decoder every HTTP body goes through), and parsed once by
`jsonrpc.decode`, with its one depth and size limit. The resource-server layer
(server/auth/resource.py) and the app both call `parse_request`, which keeps its answer on the
ASGI scope, so they judge the same message: a request cannot look like one thing to the scope
check and another to the server. What cannot be read or parsed is refused by whichever reads it
first (`refuse_unparsed`): the auth layer never passes on a body it could not parse."""

from __future__ import annotations

from typing import Any

from ...core import jsonrpc
from ...core.errors import ProtocolError
from ...transports.content_coding import ACCEPT_ENCODING, ContentDecoder
from .asgi import Receive, Scope, Send, json_reply, read_body, refuse, too_large

PARSED_KEY = "mcpgen.parsed_request"


class Parsed:
    """The body's JSON (`ok`), or why there is none: 'too_large', 'coding' (a content-coding
    refused: stacked, unknown or corrupt; `reason` says which) or 'parse' (not JSON). (A plain
    class: a frozen dataclass's __init__ costs a request a tenth of what parsing it does.)"""

    __slots__ = ("ok", "message", "problem", "reason")

    def __init__(self, ok: bool, message: Any = None, problem: str = "", reason: str = "") -> None:
        self.ok = ok
        self.message = message
        self.problem = problem
        self.reason = reason


_TOO_LARGE = Parsed(False, problem="too_large")
_NOT_JSON = Parsed(False, problem="parse")


async def parse_request(scope: Scope, receive: Receive, max_bytes: int, content_encoding: str | None) -> Parsed:
    """The request's body parsed, once per request: the first caller reads and parses it, every
    later one gets the same `Parsed` (the body is consumed by then)."""
    found: Parsed | None = scope.get(PARSED_KEY)
    if found is not None:
        return found
    parsed: Parsed
    try:
        # (No decoder without a Content-Encoding: the hot path reads and parses, nothing more.)
        decoder = ContentDecoder.for_header(content_encoding) if content_encoding else None
        body = await read_body(receive, max_bytes, decoder)
    except ProtocolError as exc:
        parsed = Parsed(False, problem="coding", reason=str(exc))
    else:
        if body is None:
            parsed = _TOO_LARGE
        else:
            try:
                parsed = Parsed(True, jsonrpc.decode(body))
            except (ValueError, UnicodeDecodeError):
                parsed = _NOT_JSON
    scope[PARSED_KEY] = parsed
    return parsed


def content_encoding_of(scope: Scope) -> str | None:
    """The request's Content-Encoding (several headers joined, as HTTP says they combine)."""
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == b"content-encoding"]
    return ", ".join(values) if values else None


async def refuse_unparsed(send: Send, parsed: Parsed) -> None:
    """The answer to a body that could not be read or parsed (one place for both layers)."""
    if parsed.problem == "too_large":
        await too_large(send)
    elif parsed.problem == "coding":
        await refuse(send, 415, None, f"Unsupported Media Type: {parsed.reason}", {"accept-encoding": ACCEPT_ENCODING})
    else:
        await json_reply(send, 400, jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, "Parse error"))
