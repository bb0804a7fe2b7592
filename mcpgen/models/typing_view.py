"""Exactness: which schemas a generated model can enforce, and the typing view handed to DCG.

A generated `Args`/`Result` model checks the raw instance against the tool's own schema with
jsonschema (see `mcpgen.runtime.core.validation.check_exact`), so the Python annotations only have
to accept a *superset* of the valid instances. `typing_view` builds that superset schema: it
keeps what Python types can say (type, properties, required, items, small enums, local refs to
`$defs`) and drops every constraint, so pydantic never rejects an instance jsonschema accepts.

The other half of exactness is at run time: `mcpgen/runtime/core/validation.py` checks each
instance against the schema itself. Schemas no model could check exactly (refs leaving the
document, hostile depth) never get here: `mcpgen/catalog/checks.py` refuses them first.
"""

from __future__ import annotations

import math
from typing import Any

# Deeper than this, annotations become Any (jsonschema still checks every level).
MAX_TYPED_DEPTH = 24
# A field's description is kept up to this many characters (the schema keeps all of it).
MAX_DESCRIPTION = 4000
_SCALARS = ("string", "integer", "number", "boolean", "null")
_INT_LIMIT = 2**63


class _View:
    def __init__(self, draft7: bool, defs: dict[str, set[str]], keep_integers: bool = False) -> None:
        self.draft7 = draft7
        # A result's "number" as int | float: pydantic would turn the server's 1 into 1.0.
        self.keep_integers = keep_integers
        self.defs = defs  # "$defs"/"definitions" -> names present at the root

    def ref(self, ref: Any, nested_id: bool) -> dict[str, Any]:
        if nested_id or not isinstance(ref, str):
            return {}
        if ref == "#":
            return {"$ref": "#"}
        for kw, names in self.defs.items():
            prefix = f"#/{kw}/"
            if ref.startswith(prefix) and ref[len(prefix) :] in names:
                return {"$ref": ref}
        return {}  # deeper pointers, anchors, relative URIs: typed Any, checked by jsonschema

    def view(self, s: Any, depth: int, nested_id: bool = False) -> dict[str, Any]:
        if depth > MAX_TYPED_DEPTH or not isinstance(s, dict):
            return {}
        if depth > 0 and "$id" in s:
            nested_id = True  # refs below resolve against another base: leave them to jsonschema
        if "$ref" in s:
            # The referenced schema's type is a superset of `$ref` AND its siblings.
            return self.ref(s["$ref"], nested_id)
        lit = _literal(s)
        if lit is not None:
            return lit
        t = s.get("type")
        types = [t] if isinstance(t, str) else t if isinstance(t, list) and all(isinstance(x, str) for x in t) else None
        if types is None:
            for kw in ("anyOf", "oneOf"):
                branches = s.get(kw)
                if isinstance(branches, list) and branches:
                    views = [self.view(b, depth + 1, nested_id) for b in branches]
                    if all(views) and all(b is not False for b in branches):
                        return {"anyOf": views}
                    return {}
            all_of = s.get("allOf")
            if isinstance(all_of, list):
                # Valid for allOf means valid for each branch: the first typed one is a superset.
                for b in all_of:
                    v = self.view(b, depth + 1, nested_id)
                    if v:
                        return v
            return {}
        per_type = [self.one_type(x, s, depth, nested_id) for x in dict.fromkeys(types)]
        if not per_type or any(v is None for v in per_type):
            return {}
        typed = [v for v in per_type if v is not None]
        return typed[0] if len(typed) == 1 else {"anyOf": typed}

    def one_type(self, name: str, s: dict[str, Any], depth: int, nested_id: bool) -> dict[str, Any] | None:
        if name == "number" and self.keep_integers:
            return {"anyOf": [{"type": "integer"}, {"type": "number"}]}
        if name in _SCALARS:
            return {"type": name}
        if name == "array":
            items = s.get("items")
            tuple_form = "prefixItems" in s if not self.draft7 else not isinstance(items, (dict, bool))
            if tuple_form or items is None or items is False:
                return {"type": "array"}
            item_view = self.view(items, depth + 1, nested_id)
            return {"type": "array", "items": item_view} if item_view else {"type": "array"}
        if name == "object":
            return self.object(s, depth, nested_id)
        return None  # an unknown type name: only jsonschema can judge it

    def object(self, s: dict[str, Any], depth: int, nested_id: bool = False) -> dict[str, Any]:
        props = s.get("properties")
        out: dict[str, Any] = {"type": "object"}
        if isinstance(props, dict):
            fields: dict[str, Any] = {}
            for k, v in props.items():
                fv = self.view(v, depth + 1, nested_id)
                d = _safe_default(v, fv)
                fields[k] = {**fv, "default": d[0]} if d else fv
                desc = v.get("description") if isinstance(v, dict) else None
                if isinstance(desc, str) and desc.strip():
                    # Field(description=...): what IDEs show (DCG's output is re-emitted as literals).
                    fields[k]["description"] = desc.strip()[:MAX_DESCRIPTION]
            out["properties"] = fields
            req = s.get("required")
            if isinstance(req, list):
                wanted = [r for r in dict.fromkeys(req) if isinstance(r, str) and r in props]
                if wanted:
                    out["required"] = wanted
        elif "patternProperties" not in s and isinstance(s.get("additionalProperties"), dict):
            ap = self.view(s["additionalProperties"], depth + 1, nested_id)
            if ap:
                out["additionalProperties"] = ap
        return out


def _literal(s: dict[str, Any]) -> dict[str, Any] | None:
    """enum/const as a Literal when every value is one Python can spell; else a wider type."""
    if "const" in s:
        values = [s["const"]]
    elif isinstance(s.get("enum"), list) and s["enum"]:
        values = list(s["enum"])
    else:
        return None
    out: list[Any] = []
    for v in values:
        if isinstance(v, float) and math.isfinite(v) and v.is_integer() and abs(v) < _INT_LIMIT:
            v = int(v)  # JSON 1.0 == 1, and Literal[1] accepts 1.0
        if v is None or isinstance(v, (str, bool)) or (isinstance(v, int) and abs(v) < _INT_LIMIT):
            out.append(v)
        else:
            return {}  # a float, list or object: no Literal spells it
    unique: list[Any] = []
    for v in out:
        if not any(type(v) is type(u) and v == u for u in unique):
            unique.append(v)
    return {"enum": unique}


def _safe_default(prop: Any, view: dict[str, Any]) -> tuple[Any] | None:
    """A default is kept only if it is a plain scalar the annotation accepts (mypy and pydantic)."""
    if not isinstance(prop, dict) or "default" not in prop:
        return None
    d = prop["default"]
    t = view.get("type")
    if "enum" in view:
        return (d,) if any(type(d) is type(u) and d == u for u in view["enum"]) else None
    if t == "string" and isinstance(d, str) and len(d) <= 10_000:
        return (d,)
    if t == "boolean" and isinstance(d, bool):
        return (d,)
    if t == "integer" and isinstance(d, int) and not isinstance(d, bool) and abs(d) < _INT_LIMIT:
        return (d,)
    if t == "number" and isinstance(d, (int, float)) and not isinstance(d, bool):
        if isinstance(d, float) and not math.isfinite(d):
            return None
        return (d,) if abs(d) < 1e300 else None
    return None


def is_draft7(schema: dict[str, Any]) -> bool:
    s = schema.get("$schema")
    return isinstance(s, str) and ("draft-07" in s or "draft-06" in s or "draft-04" in s)


def typing_view(schema: dict[str, Any], *, root_object: bool, keep_integers: bool = False) -> dict[str, Any]:
    """The superset schema DCG turns into annotations (root `$defs` kept, views of their own).

    `keep_integers` (results): a "number" is typed `int | float`, so an integer the server sent
    stays an int (a number allows both; pydantic's float would make 1 into 1.0)."""
    draft7 = is_draft7(schema)
    defs = {kw: set(schema[kw]) for kw in ("$defs", "definitions") if isinstance(schema.get(kw), dict)}
    v = _View(draft7, defs, keep_integers)
    out = v.object(schema, 0) if root_object else v.view(schema, 0)
    for kw in defs:
        out[kw] = {name: v.view(body, 1) for name, body in schema[kw].items()}
    return out
