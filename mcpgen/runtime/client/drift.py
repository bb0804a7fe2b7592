"""Schema drift: does a live server still advertise the tool schemas a client was generated from?

The generator records `schema_hash(tool)` per tool; a generated client compares those with
one `tools/list` after connecting. Standard library only (this module is vendored too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import McpError

# Keywords that only document: a changed description is not drift a typed call could trip over.
_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})
# Keywords whose object keys are names (a property may well be called "description").
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _without_annotations(node: Any, names: bool = False) -> Any:
    if isinstance(node, list):
        return [_without_annotations(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {k: _without_annotations(v) for k, v in node.items()}
    return {k: _without_annotations(v, k in _NAME_MAPS) for k, v in node.items() if k not in _ANNOTATIONS}


def schema_hash(tool: Mapping[str, Any]) -> str:
    """A hash of what a typed call depends on: the input and output schemas, minus their prose."""
    doc = _without_annotations({"inputSchema": tool.get("inputSchema"), "outputSchema": tool.get("outputSchema")})
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Drift:
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        # New tools alone break no typed call (a client may cover a subset on purpose);
        # they are named when something else drifted.
        return bool(self.changed or self.removed)

    def describe(self) -> str:
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (("changed", self.changed), ("added", self.added), ("removed", self.removed))
            if names
        ]
        return "the server's tools differ from the ones this client was generated from (" + "; ".join(parts) + ")"


class SchemaDriftError(McpError):
    """Raised on connect in drift="strict" mode; `.drift` names the tools."""

    def __init__(self, drift: Drift) -> None:
        super().__init__(drift.describe())
        self.drift = drift


class SchemaDriftWarning(UserWarning):
    """Issued on connect in drift="warn" mode (the default)."""


def compare_tools(expected: Mapping[str, str], live: Iterable[Mapping[str, Any]]) -> Drift:
    seen = {str(t.get("name")): schema_hash(t) for t in live}
    return Drift(
        changed=tuple(sorted(n for n in expected.keys() & seen.keys() if expected[n] != seen[n])),
        added=tuple(sorted(seen.keys() - expected.keys())),
        removed=tuple(sorted(expected.keys() - seen.keys())),
    )
