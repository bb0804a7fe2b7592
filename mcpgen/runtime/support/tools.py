"""What a code-mode tool module and its package's index import: the few names they need, from
modules that load no session, transport or event loop (one tool's import stays cheap)."""

from ..client.tool_index import ToolIndex, ToolInfo
from ..core.errors import (
    ConnectionClosed,
    InvalidArguments,
    McpError,
    RequestTimeout,
    RpcError,
    ToolError,
    ToolOutputError,
)
from ..core.results import UNSET, ToolResult, Unset

__all__ = [
    "ConnectionClosed",
    "InvalidArguments",
    "McpError",
    "RequestTimeout",
    "RpcError",
    "ToolError",
    "ToolIndex",
    "ToolInfo",
    "ToolOutputError",
    "ToolResult",
    "UNSET",
    "Unset",
]
