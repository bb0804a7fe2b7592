"""Server-sent events: an incremental parser over text lines (WHATWG rules, minus what MCP never uses)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass


@dataclass
class Event:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None  # milliseconds


async def parse(lines: AsyncIterator[str]) -> AsyncIterator[Event]:
    """Yield one Event per blank-line-terminated block; comment lines (keep-alives) are skipped."""
    event = "message"
    data: list[str] = []
    last_id: str | None = None
    retry: int | None = None
    pending = False
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if pending:
                yield Event(event, "\n".join(data), last_id, retry)
            event, data, retry, pending = "message", [], None, False
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
            pending = True
        elif name == "event":
            event = value or "message"
            pending = True
        elif name == "id":
            if "\0" not in value:
                last_id = value
            pending = True
        elif name == "retry" and value.isdigit():
            retry = int(value)
            pending = True
    if pending:
        yield Event(event, "\n".join(data), last_id, retry)
