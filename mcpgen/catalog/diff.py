"""Classify every difference between two tool lists as breaking or compatible, and flag security.

Breaking means: a caller built against OLD may fail against NEW. For an input schema that
is anything NEW accepts less of (narrowed); for an output schema, anything NEW may send
that OLD did not promise (widened), since a typed client validates what it receives.
Security means: what a tool tells a model or a host changed (a description, where prompt
injection hides; a flipped behaviour hint; a new name that may write, renamed or not). That
classification, and which removed tool was renamed, are the runtime's
(`runtime/client/tool_security.py`), so the drift check on connect reports the same classes.
Plain functions over plain JSON data; no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..runtime.client.tool_security import (
    HINT_DEFAULTS,
    HINT_FLIPPED,
    WRITING_TOOL_ADDED,
    SecurityChange,
    by_name,
    renames,
    security_changes,
)
from ..wording import counted

# (keyword, True when a larger value accepts more)
_BOUNDS = (
    ("minimum", False),
    ("exclusiveMinimum", False),
    ("minLength", False),
    ("minItems", False),
    ("minProperties", False),
    ("maximum", True),
    ("exclusiveMaximum", True),
    ("maxLength", True),
    ("maxItems", True),
    ("maxProperties", True),
)
_OPAQUE = ("pattern", "format", "multipleOf")  # any new or changed value restricts
_MAX_DEPTH = 32


@dataclass(frozen=True)
class Change:
    tool: str
    kind: str  # e.g. "argument_removed", "enum_value_added"
    breaking: bool
    where: str  # JSON pointer inside the tool ("" for the tool itself)
    detail: str
    security: bool = False  # what the tool means to a model or host changed (see the module doc)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff_tools(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[Change]:
    """Every change from `old` to `new` tool objects (as in tools/list), in a stable order.

    Which changes are security changes, and which tools were renamed, is the runtime's call
    (`security_changes`, `renames`): every security row here is one of its changes, and no other
    row is security, so this diff and the drift check on connect agree by construction."""
    olds, news = by_name(old), by_name(new)
    renamed = renames(olds, news)  # old name -> new name (still breaking: callers use the old name)
    security: dict[str, list[Change]] = {}
    for sec in security_changes(old, new):
        security.setdefault(sec.tool, []).append(_security_change(sec))
    changes: list[Change] = []
    for r in sorted(olds.keys() - news.keys()):
        if r in renamed:
            changes.append(Change(r, "tool_renamed", True, "", f"renamed to {renamed[r]!r}"))
        else:
            changes.append(Change(r, "tool_removed", True, "", "tool removed"))
    origin = {a: r for r, a in renamed.items()}
    for a in sorted(news.keys() - olds.keys()):
        flagged = security.pop(a, [])
        if a not in origin and not any(c.kind == "tool_added" for c in flagged):
            changes.append(Change(a, "tool_added", False, "", "tool added, read-only"))
        changes += flagged
        if a in origin:  # the pair's other differences (output schema, annotations, title)
            changes += diff_tool(a, olds[origin[a]], news[a])
    for name in sorted(olds.keys() & news.keys()):
        changes += security.pop(name, [])
        changes += diff_tool(name, olds[name], news[name])
    return changes


def _security_change(sec: SecurityChange) -> Change:
    if sec.kind == WRITING_TOOL_ADDED:
        kind = "tool_added"
    elif sec.kind == HINT_FLIPPED:
        kind = sec.where.rsplit("/", 1)[-1] + "_flipped"
    else:
        kind = sec.kind
    return Change(sec.tool, kind, False, sec.where, sec.detail, security=True)


def _other_annotations(tool: Mapping[str, Any]) -> Any:
    """The annotations besides the behaviour hints (whose flips are security changes)."""
    annotations = tool.get("annotations")
    if annotations is None:
        return {}
    if not isinstance(annotations, Mapping):
        return annotations
    return {k: v for k, v in annotations.items() if k not in HINT_DEFAULTS}


def diff_tool(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """The changes of one tool that are not security changes (those are `diff_tools`'s, from the runtime)."""
    out: list[Change] = []
    if old.get("title") != new.get("title"):
        out.append(Change(name, "title_changed", False, "/title", "title changed"))
    if _canon(_other_annotations(old)) != _canon(_other_annotations(new)):
        out.append(Change(name, "annotations_changed", False, "/annotations", "annotations changed"))
    ctx = _Ctx(name, out)
    ctx.schema("input", "/inputSchema", old.get("inputSchema") or {}, new.get("inputSchema") or {}, 0)
    old_out, new_out = old.get("outputSchema"), new.get("outputSchema")
    if old_out is None and new_out is not None:
        out.append(Change(name, "output_schema_added", False, "/outputSchema", "structured output added"))
    elif old_out is not None and new_out is None:
        out.append(Change(name, "output_schema_removed", True, "/outputSchema", "structured output removed"))
    elif old_out is not None:  # both present: a schema that is not an object is compared whole
        ctx.schema("output", "/outputSchema", old_out, new_out, 0)
    return out


class _Ctx:
    """Walks two schemas side by side, appending Changes for one tool."""

    def __init__(self, tool: str, out: list[Change]) -> None:
        self.tool = tool
        self.out = out
        self.roots: dict[str, tuple[Any, Any]] = {}

    def add(self, kind: str, breaking: bool, where: str, detail: str) -> None:
        self.out.append(Change(self.tool, kind, breaking, where, detail))

    def narrowed(self, side: str, kind: str, where: str, detail: str) -> None:
        """NEW accepts less: breaking for inputs, compatible for outputs."""
        self.add(kind if side == "input" else f"output_{kind}", side == "input", where, detail)

    def widened(self, side: str, kind: str, where: str, detail: str) -> None:
        """NEW accepts more: compatible for inputs, breaking for outputs."""
        self.add(kind if side == "input" else f"output_{kind}", side == "output", where, detail)

    def schema(self, side: str, where: str, old: Any, new: Any, depth: int) -> None:
        if depth == 0:
            self.roots[side] = (old, new)
        if depth > _MAX_DEPTH or not isinstance(old, dict) or not isinstance(new, dict):
            if _canon(old) != _canon(new):
                self.add(
                    "schema_changed" if side == "input" else "output_schema_changed", True, where, "schema changed"
                )
            return
        old, new = self._deref(side, 0, old), self._deref(side, 1, new)
        self._types(side, where, old, new)
        self._enum(side, where, old, new)
        self._bounds(side, where, old, new)
        self._properties(side, where, old, new, depth)
        self._variants(side, where, old, new)
        self._items(side, where, old, new, depth)
        # Descriptions are compared by tool_security_changes (a security change); titles here.
        if depth and old.get("title") != new.get("title"):
            self.add("title_changed", False, f"{where}/title", "title changed")
        if _canon(old.get("default")) != _canon(new.get("default")):
            self.add(
                "default_changed",
                False,
                f"{where}/default",
                f"default {old.get('default')!r} -> {new.get('default')!r}",
            )

    def _deref(self, side: str, which: int, node: dict[str, Any]) -> dict[str, Any]:
        """Follow a local `$ref` (never a file or URL) a few hops; anything else is left as it is."""
        for _ in range(8):
            ref = node.get("$ref")
            if not isinstance(ref, str) or not ref.startswith("#"):
                return node
            target: Any = self.roots.get(side, ({}, {}))[which]
            for part in [p for p in ref[1:].split("/") if p]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                return node
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def _types(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        a, b = _type_set(old.get("type")), _type_set(new.get("type"))
        if a == b:
            return
        detail = f"type {_show(old.get('type'))} -> {_show(new.get('type'))}"
        if a is None or (b is not None and _covers(a, b)):
            self.narrowed(side, "type_narrowed", f"{where}/type", detail)
        elif b is None or _covers(b, a):
            self.widened(side, "type_widened", f"{where}/type", detail)
        else:
            self.add("type_changed" if side == "input" else "output_type_changed", True, f"{where}/type", detail)

    def _enum(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        a, b = _allowed(old), _allowed(new)
        if a == b:
            return
        if a is None and b is not None:
            self.narrowed(side, "enum_added", f"{where}/enum", f"values limited to {sorted(b)}")
        elif b is None and a is not None:
            self.widened(side, "enum_removed", f"{where}/enum", "any value allowed now")
        elif a is not None and b is not None:
            for value in sorted(a - b):
                self.narrowed(side, "enum_value_removed", f"{where}/enum", f"value {value} removed")
            for value in sorted(b - a):
                self.widened(side, "enum_value_added", f"{where}/enum", f"value {value} added")

    def _bounds(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key, bigger_is_looser in _BOUNDS:
            a, b = old.get(key), new.get(key)
            if a == b or isinstance(a, bool) or isinstance(b, bool):
                continue
            if a is not None and not isinstance(a, (int, float)) or b is not None and not isinstance(b, (int, float)):
                continue
            detail = f"{key} {a} -> {b}"
            tighter = a is None or (b is not None and (b < a if bigger_is_looser else b > a))
            if tighter:
                self.narrowed(side, "constraint_tightened", f"{where}/{key}", detail)
            else:
                self.widened(side, "constraint_loosened", f"{where}/{key}", detail)
        for key in _OPAQUE:
            a, b = old.get(key), new.get(key)
            if a == b:
                continue
            detail = f"{key} {a!r} -> {b!r}"
            if b is None:
                self.widened(side, "constraint_loosened", f"{where}/{key}", detail)
            elif a is None:
                self.narrowed(side, "constraint_tightened", f"{where}/{key}", detail)
            else:  # neither contains the other, as far as anyone can tell
                self.add(
                    "constraint_changed" if side == "input" else "output_constraint_changed",
                    True,
                    f"{where}/{key}",
                    detail,
                )
        if old.get("uniqueItems") is not True and new.get("uniqueItems") is True:
            self.narrowed(side, "constraint_tightened", f"{where}/uniqueItems", "items must be unique now")
        elif old.get("uniqueItems") is True and new.get("uniqueItems") is not True:
            self.widened(side, "constraint_loosened", f"{where}/uniqueItems", "items need not be unique now")

    def _properties(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any], depth: int) -> None:
        op, np = old.get("properties"), new.get("properties")
        op = op if isinstance(op, dict) else {}
        np = np if isinstance(np, dict) else {}
        oreq, nreq = _required(old), _required(new)
        closed_before = old.get("additionalProperties") is False
        if not closed_before and new.get("additionalProperties") is False:
            self.narrowed(
                side, "additional_properties_closed", f"{where}/additionalProperties", "unknown properties refused now"
            )
        elif closed_before and new.get("additionalProperties") is not False:
            self.widened(
                side, "additional_properties_opened", f"{where}/additionalProperties", "unknown properties allowed now"
            )
        noun = "argument" if side == "input" else "output_field"
        for key in sorted(op.keys() - np.keys()):
            # Removing an argument breaks every caller that passes it; a missing output field, every reader.
            self.add(f"{noun}_removed", True, f"{where}/properties/{_esc(key)}", f"{key!r} removed")
        for key in sorted(np.keys() - op.keys()):
            at = f"{where}/properties/{_esc(key)}"
            if side == "input":
                if key in nreq:
                    self.add("required_argument_added", True, at, f"new required argument {key!r}")
                else:
                    self.add("optional_argument_added", False, at, f"new optional argument {key!r}")
            else:
                # A typed client built against a closed object refuses the new field.
                self.add("output_field_added", closed_before, at, f"new output field {key!r}")
        for key in sorted(op.keys() & np.keys()):
            at = f"{where}/properties/{_esc(key)}"
            if key not in oreq and key in nreq:
                self.add(f"{noun}_made_required", side == "input", at, f"{key!r} is required now")
            elif key in oreq and key not in nreq:
                self.add(f"{noun}_made_optional", side == "output", at, f"{key!r} is optional now")
            self.schema(side, at, op[key], np[key], depth + 1)
        for key in sorted((nreq - oreq) - np.keys() - op.keys()):
            self.narrowed(side, "required_added", f"{where}/required", f"{key!r} is required now")
        for key in sorted((oreq - nreq) - np.keys() - op.keys()):
            self.widened(side, "required_removed", f"{where}/required", f"{key!r} is optional now")

    def _items(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any], depth: int) -> None:
        """An array's elements position by position: the tuple forms' schema at each position
        (`prefixItems`, or `items` as a list), then the schema of every element after them."""
        (okey, oprefix, _, orest), (nkey, nprefix, nrest_key, nrest) = _item_view(old), _item_view(new)
        key = nkey if nprefix else okey
        for i in range(max(len(oprefix), len(nprefix))):
            a = oprefix[i] if i < len(oprefix) else orest
            b = nprefix[i] if i < len(nprefix) else nrest
            self._item(side, f"{where}/{key}/{i}", a, b, depth)
        self._item(side, f"{where}/{nrest_key}", orest, nrest, depth)

    def _item(self, side: str, where: str, old: Any, new: Any, depth: int) -> None:
        """One element's schemas: `true` is the empty schema; `false` refuses every element."""
        old, new = {} if old is True else old, {} if new is True else new
        if old is False and new is not False:
            self.widened(side, "constraint_loosened", where, "elements allowed here now")
        elif new is False and old is not False:
            self.narrowed(side, "constraint_tightened", where, "no element allowed here now")
        else:  # two schemas, or false twice (equal: compared whole, nothing to report)
            self.schema(side, where, old, new, depth + 1)

    def _variants(self, side: str, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key in ("anyOf", "oneOf"):
            a, b = old.get(key), new.get(key)
            if not isinstance(a, list) or not isinstance(b, list):
                continue
            sa, sb = {_canon(v) for v in a}, {_canon(v) for v in b}
            if sa - sb:
                self.narrowed(
                    side, "variant_removed", f"{where}/{key}", f"{counted(len(sa - sb), key + ' variant')} removed"
                )
            if sb - sa:
                self.widened(
                    side, "variant_added", f"{where}/{key}", f"{counted(len(sb - sa), key + ' variant')} added"
                )


def _item_view(schema: Mapping[str, Any]) -> tuple[str, list[Any], str, Any]:
    """(the tuple keyword, its schemas by position, the keyword for the elements after them, their
    schema): draft 2020-12's `prefixItems` + `items`, or draft 7's `items` list + `additionalItems`;
    a keyword that is absent allows anything (`true`)."""
    prefix, items = schema.get("prefixItems"), schema.get("items", True)
    if isinstance(prefix, list):
        return "prefixItems", prefix, "items", items
    if isinstance(items, list):
        return "items", items, "additionalItems", schema.get("additionalItems", True)
    return "prefixItems", [], "items", items


def _type_set(value: Any) -> frozenset[str] | None:
    """None means any type."""
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return frozenset(value)
    return None


def _covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Every value of a `narrow` type is a value of a `wide` type ("number" includes integers)."""
    expanded = wide | ({"integer"} if "number" in wide else set())
    return narrow <= expanded


def _allowed(schema: Mapping[str, Any]) -> set[str] | None:
    """The enum (or const) as canonical JSON strings; None when any value goes."""
    if "const" in schema:
        return {_canon(schema["const"])}
    enum = schema.get("enum")
    return {_canon(v) for v in enum} if isinstance(enum, list) else None


def _required(schema: Mapping[str, Any]) -> set[str]:
    req = schema.get("required")
    return {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()


def _show(value: Any) -> str:
    return "any" if value is None else _canon(value)


def summary(changes: Sequence[Change]) -> dict[str, Any]:
    """The --json document."""
    breaking = sum(c.breaking for c in changes)
    security = sum(c.security for c in changes)
    return {
        "breaking": breaking > 0,
        "security": security > 0,
        "counts": {"breaking": breaking, "compatible": len(changes) - breaking, "security": security},
        "changes": [c.to_json() for c in changes],
    }


def fails(changes: Sequence[Change], fail_on: Sequence[str]) -> bool:
    """Does any change belong to a class in `fail_on` (breaking, security, any: every change)?"""
    return any(
        ("any" in fail_on) or (c.breaking and "breaking" in fail_on) or (c.security and "security" in fail_on)
        for c in changes
    )


def format_table(changes: Sequence[Change]) -> str:
    """A plain table for people: breaking changes first."""
    if not changes:
        return "no changes\n"
    rows = [("", "TOOL", "CHANGE", "WHERE", "DETAIL")]
    for c in sorted(changes, key=lambda c: (not c.breaking, not c.security)):
        label = "BREAKING" if c.breaking else "SECURITY" if c.security else "ok"
        rows.append((label, c.tool, c.kind, c.where or "-", c.detail))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join([*(r[i].ljust(widths[i]) for i in range(4)), r[4]]).rstrip() for r in rows]
    breaking = sum(c.breaking for c in changes)
    security = sum(c.security for c in changes)
    lines.append(
        f"{counted(len(changes), 'change')}: {breaking} breaking, {len(changes) - breaking} compatible,"
        f" {security} security"
    )
    return "\n".join(lines) + "\n"
