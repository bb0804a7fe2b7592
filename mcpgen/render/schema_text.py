"""What the reference docs say about a JSON Schema: a short type label and an example value.

Both read untrusted schemas, so both are bounded: `$ref` resolves only inside the document
(a JSON pointer into the tool's own schema), nesting stops at `MAX_DEPTH`, and lists and
objects are cut to a few members. Both are deterministic: the same schema gives the same text.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 6
MAX_MEMBERS = 20  # object properties an example fills, alternatives a label lists
MAX_ITEMS = 3  # array items an example holds
MAX_STRING = 64

# Example strings for the formats people use most (RFC 2606/5737 names and addresses).
_FORMAT_EXAMPLES = {
    "date-time": "2025-01-01T12:00:00Z",
    "date": "2025-01-01",
    "time": "12:00:00",
    "duration": "PT1H",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-0000-0000-000000000000",
}


def resolve(schema: Any, root: Any, depth: int = 0) -> Any:
    """`schema` with a local `$ref` followed (a chain of them, bounded); anything else unchanged."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < MAX_DEPTH:
        target = _pointer(root, schema["$ref"])
        if target is None:
            return schema
        schema, depth = target, depth + 1
    return schema


def _pointer(root: Any, ref: str) -> Any:
    """The value at a `#/...` JSON pointer inside `root`, or None (other refs never leave the document)."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for raw in ref[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    if "properties" in schema:
        return ["object"]
    if "items" in schema or "prefixItems" in schema:
        return ["array"]
    return []


def type_label(schema: Any, root: Any, depth: int = 0) -> str:
    """A short human label: `string`, `integer | null`, `array of string`, `object`, `Address`."""
    if depth > MAX_DEPTH:
        return "…"
    if schema is True or schema == {}:
        return "any"
    if schema is False:
        return "never"
    if not isinstance(schema, dict):
        return "any"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        return "schema" if name in ("", "#") else name  # "#": the whole schema again
    if "const" in schema:
        return "const " + _short_json(schema["const"])
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            labels = list(dict.fromkeys(type_label(a, root, depth + 1) for a in alternatives[:MAX_MEMBERS]))
            return " | ".join(labels)
    parts: list[str] = []
    for t in _types(schema):
        if t == "array":
            items = schema.get("items")
            parts.append(f"array of {type_label(items, root, depth + 1)}" if isinstance(items, dict) else "array")
        elif t == "string" and isinstance(schema.get("format"), str):
            parts.append(f"string ({schema['format']})")
        else:
            parts.append(t)
    if not parts:
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of:
            return " & ".join(type_label(a, root, depth + 1) for a in all_of[:MAX_MEMBERS])
        return "enum" if isinstance(schema.get("enum"), list) else "any"
    return " | ".join(parts)


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= MAX_STRING else text[: MAX_STRING - 1] + "…"


def enum_values(schema: Any, root: Any) -> tuple[str, ...]:
    """The allowed values of an enum (or of a oneOf/anyOf of consts), as JSON text; () if none."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return ()
    values: list[Any] = []
    if isinstance(schema.get("enum"), list):
        values = schema["enum"]
    else:
        for key in ("oneOf", "anyOf"):
            alternatives = schema.get(key)
            if isinstance(alternatives, list) and alternatives:
                resolved = [resolve(a, root) for a in alternatives]
                if all(isinstance(a, dict) and "const" in a for a in resolved):
                    values = [a["const"] for a in resolved]
                    break
        else:
            items = schema.get("items")
            if schema.get("type") == "array" and isinstance(items, dict):
                return enum_values(items, root)
    shown = tuple(_short_json(v) for v in values[:MAX_MEMBERS])
    return shown + (("…",) if len(values) > MAX_MEMBERS else ())


def given_example(schema: Any, root: Any) -> tuple[bool, Any]:
    """(True, value) when the schema itself offers one: examples, example, default, const or enum."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return False, None
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return True, examples[0]
    for key in ("example", "default", "const"):
        if key in schema:
            return True, schema[key]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return True, enum[0]
    return False, None


def example_value(schema: Any, root: Any, depth: int = 0) -> Any:
    """A value for `schema`: the schema's own example if it has one, else one built from its type."""
    if depth > MAX_DEPTH:
        return None
    schema = resolve(schema, root, depth)
    if not isinstance(schema, dict):
        return None
    found, value = given_example(schema, root)
    if found:
        return value
    for key in ("anyOf", "oneOf", "allOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            usable = [a for a in alternatives if not (isinstance(a, dict) and a.get("type") == "null")]
            return example_value((usable or alternatives)[0], root, depth + 1)
    types = [t for t in _types(schema) if t != "null"] or _types(schema)
    kind = types[0] if types else None
    if kind == "string":
        return _string_example(schema)
    if kind in ("integer", "number"):
        return _number_example(schema, kind == "integer")
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        count = schema.get("minItems")
        n = min(max(count, 1), MAX_ITEMS) if isinstance(count, int) else 1
        return [example_value(items, root, depth + 1) for _ in range(n)] if isinstance(items, dict) else []
    if kind == "object":
        return object_example(schema, root, depth + 1)
    return None


def object_example(schema: dict[str, Any], root: Any, depth: int = 0, *, with_given: bool = False) -> dict[str, Any]:
    """Its required properties (and, `with_given`, the optional ones that carry their own example)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    out: dict[str, Any] = {}
    # A tool's own arguments are all shown (the plan holds them anyway); nested objects are cut.
    for name, sub in list(props.items())[: MAX_MEMBERS if depth else None]:
        if name in needed:
            out[name] = example_value(sub, root, depth)
        elif with_given and isinstance(sub, dict) and ("examples" in sub or "example" in sub):
            out[name] = example_value(sub, root, depth)
    return out


def _string_example(schema: dict[str, Any]) -> str:
    fmt = schema.get("format")
    text = _FORMAT_EXAMPLES.get(fmt, "example") if isinstance(fmt, str) else "example"
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        text += "x" * (min(low, MAX_STRING) - len(text))
    if isinstance(high, int) and 0 <= high < len(text):
        text = text[:high]
    return text


def _number_example(schema: dict[str, Any], integer: bool) -> int | float:
    value: float = 1
    low, high = schema.get("minimum"), schema.get("maximum")
    ex_low = schema.get("exclusiveMinimum")
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        value = low
    elif isinstance(ex_low, (int, float)) and not isinstance(ex_low, bool):
        value = ex_low + 1
    elif isinstance(high, (int, float)) and not isinstance(high, bool) and high < 1:
        value = high
    if integer:
        return int(value) if float(value).is_integer() else int(value) + 1
    return float(value)
