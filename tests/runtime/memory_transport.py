"""An in-process transport pair for testing the session layer alone."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.core.errors import ConnectionClosed


class MemoryTransport:
    def __init__(self) -> None:
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.peer: MemoryTransport | None = None
        self.sent: list[Any] = []
        self.closed = False

    async def send(self, message: Any) -> None:
        if self.closed or self.peer is None or self.peer.closed:
            raise ConnectionClosed("memory peer closed")
        self.sent.append(message)
        await self.peer.inbox.put(jsonrpc.encode(message))

    async def receive(self) -> bytes | None:
        return await self.inbox.get()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.inbox.put(None)
            if self.peer is not None:
                await self.peer.inbox.put(None)

    def describe_close(self) -> str:
        return "memory peer closed"


def pair() -> tuple[MemoryTransport, MemoryTransport]:
    a, b = MemoryTransport(), MemoryTransport()
    a.peer, b.peer = b, a
    return a, b
