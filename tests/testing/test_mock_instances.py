"""Schema-driven instances: valid (checked by jsonschema), deterministic under a seed, refused
with a reason when no instance can be found."""

from __future__ import annotations

import re
from typing import Any

import pytest
from kit_support import SOURCES, load

from mcpgen.catalog.instances import Unsatisfiable, draw
from mcpgen.runtime.core.validation import compile_validator

SCHEMAS: list[dict[str, Any]] = [
    {"type": "string", "pattern": r"^[A-Z]{3}-\d{2,4}$"},
    {"type": "string", "minLength": 5, "maxLength": 5},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "email"},
    {"type": "string", "format": "uuid"},
    {"type": "integer", "minimum": 5, "exclusiveMaximum": 7},
    {"type": "integer", "multipleOf": 7, "minimum": 10, "maximum": 30},
    {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    {
        "type": "number",
        "minimum": 0,
        "exclusiveMaximum": True,
        "maximum": 1,
        "$schema": "http://json-schema.org/draft-04/schema#",
    },
    {"enum": ["red", "green", 3]},
    {"const": {"k": [1]}},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 4, "uniqueItems": True},
    {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": False, "minItems": 2},
    {
        "type": "array",
        "items": [{"type": "string"}],
        "additionalItems": False,
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/pos"}, "b": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
        "$defs": {"pos": {"type": "integer", "minimum": 1}},
    },
    {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]},
    {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "null"}}, "required": ["x"]}]},
    {"allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"required": ["b"]}], "type": "object"},
    {"type": "object", "minProperties": 2},
    {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"},
    {"type": "integer", "not": {"const": 0}, "minimum": 0, "maximum": 1},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:40])
def test_every_draw_is_valid_and_the_same_for_the_same_seed(schema: dict[str, Any]) -> None:
    check = compile_validator(schema)
    values = [draw(schema, seed=seed) for seed in range(15)]
    for value in values:
        assert check(value) is None, (schema, value)
    assert values == [draw(schema, seed=seed) for seed in range(15)]


def test_a_pattern_draw_matches_the_pattern_not_just_the_alphabet() -> None:
    drawn = {draw({"type": "string", "pattern": r"^(ab|cd)x{2}\d$"}, seed=s) for s in range(20)}
    assert all(re.fullmatch(r"(ab|cd)xx\d", v) for v in drawn) and len(drawn) > 3


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        (False, "`false`"),
        ({"type": "integer", "minimum": 5, "maximum": 4}, "bounds leave no room"),
        ({"type": "string", "pattern": "^a$", "minLength": 3}, "no valid instance"),
        ({"$ref": "https://example.com/s.json"}, "leaves the document"),
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "no valid instance"),
    ],
)
def test_an_unsatisfiable_schema_is_refused_with_a_reason(schema: Any, reason: str) -> None:
    with pytest.raises(Unsatisfiable, match=re.escape(reason)):
        draw(schema)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_schema_of_the_captures_and_conformance_draws(source: str) -> None:
    for tool in load(source).tools:
        for schema in (tool.input_schema, tool.output_schema):
            if schema is not None:
                for seed in range(5):
                    assert compile_validator(schema)(draw(schema, seed=seed)) is None, tool.name
