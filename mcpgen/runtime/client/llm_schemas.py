"""What each LLM API accepts as a function's parameter schema, and OpenAI's `strict` test.

Every function here answers for one schema: the exact rewrite an API needs (same accepted
arguments), or the one-line reason the API would refuse it. `llm_tools` asks before it emits a
definition, and `mcpgen lint` asks the same functions, so lint reports what would really fail.

The rules, each from its provider's documentation (docs/how-to/llm-tools.md links them):

- every API takes an object schema at the top ("type": "object");
- Anthropic: no oneOf, allOf or anyOf at the top of `input_schema`;
- OpenAI: no oneOf, anyOf, allOf, enum or not at the top of `parameters`;
- OpenAI strict mode (Structured Outputs): every object closed (`additionalProperties: false`),
  every property required, only the keywords Structured Outputs supports, within its limits;
- Gemini `parametersJsonSchema`: JSON Schema describing an object, nothing more;
- Gemini `parameters`: the OpenAPI 3.0 subset of its Schema object (`GEMINI_SCHEMA_FIELDS`),
  one type name per schema (a type list with "null" becomes `nullable: true`, exactly), every
  subschema an object (a `true`/`false` schema, a list of `items`, is refused).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any, cast

from ..core.jsonrpc import is_array, is_object

# Gemini's `parameters` take "a select subset of an OpenAPI 3.0 schema object": these fields.
GEMINI_SCHEMA_FIELDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
        "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
        "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
    }
)  # fmt: skip
# Structured Outputs' supported subset (OpenAI's "Supported schemas"), plus prose keys.
OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "$ref", "$defs", "definitions", "description", "title",
        "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "minItems", "maxItems",
    }
)  # fmt: skip
OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
OPENAI_STRICT_MAX_PROPERTIES = 5000
OPENAI_STRICT_MAX_DEPTH = 10
OPENAI_STRICT_MAX_ENUM_VALUES = 1000

TOP_LEVEL_REFUSED: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("oneOf", "allOf", "anyOf"),
    "openai": ("oneOf", "anyOf", "allOf", "enum", "not"),
    "gemini": (),
}
_NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_ONE_SCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAX_DEPTH = 64
_NOT_VALIDATING = ("$schema", "$comment")
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})


class Refused(Exception):
    """The API would refuse this schema and no exact rewrite exists; the message says why."""

    def __init__(self, reason: str, pointer: str = "") -> None:
        super().__init__(reason)
        self.pointer = pointer  # where in the inputSchema ("" for the whole of it)


def subschemas(schema: Any, pointer: str = "", depth: int = 0) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(pointer, depth, subschema) for the schema and every schema inside it (bounded depth)."""
    if not is_object(schema) or depth > _MAX_DEPTH:
        return
    yield pointer, depth, schema
    for key, value in schema.items():
        here = f"{pointer}/{escape(key)}"
        if key in _NAME_MAPS and is_object(value):
            for name, sub in value.items():
                yield from subschemas(sub, f"{here}/{escape(name)}", depth + 1)
        elif key in _ONE_SCHEMA:
            yield from subschemas(value, here, depth + 1)
        elif key in _SCHEMA_LISTS and is_array(value):
            for i, sub in enumerate(value):
                yield from subschemas(sub, f"{here}/{i}", depth + 1)


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def object_root(schema: Any, api: str) -> dict[str, Any]:
    """The schema as the top-level object schema `api` takes, or Refused.

    A function's arguments are always a JSON object, so a missing "type" or a type list that
    holds "object" becomes "type": "object" without changing which arguments are accepted, unless
    the schema refers to its own root (`{"$ref": "#"}`): there the type would apply to nested
    values too, so such a schema is refused.
    """
    if schema is None:
        return {"type": "object"}  # no inputSchema: any object
    if not is_object(schema):
        raise Refused("its inputSchema is not a JSON object")
    kind = schema.get("type", "object")
    if is_array(kind) and "object" in kind:
        kind = "object"
    if kind != "object":
        raise Refused(f"its inputSchema's top-level type is {kind!r}, not 'object'", "/type")
    for key in TOP_LEVEL_REFUSED[api]:
        if key in schema:
            raise Refused(f"its inputSchema has {key!r} at the top level, which this API refuses", f"/{key}")
    if schema.get("type") == "object":
        return schema
    where = _root_reference(schema)
    if where is not None:  # the root's new type would apply at every place that refers to it
        raise Refused(
            "its inputSchema has no top-level type 'object' and refers to its own root: adding the type "
            "would change what it accepts",
            where,
        )
    return {**schema, "type": "object"}


def _root_reference(schema: Mapping[str, Any]) -> str | None:
    """Where the schema may refer to its own root (a `$ref` that is not a pointer below it, or any
    `$dynamicRef`/`$recursiveRef`), or None: then giving the root a type changes nothing else."""
    for pointer, _depth, node in subschemas(schema):
        for key in ("$ref", "$dynamicRef", "$recursiveRef"):
            ref = node.get(key)
            if ref is not None and (key != "$ref" or not (isinstance(ref, str) and ref.startswith("#/"))):
                return f"{pointer}/{escape(key)}"
    return None


def strict_problem(schema: Mapping[str, Any]) -> str | None:
    """Why OpenAI's strict mode would refuse this parameter schema as it is (None: it qualifies)."""
    problems = strict_problems(schema)
    return f"{problems[0][1]} at {problems[0][0] or 'the top level'}" if problems else None


def strict_problems(schema: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(pointer, reason) for everything OpenAI's strict mode refuses in this parameter schema."""
    out: list[tuple[str, str]] = []
    properties = enum_values = 0
    for pointer, depth, node in subschemas(dict(schema)):
        if depth > OPENAI_STRICT_MAX_DEPTH:
            out.append((pointer, f"nested deeper than {OPENAI_STRICT_MAX_DEPTH} levels"))
        out += [
            (f"{pointer}/{escape(k)}", f"{k!r} is not supported")
            for k in sorted(node)
            if k not in OPENAI_STRICT_KEYWORDS
        ]
        fmt = node.get("format")
        if fmt is not None and fmt not in OPENAI_STRICT_FORMATS:
            out.append((f"{pointer}/format", f"format {fmt!r} is not supported"))
        kind = node.get("type")
        if kind == "object" or (is_array(kind) and "object" in kind) or "properties" in node:
            if node.get("additionalProperties") is not False:
                out.append((pointer, "an object without additionalProperties: false"))
            names = node.get("properties", {})
            required = node.get("required", [])
            if is_object(names) and is_array(required):
                optional = sorted(set(names) - set(required))
                out += [(f"{pointer}/properties/{escape(p)}", f"{p!r} is optional") for p in optional]
                properties += len(names)
        if is_array(node.get("enum")):
            enum_values += len(node["enum"])
    if properties > OPENAI_STRICT_MAX_PROPERTIES:
        out.append(("", f"more than {OPENAI_STRICT_MAX_PROPERTIES} properties"))
    if enum_values > OPENAI_STRICT_MAX_ENUM_VALUES:
        out.append(("", f"more than {OPENAI_STRICT_MAX_ENUM_VALUES} enum values"))
    return out


def gemini_parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema in Gemini's OpenAPI subset (`parameters`), or Refused with the first problem."""
    rewritten, problems = gemini_parameters_problems(schema)
    if problems:
        pointer, _kind, reason = problems[0]
        raise Refused(f"{reason} at {pointer or 'the top level'} (Gemini's `parameters` subset)", pointer)
    return rewritten


def gemini_parameters_problems(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """The schema rewritten into Gemini's OpenAPI subset, and (pointer, "keyword" | "type" |
    "enum" | "boolean", reason) for everything the subset cannot say.

    The rewrites, each accepting the same values: a type name becomes the upper-case name of
    Gemini's `Type` enum; `"type": [T, "null"]` becomes `"type": T, "nullable": true`;
    `$schema` and `$comment`, which validate nothing, are dropped.
    """
    out = copy.deepcopy(dict(schema))
    problems: list[tuple[str, str, str]] = []
    for pointer, _depth, node in subschemas(out):
        for key in _NOT_VALIDATING:
            node.pop(key, None)
        kind = node.get("type")
        if is_array(kind):
            others = [k for k in kind if k != "null"]
            if len(others) == 1 and "nullable" not in node:
                node["type"] = others[0]
                if "null" in kind:
                    node["nullable"] = True
                kind = others[0]
            else:
                problems.append((f"{pointer}/type", "type", f"type {kind!r} is not one type name"))
        if isinstance(kind, str) and kind in _JSON_TYPES:
            node["type"] = kind.upper()
        enum = node.get("enum")
        if is_array(enum) and not all(isinstance(v, str) for v in enum):
            problems.append((f"{pointer}/enum", "enum", "enum values that are not strings"))
        problems += [
            (f"{pointer}/{escape(k)}", "keyword", f"{k!r} is not supported")
            for k in sorted(node)
            if k not in GEMINI_SCHEMA_FIELDS
        ]
        problems += [(where, "boolean", why) for where, why in _non_object_children(pointer, node)]
    return out, problems


def _non_object_children(pointer: str, node: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(pointer, reason) of each subschema under the subset's own schema fields (`properties`,
    `items`, `anyOf`) that is not an object: Gemini's Schema is an object, never `true`/`false`,
    and `items` is one Schema, never draft 7's list of them (the other keywords are refused as
    keywords already)."""
    children: list[tuple[str, object]] = []
    properties: object = node.get("properties")
    if isinstance(properties, dict):
        named = cast("dict[str, object]", properties)
        children += [(f"{pointer}/properties/{escape(str(k))}", v) for k, v in named.items()]
    any_of: object = node.get("anyOf")
    if isinstance(any_of, list):
        children += [(f"{pointer}/anyOf/{i}", v) for i, v in enumerate(cast("list[object]", any_of))]
    items: object = node.get("items")
    if isinstance(items, list):
        yield f"{pointer}/items", "a list of item schemas where one Schema object goes"
    elif "items" in node:
        children.append((f"{pointer}/items", items))
    for where, sub in children:
        if isinstance(sub, bool):
            yield where, f"a boolean schema ({'true' if sub else 'false'}) where a Schema object goes"
