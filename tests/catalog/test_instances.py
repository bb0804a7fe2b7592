"""mcpgen.catalog.instances: every instance it returns is checked, the same seed draws the same
instances, what cannot be satisfied raises Unsatisfiable, and hostile schemas cost bounded work."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from mcpgen.catalog.instances import InstanceGenerator, InstanceLimits, Unsatisfiable

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 3, "maximum": 5},
            "b": {"type": "string", "pattern": "^a+$"},
        },
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D"}},
        "$defs": {"D": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]}},
        "required": ["x"],
    },
    {"type": "array", "items": {"enum": [1, 2, 3]}, "uniqueItems": True, "minItems": 2},
    {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 1, "maximum": 4},
    {"type": "string", "format": "date-time"},
    {"allOf": [{"type": "integer"}, {"minimum": 2}, {"maximum": 9}]},
    {"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 3}]},
    {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "boolean"}},
    {"type": "array", "prefixItems": [{"const": "head"}, {"type": "integer"}], "items": False},
    {"type": "object", "minProperties": 2, "additionalProperties": {"type": "integer"}},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_valid_and_invalid_instances_are_checked(schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    gen = InstanceGenerator(schema, seed=7)
    valid, invalid = gen.valid_many(5), gen.invalid_many(5)
    assert valid and invalid, (valid, invalid)
    assert all(validator.is_valid(v) for v in valid), valid
    assert not any(validator.is_valid(v) for v in invalid), invalid


def test_the_same_seed_draws_the_same_instances() -> None:
    schema = SCHEMAS[0]
    first = InstanceGenerator(schema, seed=3).valid_many(5)
    assert first == InstanceGenerator(schema, seed=3).valid_many(5)
    assert InstanceGenerator(schema, seed=3).invalid_many(5) == InstanceGenerator(schema, seed=3).invalid_many(5)
    # Different seeds explore differently (not a guarantee per schema, but for this one they do).
    assert any(InstanceGenerator(schema, seed=s).valid_many(5) != first for s in range(4, 8))


def test_variety_within_one_generator() -> None:
    values = InstanceGenerator({"type": "integer", "minimum": 0, "maximum": 100}, seed=1).valid_many(10)
    assert len(values) == 10 and len(set(values)) == 10


@pytest.mark.parametrize(
    "schema",
    [
        False,
        {"not": {}},
        {"allOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "integer", "minimum": 3, "maximum": 1},
    ],
)
def test_unsatisfiable_schemas_raise_unsatisfiable(schema: Any) -> None:
    gen = InstanceGenerator(schema, seed=0, limits=InstanceLimits(attempts=20))
    with pytest.raises(
        Unsatisfiable, match=r"^(no valid instance in 20 draws: |the schema is `false`: no instance is valid$)"
    ):
        gen.valid()
    assert gen.valid_many(3) == []


def test_refs_stay_inside_the_document() -> None:
    # A ref to a file or URL is never followed: the drawing treats it as a dead end.
    gen = InstanceGenerator({"$ref": "https://example.com/schema.json"}, seed=0, limits=InstanceLimits(attempts=5))
    with pytest.raises(Unsatisfiable, match="no valid instance in"):
        gen.valid()


def test_hostile_schemas_cost_bounded_work() -> None:
    self_ref: dict[str, Any] = {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}
    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(200):
        deep = {"type": "array", "items": deep, "minItems": 1}
    wide = {"type": "array", "items": {"type": "string", "minLength": 10**6}, "minItems": 10**6}
    for schema in (self_ref, deep):
        with pytest.raises(Unsatisfiable, match="no valid instance in"):
            InstanceGenerator(schema, seed=0, limits=InstanceLimits(attempts=10)).valid()
    with pytest.raises(Unsatisfiable, match="no valid instance in"):
        # A million strings of a million characters would be a terabyte: the limits refuse it.
        InstanceGenerator(wide, seed=0, limits=InstanceLimits(attempts=3)).valid()


def test_a_schema_that_accepts_everything_has_no_invalid_instances() -> None:
    assert InstanceGenerator({}, seed=0).invalid_many(3) == []
    assert InstanceGenerator(True, seed=0).invalid_many(3) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"oneOf": [{"const": None}, {"type": "boolean"}]},
        {"enum": ["a", "b", None]},
    ],
    ids=["type-list", "anyOf", "oneOf-const", "enum"],
)
def test_a_nullable_value_is_drawn_as_null_now_and_then_not_every_other_time(schema: dict[str, Any]) -> None:
    gen = InstanceGenerator(schema, seed=1)
    draws = [gen.valid() for _ in range(500)]
    share = draws.count(None) / len(draws)
    assert 0.1 <= share <= 0.3, share  # (about NULL_SHARE, 0.2; picked like the others it was 0.33 to 0.5)
    assert any(d is not None for d in draws)


def test_a_schema_that_allows_only_null_still_draws_null() -> None:
    for schema in ({"type": ["null"]}, {"anyOf": [{"type": "null"}]}, {"enum": [None]}):
        assert InstanceGenerator(schema, seed=2).valid() is None
