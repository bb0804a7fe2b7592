"""Exceptions raised by the runtime.

Local failures (timeouts, a closed connection) and errors sent by the peer are
different types, so a caller never mistakes one for the other.
"""

from __future__ import annotations

from typing import Any


class McpError(Exception):
    """Base class of every error the runtime raises."""


class RpcError(McpError):
    """A JSON-RPC error response sent by the peer (or one we send back)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class RequestTimeout(McpError):
    """No response arrived in time. Raised locally; the peer was sent a cancellation."""


class ConnectionClosed(McpError):
    """The transport is gone (the server exited, the stream closed, or we closed it)."""


class ProtocolError(McpError):
    """The peer broke the protocol, or no protocol version could be agreed."""


class SessionExpired(ConnectionClosed):
    """The server forgot our handshake-era session (HTTP 404): initialize again."""


class MessageTooLarge(ProtocolError):
    """The peer sent a message (an HTTP body, an SSE line or event) over the size limit."""


class CrossOriginUrl(ProtocolError):
    """The server named a URL on another origin, where the connection's headers must not go."""


class InvalidArguments(McpError, ValueError):
    """A typed call's arguments break the tool's schema; nothing was sent.

    `problems` holds one line per problem, naming each value by the Python keyword you typed
    (`message_type`, `items[0].entity_type`); str() is those lines.
    """

    def __init__(self, tool: str, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.tool = tool
        self.problems = problems
