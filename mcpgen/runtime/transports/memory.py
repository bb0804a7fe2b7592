"""An in-process transport: a client session and a server connection in one event loop.

No subprocess and no socket, but the messages still travel as encoded JSON, so a handler never
shares a mutable object with the client and anything that would not survive the wire fails here
too. Both eras work unchanged: the era is decided by what the client sends, not by the pipe.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from ..core import jsonrpc
from ..core.errors import ConnectionClosed
from ..core.jsonrpc import JSONObject
from ..core.transport import Transport


class MemoryTransport:
    """One end of a pair made by `memory_pair()`; sending puts bytes in the other end's inbox."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.peer: MemoryTransport | None = None
        self.closed = False

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        peer = self.peer
        if self.closed or peer is None or peer.closed:
            raise ConnectionClosed(self.describe_close())
        peer.inbox.put_nowait(jsonrpc.encode(message))

    async def receive(self) -> bytes | None:
        return await self.inbox.get()

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.inbox.put_nowait(None)
        if self.peer is not None and not self.peer.closed:
            self.peer.inbox.put_nowait(None)

    def describe_close(self) -> str:
        return f"the in-memory {self.name} closed"


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """(client end, server end), wired to each other."""
    client, server = MemoryTransport("client"), MemoryTransport("server")
    client.peer, server.peer = server, client
    return client, server


class _ServedSession(Protocol):
    def start(self) -> None: ...

    async def close(self, reason: str = ...) -> None: ...


class _Connection(Protocol):
    @property
    def session(self) -> _ServedSession: ...


class MemoryServable(Protocol):
    """Anything that serves a transport the way `runtime.server.Server` does."""

    def connection(self, transport: Transport) -> _Connection: ...


class MemoryLink:
    """A server connection running on the server end of a memory pair; `client` is the other end."""

    def __init__(self, server: MemoryServable) -> None:
        self.client, server_end = memory_pair()
        self._connection = server.connection(server_end)
        self._connection.session.start()

    async def close(self) -> None:
        await self.client.close()
        await self._connection.session.close("the in-memory client closed")
