"""Security-relevant changes between two tool lists: what a server changed about what a tool *means*.

A typed call does not break when a description changes or a tool becomes destructive, yet both
matter: descriptions are read by models (prompt injection hides there) and the hints tell a
host what a tool may do. Classified here, in the runtime, once: the drift check on connect and
`mcpgen diff` both take their security class from `security_changes`, and their renames from
`renames`, so they cannot disagree. The rule for names: every name NEW has and OLD had not is a
new tool to a host (approvals go by name), so one that may write is a security change whether or
not it is a rename; a rename also carries every security difference of the pair (hints,
descriptions). Standard library only (this module is vendored too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ..core.jsonrpc import is_array, is_object

# The behaviour hints of MCP tool annotations, with the spec's defaults for a tool that does not
# set them (schema.ts ToolAnnotations: readOnlyHint false, destructiveHint true, openWorldHint
# true). A hint left out and the same hint set to its default mean the same: not a flip.
HINT_DEFAULTS: Mapping[str, bool] = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}

# Kinds of security change, as `mcpgen diff` and the drift check name them.
DESCRIPTION_CHANGED = "description_changed"
HINT_FLIPPED = "hint_flipped"
WRITING_TOOL_ADDED = "writing_tool_added"
_MAX_DEPTH = 64  # schema nesting walked for descriptions (deeper is compared as a whole)
# Keywords whose object keys are names (a property may well be called "description").
NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# Keywords that only document: prose, which a typed call cannot trip over.
PROSE = frozenset({"description", "title", "examples", "$comment"})


@dataclass(frozen=True)
class SecurityChange:
    tool: str
    kind: str  # DESCRIPTION_CHANGED, HINT_FLIPPED or WRITING_TOOL_ADDED
    where: str  # JSON pointer inside the tool
    detail: str

    def describe(self) -> str:
        return f"{self.tool}{self.where}: {self.detail}"


def hints(tool: Mapping[str, Any]) -> dict[str, bool]:
    """The tool's behaviour hints, defaults filled in (a non-boolean value counts as absent)."""
    annotations = tool.get("annotations")
    given: Mapping[str, Any] = {}
    if isinstance(annotations, Mapping):
        given = cast("Mapping[str, Any]", annotations)  # (checked just above; a JSON object)
    return {k: given[k] if isinstance(given.get(k), bool) else default for k, default in HINT_DEFAULTS.items()}


def may_write(tool: Mapping[str, Any]) -> bool:
    """True unless the tool says it is read-only."""
    return not hints(tool)["readOnlyHint"]


def without_prose(node: Any, names: bool = False) -> Any:
    """A schema minus its documentation keywords (the keys of a name map are kept: they are names)."""
    if is_array(node):
        return [without_prose(v) for v in node]
    if not is_object(node):
        return node
    if names:
        return {k: without_prose(v) for k, v in node.items()}
    return {k: without_prose(v, k in NAME_MAPS) for k, v in node.items() if k not in PROSE}


def by_name(tools: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(t.get("name")): t for t in tools}


def renames(olds: Mapping[str, Mapping[str, Any]], news: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Old name -> new name for each removed tool whose input schema (minus prose) reappears under
    an added name: a caller's arguments still fit. First match in name order; each added name once."""
    out: dict[str, str] = {}
    added = sorted(news.keys() - olds.keys())
    for old_name in sorted(olds.keys() - news.keys()):
        wanted = _canon(without_prose(olds[old_name].get("inputSchema")))
        for new_name in added:
            if new_name not in out.values() and _canon(without_prose(news[new_name].get("inputSchema"))) == wanted:
                out[old_name] = new_name
                break
    return out


def security_changes(old: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]]) -> list[SecurityChange]:
    """Every security-relevant change from `old` to `new` tool objects, in a stable order: the one
    classification (see the module doc)."""
    olds, news = by_name(old), by_name(new)
    renamed_from = {new_name: old_name for old_name, new_name in renames(olds, news).items()}
    out: list[SecurityChange] = []
    for name in sorted(news.keys() - olds.keys()):
        origin = renamed_from.get(name)
        if may_write(news[name]):
            how = "new tool" if origin is None else f"new name (renamed from {origin!r}) of a tool"
            out.append(SecurityChange(name, WRITING_TOOL_ADDED, "", f"{how} that may write (readOnlyHint is not true)"))
        if origin is not None:
            out += tool_security_changes(name, olds[origin], news[name])
    for name in sorted(olds.keys() & news.keys()):
        out += tool_security_changes(name, olds[name], news[name])
    return out


def tool_security_changes(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[SecurityChange]:
    out: list[SecurityChange] = []
    before, after = hints(old), hints(new)
    for hint in HINT_DEFAULTS:
        if before[hint] != after[hint]:
            detail = f"{hint} {str(before[hint]).lower()} -> {str(after[hint]).lower()}"
            out.append(SecurityChange(name, HINT_FLIPPED, f"/annotations/{hint}", detail))
    if old.get("description") != new.get("description"):
        detail = f"tool description changed ({text_change(old.get('description'), new.get('description'))})"
        out.append(SecurityChange(name, DESCRIPTION_CHANGED, "/description", detail))
    for key in ("inputSchema", "outputSchema"):
        for where, was, now in _description_changes(old.get(key), new.get(key), f"/{key}", 0):
            detail = f"argument or result description changed ({text_change(was, now)})"
            out.append(SecurityChange(name, DESCRIPTION_CHANGED, where, detail))
    return out


_SHOWN = 40  # characters of a changed text shown on each side of where it changed


def text_change(old: Any, new: Any) -> str:
    """Where two texts first differ, shown as `...before... -> ...after...` (bounded), so that a
    warning says what changed (a path of the machine it was generated on, an injected sentence)."""
    if not isinstance(old, str) or not isinstance(new, str):
        return f"{json.dumps(old)[:_SHOWN]} -> {json.dumps(new)[:_SHOWN]}"
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    end = 0  # length of the common ending, not overlapping the common start
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    lead = max(0, start - 10)

    def shown(text: str) -> str:
        part = text[lead : len(text) - end][: _SHOWN + 10]
        return ("..." if lead else "") + json.dumps(part) + ("..." if lead + len(part) < len(text) else "")

    return f"{shown(old)} -> {shown(new)}"


def _description_changes(
    old: Any, new: Any, where: str, depth: int, names: bool = False
) -> Iterator[tuple[str, Any, Any]]:
    """(pointer, old text, new text) of every `description` that differs between two schemas,
    walked side by side (past _MAX_DEPTH: the pointer and the two subtrees)."""
    if not is_object(old) or not is_object(new):
        if is_array(old) and is_array(new) and depth < _MAX_DEPTH:
            for i, (a, b) in enumerate(zip(old, new, strict=False)):
                yield from _description_changes(a, b, f"{where}/{i}", depth + 1)
        return
    if depth >= _MAX_DEPTH:
        if _canon(old) != _canon(new):
            yield where, _canon(old), _canon(new)
        return
    if not names and old.get("description") != new.get("description"):
        yield f"{where}/description", old.get("description"), new.get("description")
    for key in sorted(old.keys() & new.keys()):
        if not names and key == "description":
            continue
        child = f"{where}/{key.replace('~', '~0').replace('/', '~1')}"
        yield from _description_changes(old[key], new[key], child, depth + 1, names=not names and key in NAME_MAPS)
    for key in sorted(new.keys() - old.keys()):  # a new argument's description is new text too
        if names and is_object(new[key]) and "description" in new[key]:
            yield f"{where}/{key.replace('~', '~0').replace('/', '~1')}/description", None, new[key]["description"]


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
