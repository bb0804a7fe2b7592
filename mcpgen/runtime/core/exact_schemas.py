"""Which schema each generated Args/Result model is checked against, read from the package's own
catalog (a client's `_catalog.py`, a server's `_generated/tables.py`).

Each schema appears once in generated code: in the tool's JSON text. The models' exact check
(validation.py) finds a class's schema through the tool table (`args=` / `result=` name the
classes, `mode` says whether the result travels wrapped) and the tool's JSON text, both at the
same position, since the generator writes both in plan order. Nothing is parsed before a
model's first check; a tool's text is parsed at most once, and only that tool's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .jsonrpc import is_object
from .tables import ResultMode

# The key a wrapped result's schema declares its value under ({"result": X}).
WRAP_KEY = "result"


class ToolTableRow(Protocol):
    """What both tool rows (a client's ToolRow, a server's HandledTool) say of a tool's models."""

    @property
    def args(self) -> str: ...
    @property
    def result(self) -> str | None: ...
    @property
    def mode(self) -> ResultMode: ...


class ExactSchemas:
    """Class name -> (its schema as JSON text, the key a wrapped result sits under or None)."""

    def __init__(self, tools_json: Sequence[str], table: Mapping[str, ToolTableRow]) -> None:
        self._tools_json = tools_json
        self._table = table
        self._where: dict[str, tuple[int, str, str, str | None]] = {}  # class -> position, wire, key, wrap
        self._found: dict[str, tuple[str, str | None]] = {}

    def get(self, class_name: str) -> tuple[str, str | None] | None:
        """`class_name`'s schema JSON text and wrap key; None when it is no tool's Args/Result."""
        found = self._found.get(class_name)
        if found is not None:
            return found
        if not self._where:
            self._where.update(self._locate())
        where = self._where.get(class_name)
        if where is None:
            return None
        position, wire, key, wrap = where
        schema = self._tool(position, wire).get(key)
        if not isinstance(schema, (dict, bool)):
            return None  # (only a table edited out of step with its texts)
        # Compact JSON, as the generator wrote the schemas: equal schemas share one compiled check.
        text = json.dumps(schema, ensure_ascii=True, separators=(",", ":"), allow_nan=True)
        found = self._found[class_name] = (text, wrap)
        return found

    def _locate(self) -> dict[str, tuple[int, str, str, str | None]]:
        where: dict[str, tuple[int, str, str, str | None]] = {}
        for position, (wire, row) in enumerate(self._table.items()):
            where[row.args] = (position, wire, "inputSchema", None)
            if row.result is not None:
                where[row.result] = (position, wire, "outputSchema", WRAP_KEY if row.mode.wrapped else None)
        return where

    def _tool(self, position: int, wire: str) -> dict[str, Any]:
        """Tool `wire`'s definition: the text at its table position, or (a table edited out of
        step with its texts) the text that names it."""
        texts = self._tools_json
        if position < len(texts):
            tool = json.loads(texts[position])
            if is_object(tool) and tool.get("name") == wire:
                return tool
        for text in texts:
            tool = json.loads(text)
            if is_object(tool) and tool.get("name") == wire:
                return tool
        return {}


# What a models module without a catalog checks against: nothing.
NO_SCHEMAS = ExactSchemas((), {})
