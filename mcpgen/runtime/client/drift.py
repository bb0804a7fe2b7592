"""Schema drift: does a live server still advertise the tool schemas a client was generated from?

The generator records `schema_hash(tool)` per tool; a generated client compares those with
one `tools/list` after connecting. Standard library only (this module is vendored too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.jsonrpc import is_array, is_object
from .tool_security import SecurityChange, security_changes, without_prose


def schema_hash(tool: Mapping[str, Any]) -> str:
    """A hash of what a typed call depends on: the input and output schemas, minus their prose."""
    # A changed description is not drift a typed call could trip over (it is security drift).
    doc = without_prose({"inputSchema": tool.get("inputSchema"), "outputSchema": tool.get("outputSchema")})
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Drift:
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    # What a tool now means, as `mcpgen diff` classes it: a changed description (where prompt
    # injection hides), a flipped behaviour hint, a new tool that may write.
    security: tuple[SecurityChange, ...] = ()
    # For a changed tool whose generated-from definition is known: the first pointer that differs.
    changed_at: Mapping[str, str] = field(default_factory=dict[str, str])

    @property
    def breaking(self) -> bool:
        return bool(self.changed or self.removed)

    def __bool__(self) -> bool:
        # New tools alone break no typed call (a client may cover a subset on purpose);
        # they are named when something else drifted, and a new tool that writes is security.
        return self.breaking or bool(self.security)

    def describe(self) -> str:
        changed = tuple(f"{n} (at {self.changed_at[n]})" if n in self.changed_at else n for n in self.changed)
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (("changed", changed), ("added", self.added), ("removed", self.removed))
            if names
        ]
        if self.security:
            parts.append("security: " + ", ".join(c.describe() for c in self.security))
        return "the server's tools differ from the ones this client was generated from (" + "; ".join(parts) + ")"


def compare_tools(
    expected: Mapping[str, str],
    live: Iterable[Mapping[str, Any]],
    expected_tools: Iterable[Mapping[str, Any]] | None = None,
) -> Drift:
    """Schema hashes against the live tools; with `expected_tools` (the tools the client was
    generated from, verbatim), the security-relevant changes too, and where each changed tool's
    schemas first differ."""
    live = list(live)
    seen = {str(t.get("name")): schema_hash(t) for t in live}
    changed = tuple(sorted(n for n in expected.keys() & seen.keys() if expected[n] != seen[n]))
    was = {str(t.get("name")): t for t in expected_tools or ()}
    now = {str(t.get("name")): t for t in live}
    return Drift(
        changed=changed,
        added=tuple(sorted(seen.keys() - expected.keys())),
        removed=tuple(sorted(expected.keys() - seen.keys())),
        security=tuple(security_changes(was.values(), live)) if expected_tools is not None else (),
        changed_at={n: _first_difference(_typed_view(was[n]), _typed_view(now[n]), "") for n in changed if n in was},
    )


def _typed_view(tool: Mapping[str, Any]) -> Any:
    return without_prose({"inputSchema": tool.get("inputSchema"), "outputSchema": tool.get("outputSchema")})


def _first_difference(old: Any, new: Any, where: str) -> str:
    """The JSON pointer of the first place two values differ (keys in sorted order)."""
    if is_object(old) and is_object(new):
        for key in sorted(old.keys() | new.keys()):
            if key not in old or key not in new or old[key] != new[key]:
                child = f"{where}/{key.replace('~', '~0').replace('/', '~1')}"
                return _first_difference(old.get(key), new.get(key), child) if key in old and key in new else child
    if is_array(old) and is_array(new) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}/{i}")
    return where or "/"
