"""The rows of a generated package's tables (a client's `_catalog.py`, a server's
`_generated/tables.py`) and how a tool's result travels, `ResultMode`.

They are plain data a reviewer reads (`ToolRow(args="AddNumbersArgs", result=None,
mode=ResultMode.CONTENT)`): named tuples, so that reading one costs what a tuple costs, and
`support/` re-exports them for generated code.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class ResultMode(enum.Enum):
    """How a tool's result travels, and what its typed method returns (or its handler sends)."""

    CONTENT = "content"  # no outputSchema: content blocks (a ToolResult; a handler's ToolOutput)
    MODEL = "model"  # an object result model, sent as structuredContent
    WRAPPED_MODEL = "wrapped_model"  # the same, inside the {"result": ...} wrapper its schema declares
    ROOT = "root"  # a non-object result: bare in the 2026-07-28 era, {"result": ...} before it
    WRAPPED_ROOT = "wrapped_root"  # a non-object result inside the wrapper its schema declares

    @property
    def wrapped(self) -> bool:
        """The advertised result is `{"result": X}`: the caller gets X."""
        return self in (ResultMode.WRAPPED_MODEL, ResultMode.WRAPPED_ROOT)

    @property
    def is_root(self) -> bool:
        """The result model is a RootModel: the caller gets its root."""
        return self in (ResultMode.ROOT, ResultMode.WRAPPED_ROOT)


class ToolRow(NamedTuple):
    """A client's tool: its Args model, its Result model (None: no outputSchema), its result mode."""

    args: str
    result: str | None
    mode: ResultMode


class HandledTool(NamedTuple):
    """A server's tool: the handler method, its Args and Result models, how its result is sent."""

    method: str
    args: str
    result: str | None
    mode: ResultMode


class HandledItem(NamedTuple):
    """A server's prompt or resource template: the handler method and its arguments model."""

    method: str
    model: str
