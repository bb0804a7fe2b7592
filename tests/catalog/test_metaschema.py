"""The flat 2020-12 meta-schema (mcpgen/metaschema.py) gives jsonschema's own verdicts, fast."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator, exceptions

from mcpgen.catalog import metaschema

JSTS = Path(__file__).resolve().parents[1] / "models" / "jsts"

INVALID = [
    {"type": 5},
    {"type": ["string", "strnig"]},
    {"properties": {"a": {"minLength": -1}}},
    {"properties": {"$ref": {"type": "nope"}}},  # a property named like a keyword is still a schema
    {"$defs": {"x": {"enum": "not-an-array"}}},
    {"items": [{"type": "string"}]},  # an array is draft-07 `items`, not 2020-12
    {"prefixItems": {"type": "string"}},
    {"required": ["a", "a"]},
    {"dependentRequired": {"a": [1]}},
    {"allOf": []},
    {"if": {"const": 1}, "then": {"minimum": "1"}},
    {"pattern": "("},
    {"additionalProperties": {"not": {"maxItems": 1.5}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "items": {"type": 3}},
]


def _corpus() -> list[dict[str, Any]]:
    """Every schema of JSTS's 2020-12 tests, and every instance in them that is an object
    (most are not valid schemas: good negatives), plus hand-made invalid ones."""
    found: list[dict[str, Any]] = list(INVALID)
    for path in sorted(JSTS.rglob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for candidate in [group.get("schema")] + [t.get("data") for t in group.get("tests", [])]:
                if isinstance(candidate, dict):
                    found.append(candidate)
    return found


def _verdict(check: Any, schema: dict[str, Any]) -> tuple[Any, ...] | None:
    try:
        check(schema)
    except exceptions.SchemaError as exc:
        return (exc.message, list(exc.path), exc.validator)
    return None


def _reference(schema: dict[str, Any]) -> None:
    from jsonschema import validators

    cls = validators.validator_for(schema, default=Draft202012Validator)
    if cls is Draft202012Validator:  # (`regex` read as mcpgen reads patterns: RE2, then re)
        cls.check_schema(schema, format_checker=metaschema.format_checker())
    else:
        cls.check_schema(schema)


def test_same_verdict_and_message_as_jsonschema_on_every_corpus_schema() -> None:
    corpus = _corpus()
    assert len(corpus) > 500
    verdicts = [(_verdict(_reference, s), _verdict(metaschema.check_schema, s)) for s in corpus]
    assert [v for v in verdicts if v[0] != v[1]] == []
    invalid = sum(1 for ref, _ in verdicts if ref is not None)
    assert invalid >= len(INVALID) and invalid < len(corpus)  # both kinds really were checked


@pytest.mark.parametrize("schema", INVALID, ids=[json.dumps(s)[:40] for s in INVALID])
def test_invalid_schemas_are_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(exceptions.SchemaError, match=r"\n\nFailed validating '\w+' in metaschema"):
        metaschema.check_schema(schema)


def test_flat_meta_schema_has_no_dynamic_or_remote_reference() -> None:
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    refs.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    flat = metaschema.flat_2020_12()
    walk(flat)
    assert refs and all(r.startswith("#") for r in refs)
    Draft202012Validator.check_schema(flat)  # and it is itself a valid schema


def test_other_drafts_are_checked_against_their_own_meta_schema() -> None:
    draft7_tuple_items = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    Draft7Validator.check_schema(draft7_tuple_items)
    metaschema.check_schema(draft7_tuple_items)  # valid in draft-07 ...
    with pytest.raises(exceptions.SchemaError, match=r"^\[\{'type': 'string'\}\] is not of type 'object', 'boolean'\n"):
        metaschema.check_schema({"items": [{"type": "string"}]})  # ... not in 2020-12, the default
