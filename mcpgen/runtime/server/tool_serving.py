"""tools/call's guard around a handler (and `error_result`, the tool error it answers with),
and tools/list cursors (opaque to clients, read back only here)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..core import jsonrpc
from ..core.errors import InputRequired, RpcError
from ..core.jsonrpc import JSONObject

if TYPE_CHECKING:
    from .context import RequestContext

ToolHandler = Callable[[JSONObject, "RequestContext"], Awaitable[JSONObject]]
log = logging.getLogger("mcpgen.runtime.server")

# The decoded form of a tools/list cursor; the client only ever sees it base64url-encoded.
_TOOLS_CURSOR = re.compile(r"tools:([1-9][0-9]{0,8})")


def tools_cursor(offset: int) -> str:
    # Opaque to clients (the spec says so); only this module reads it back.
    return base64.urlsafe_b64encode(f"tools:{offset}".encode()).decode().rstrip("=")


def tools_cursor_offset(cursor: Any, count: int) -> int:
    """Where a tools/list page starts: 0 without a cursor, else the offset a valid cursor names."""
    if cursor is None:
        return 0
    invalid = RpcError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    if not isinstance(cursor, str) or len(cursor) > 32:
        raise invalid
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise invalid from None
    match = _TOOLS_CURSOR.fullmatch(decoded)
    # Only cursors this server could have issued: inside the list, and in their canonical form.
    if match is None or int(match.group(1)) >= count or tools_cursor(int(match.group(1))) != cursor:
        raise invalid
    return int(match.group(1))


async def run_tool(handler: ToolHandler, name: str, arguments: JSONObject, context: RequestContext) -> JSONObject:
    """A tool handler's answer; what it raises becomes a tool execution error, never a leak."""
    try:
        return await handler(arguments, context)
    except (RpcError, asyncio.CancelledError, InputRequired):
        raise
    except Exception as exc:
        # Never leak a traceback to the client; the server log keeps it (at ERROR, shown by
        # default), with the tool and the request id to find the call it answered.
        log.exception("tool %r failed (request id %r)", name, context.request_id)
        return error_result(f"Tool {name!r} failed: {type(exc).__name__}")


def error_result(message: str) -> JSONObject:
    """A tool execution error: the model reads it, the protocol call still succeeds."""
    return {"content": [{"type": "text", "text": message}], "isError": True}
