"""Server-sent events: an incremental parser over text lines (WHATWG rules, minus what MCP never uses)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from ..core.errors import MessageTooLarge
from .guard import DEFAULT_MAX_MESSAGE_BYTES


@dataclass
class Event:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None  # milliseconds


# A `retry` longer than this (over a day in milliseconds) is not a reconnection time: ignored.
_RETRY_DIGITS = 9
# An event id's one use is to be sent back as the Last-Event-ID header: one that could not be (a
# NUL, the spec's own exclusion; any other control or non-ASCII character, which an HTTP client
# refuses to send; a long one) is not taken, and the last one taken stays.
_SENDABLE_ID = re.compile(r"[ -~]{0,256}")


async def parse(lines: AsyncIterator[str], max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> AsyncIterator[Event]:
    """Yield one Event per blank-line-terminated block; comment lines (keep-alives) are skipped.

    An event whose data passes max_bytes (characters, counted as they arrive) raises MessageTooLarge.
    """
    event = "message"
    data: list[str] = []
    size = 0
    last_id: str | None = None
    retry: int | None = None
    pending = False
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if pending:
                yield Event(event, "\n".join(data), last_id, retry)
            event, data, retry, pending, size = "message", [], None, False, 0
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            size += len(value) + 1
            if size > max_bytes:
                raise MessageTooLarge(f"the server sent an SSE event over the {max_bytes}-byte limit")
            data.append(value)
            pending = True
        elif name == "event":
            event = value or "message"
            pending = True
        elif name == "id":
            if _SENDABLE_ID.fullmatch(value):
                last_id = value
            pending = True
        elif name == "retry" and value.isascii() and value.isdigit() and len(value) <= _RETRY_DIGITS:
            # ASCII digits only, as the SSE spec says ("²" is a digit to str.isdigit and no
            # number to int()), and few of them (int() of thousands of digits refuses or crawls).
            retry = int(value)
            pending = True
    if pending:
        yield Event(event, "\n".join(data), last_id, retry)
