"""The fast JSON Schema pre-check (validation.fast_check) never calls valid what jsonschema rejects,
on the whole JSON Schema Test Suite (draft 2020-12 and draft 7), and it answers the common tool
schemas on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen.runtime.core.patterns import linear_validator
from mcpgen.runtime.core.validation import compile_validator, fast_check

JSTS = Path(__file__).resolve().parents[2] / "models" / "jsts"


def _cases() -> list[tuple[str, Any, list[dict[str, Any]]]]:
    out = []
    for draft in sorted(p for p in JSTS.iterdir() if p.is_dir()):
        for path in sorted(draft.glob("*.json")):
            for group in json.loads(path.read_text()):
                out.append((f"{draft.name}/{path.stem}: {group['description']}", group["schema"], group["tests"]))
    return out


CASES = _cases()


def test_the_suite_is_there() -> None:
    assert len(CASES) > 100


@pytest.mark.parametrize("formats", [False, True])
def test_fast_check_is_sound_on_the_test_suite(formats: bool) -> None:
    compiled = 0
    for name, schema, tests in CASES:
        fast = fast_check(schema, formats=formats)
        if fast is None:
            continue
        compiled += 1
        # (jsonschema as the runtime runs it: its patterns in RE2, with ECMA-262's meaning)
        cls = linear_validator(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))
        kwargs: dict[str, Any] = {"format_checker": cls.FORMAT_CHECKER} if formats else {}
        validator = cls(schema, **kwargs)
        for test in tests:
            if fast(test["data"]):
                assert validator.is_valid(test["data"]), f"{name}: {test['description']}"
    assert compiled > 50  # the common keywords are covered


def test_common_tool_schemas_compile_and_answer_alone() -> None:
    schema = {
        "type": "object",
        "title": "echoArguments",
        "properties": {
            "text": {"type": "string", "minLength": 1, "title": "Text"},
            "count": {"type": "integer", "minimum": 0, "default": 1},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "required": ["text"],
        "additionalProperties": False,
        "x-mcp-header": {},
    }
    fast = fast_check(schema)
    assert fast is not None
    assert fast({"text": "hi", "count": 2.0, "mode": "a", "tags": ["x"], "ratio": None})
    for bad in (
        {},
        {"text": ""},
        {"text": "hi", "count": True},
        {"text": "hi", "mode": "c"},
        {"text": "hi", "extra": 1},
    ):
        assert not fast(bad)
    check = compile_validator(schema)
    assert check({"text": "hi"}) is None
    assert check({"text": "hi", "count": -1}) == "/count: -1 is less than the minimum of 0"


def test_what_the_fast_path_leaves_to_jsonschema() -> None:
    assert fast_check({"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}) is None
    assert fast_check({"type": "string", "format": "date-time"}) is None
    assert fast_check({"type": "string", "format": "date-time"}, formats=False) is not None
    assert fast_check({"oneOf": [{"type": "string"}]}) is None
    assert fast_check({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}) is None
