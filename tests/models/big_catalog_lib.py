"""A catalog of ~150 varied tools for the tests of models made in parts (tests/models/test_parts*.py).

The shapes of bench/big_catalog.py (nested objects, tagged oneOf, arrays of $ref-ed objects, maps,
anyOf scalars) and, on purpose, names that collide once the catalog is cut into parts: every tool
has a nested `location` object (of one of three different shapes), so each part's
datamodel-code-generator call invents its own `Location`, `Location1`, ...; strings that read
like those class names where they are data (an enum value, a wire name, a description); a
recursive $defs (forward references and `model_rebuild`); and a nested object that datamodel-
code-generator would call `GeoArgs`, the name mcpgen gave another tool's arguments in another part.
"""

from __future__ import annotations

from typing import Any

POINT = {
    "type": "object",
    "properties": {
        "lat": {"type": "number", "minimum": -90, "maximum": 90},
        "lon": {"type": "number", "minimum": -180, "maximum": 180},
    },
    "required": ["lat", "lon"],
    "additionalProperties": False,
}
NODE = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    "required": ["label"],
}


def _location(kind: int) -> dict[str, Any]:
    """Three different objects, all under the property name `location`."""
    if kind == 0:
        return {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]}
    if kind == 1:
        return {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        }
    return {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}


def _shape(i: int) -> dict[str, Any]:
    kind = i % 6
    if kind == 0:
        owner = {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": ["string", "null"]}},
            "required": ["id"],
        }
        return {"filter": {"type": "object", "properties": {"after": {"type": "string"}, "owner": owner}}}
    if kind == 1:
        user = {"kind": {"const": "user"}, "id": {"type": "integer"}}
        group = {"kind": {"const": "group"}, "name": {"type": "string"}}
        tagged = [
            {"type": "object", "properties": user, "required": ["kind", "id"], "additionalProperties": False},
            {"type": "object", "properties": group, "required": ["kind", "name"], "additionalProperties": False},
        ]
        return {"target": {"oneOf": tagged}}
    if kind == 2:
        item = {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "qty": {"type": "integer", "minimum": 1},
                "where": {"$ref": "#/$defs/Point"},
            },
            "required": ["sku", "qty"],
        }
        return {"items": {"type": "array", "minItems": 1, "items": item}}
    if kind == 3:
        return {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 4},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
        }
    if kind == 4:
        return {"value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}}
    return {"tree": {"$ref": "#/$defs/Node"}}


def tool(i: int) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "query": {"type": "string", "minLength": 1, "maxLength": 50, "description": "Location"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20},
        # Data that reads like the class names the parts invent: never renamed.
        "mode": {"type": "string", "enum": ["Location", "Location1", f"custom-{i}"], "default": "Location"},
        "Location": {"type": "string"},
        "location": _location(i % 3),
        **_shape(i),
    }
    if i == 140:  # datamodel-code-generator would call this object GeoArgs: tool `geo`'s model
        properties["geo_args"] = {"type": "object", "properties": {"radius": {"type": "number"}}}
    defs = {"Point": POINT, "Node": NODE}
    out: dict[str, Any] = {
        "name": f"tool_{i:03d}",
        "description": f"Tool {i}, shape {i % 6}.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["query"], "$defs": defs},
    }
    if i % 2 == 0:
        out["outputSchema"] = {
            "type": "object",
            "properties": {"location": _location((i + 1) % 3), "total": {"type": "integer", "minimum": 0}},
            "required": ["total"],
        }
    return out


GEO = {
    "name": "geo",
    "description": "The tool whose arguments model is GeoArgs.",
    "inputSchema": {
        "type": "object",
        "properties": {"place": {"type": "string"}, "location": _location(1)},
        "required": ["place"],
    },
}


def tools(n: int = 150) -> list[dict[str, Any]]:
    """n rich tools and `geo` (sorted first: its GeoArgs is in the first part, tool 140's
    look-alike in a later one)."""
    return [GEO, *(tool(i) for i in range(n))]
