"""The Transport port: what a session (`session.py`, its owner) asks of the bytes beneath it, one
framed message in, one out. The transports (`runtime/transports/`, the HTTP server's in
`runtime/server/http/`) implement it."""

from __future__ import annotations

from typing import Protocol

from .jsonrpc import JSONObject


class Transport(Protocol):
    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        """Deliver one message (or a batch). Raises ConnectionClosed when the peer is gone."""

    async def receive(self) -> bytes | None:
        """The next raw message, or None once the peer has closed."""

    async def close(self) -> None:
        """Release everything; safe to call twice."""
        ...

    def describe_close(self) -> str:
        """Why the transport ended, for error messages (exit code, last stderr line...)."""
        ...


class EraAwareTransport(Transport, Protocol):
    """A transport whose framing depends on the agreed era (Streamable HTTP, legacy HTTP+SSE): the
    version travels in a header, cancellation differs, and tools' Mcp-Param-* headers are sent."""

    protocol_version: str
    modern: bool
    param_headers: dict[str, dict[str, str]]
