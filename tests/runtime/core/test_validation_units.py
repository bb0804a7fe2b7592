"""validation.py piece by piece, in process: how problems are worded and bounded, which schemas
the fast path takes or leaves to jsonschema, the generated models' exact check (wire names,
wrapped results, the skip context) and what counts as plain JSON."""

from __future__ import annotations

import json
import math
import sys
import types
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest

from mcpgen.runtime.core import validation
from mcpgen.runtime.core.errors import SchemaMismatch
from mcpgen.runtime.core.exact_schemas import ExactSchemas
from mcpgen.runtime.core.tables import ResultMode
from mcpgen.runtime.core.validation import (
    EXACT_CONTEXT_KEY,
    MAX_PROBLEMS,
    SchemaProblem,
    check_exact,
    check_exact_model,
    compile_problems,
    compile_problems_lazily,
    compile_validator,
    exact_model,
    exact_problems,
    fast_check,
    is_plain_json,
    validate_model,
)

# -- problems: where and why ----------------------------------------------------------------


def test_a_problem_names_its_place_as_a_json_pointer() -> None:
    assert SchemaProblem(("a/b", "c~d", 3), "bad").pointer == "/a~1b/c~0d/3"
    assert str(SchemaProblem(("x",), "bad")) == "/x: bad"
    assert str(SchemaProblem((), "bad")) == "(top level): bad"


def test_each_missing_property_is_its_own_problem_at_its_own_place() -> None:
    found = compile_problems({"type": "object", "required": ["a", "b", "c"]})({"b": 1})
    assert [(p.path, p.message) for p in found] == [
        (("a",), "required, but missing"),
        (("c",), "required, but missing"),
    ]


def test_a_missing_property_below_the_top_is_placed_under_its_parent() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "object", "required": ["q"]}}}
    assert [str(p) for p in compile_problems(schema)({"p": {}})] == ["/p/q: required, but missing"]


def test_a_required_name_that_is_no_string_still_refuses_the_instance() -> None:
    # (a malformed schema, a peer's or an author's: jsonschema refuses the instance, so must the
    # check; it once answered no problem at all, and the instance passed)
    found = compile_problems({"required": [1]})({})
    assert [str(p) for p in found] == ["(top level): 1 is a required property"]
    found = compile_problems({"required": ["a", 1]})({"a": 0})
    assert [str(p) for p in found] == ["(top level): 1 is a required property"]


def test_errors_on_an_object_that_are_no_property_s_are_placed_at_the_object() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "minProperties": 3}
    assert [str(p) for p in compile_problems(schema)({"a": 1, "b": 2})] == [
        "(top level): {'a': 1, 'b': 2} does not have enough properties"
    ]
    schema = {"type": "object", "maxProperties": 1, "additionalProperties": True}
    assert [p.path for p in compile_problems(schema)({"x": 1, "y": 2})] == [()]


def test_the_check_stops_asking_for_problems_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A huge wrong instance costs MAX_PROBLEMS + 1 errors of work, not one per wrong item."""
    pulled: list[Any] = []
    real = validation.linear_validator

    def counting(cls: Any) -> Any:
        made = real(cls)

        class Counting:
            FORMAT_CHECKER = made.FORMAT_CHECKER

            def __init__(self, schema: Any, **kwargs: Any) -> None:
                self.validator = made(schema, **kwargs)

            def iter_errors(self, instance: Any) -> Any:
                for error in self.validator.iter_errors(instance):
                    pulled.append(error)
                    yield error

        return Counting

    monkeypatch.setattr(validation, "linear_validator", counting)
    found = compile_problems({"type": "array", "items": {"type": "string"}})(list(range(1000)))
    assert len(found) == MAX_PROBLEMS + 1
    assert len(pulled) == MAX_PROBLEMS + 1


def test_each_unexpected_property_is_named_up_to_five() -> None:
    schema = {"type": "object", "properties": {"ok": {}}, "additionalProperties": False}
    found = compile_problems(schema)({"ok": 1, **{f"x{i}": i for i in range(7)}})
    assert [p.path for p in found] == [(f"x{i}",) for i in range(5)]
    assert {p.message for p in found} == {"not allowed here (no such property)"}


def test_a_property_a_pattern_allows_is_not_called_unexpected() -> None:
    schema = {"type": "object", "patternProperties": {"^y": {}}, "additionalProperties": False}
    found = compile_problems(schema)({"y1": 1, "z": 2})
    assert [str(p) for p in found] == ["/z: not allowed here (no such property)"]
    assert compile_problems(schema)({"y1": 1, "y2": 2}) == []


def test_an_additional_property_of_the_wrong_kind_is_worded_by_jsonschema() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    assert [str(p) for p in compile_problems(schema)({"a": 1})] == ["/a: 1 is not of type 'string'"]


def test_problems_are_cut_at_the_limit_and_say_so() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    found = compile_problems(schema)(list(range(50)))
    assert len(found) == MAX_PROBLEMS + 1
    assert [p.path for p in found[:MAX_PROBLEMS]] == [(i,) for i in range(MAX_PROBLEMS)]
    assert str(found[-1]) == "(top level): more problems not listed"


def test_exactly_the_limit_of_problems_is_not_cut() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    found = compile_problems(schema)(list(range(MAX_PROBLEMS)))
    assert [p.path for p in found] == [(i,) for i in range(MAX_PROBLEMS)]
    assert MAX_PROBLEMS == 20


def test_one_more_than_the_limit_is_cut() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    found = compile_problems(schema)(list(range(MAX_PROBLEMS + 1)))
    assert len(found) == MAX_PROBLEMS + 1
    assert found[-1].message == "more problems not listed"


def test_a_long_message_is_one_clipped_line() -> None:
    value = "word \n" * 200
    (problem,) = compile_problems({"type": "string", "maxLength": 3})(value)
    assert "\n" not in problem.message and "  " not in problem.message
    assert len(problem.message) == 300 and problem.message.endswith("…")


def test_a_message_of_exactly_the_limit_is_kept_whole() -> None:
    assert validation._clip_text("x" * 300) == "x" * 300
    assert validation._clip_text("x" * 301) == "x" * 299 + "…"
    assert validation._clip_text(" a \t b ") == "a b"


def test_a_long_property_name_is_clipped_in_the_path() -> None:
    name = "n" * 150
    (problem,) = compile_problems({"type": "object", "required": [name]})({})
    assert problem.path == ("n" * 99 + "…",)
    (problem,) = compile_problems({"type": "object", "required": ["n" * 100]})({})
    assert problem.path == ("n" * 100,)


def test_the_path_is_at_most_32_deep() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    value: Any = 1
    for _ in range(40):
        value = [value]
    (problem,) = compile_problems(schema)(value)
    assert problem.path == (0,) * 32


def test_an_instance_too_deep_to_check_is_refused_saying_so() -> None:
    schema = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}
    value: Any = "leaf"
    for _ in range(sys.getrecursionlimit() + 10):
        value = [value]
    found = compile_problems(schema)(value)
    assert [str(p) for p in found] == ["(top level): nested too deeply to check"]


def test_a_reference_outside_the_document_is_never_fetched() -> None:
    (problem,) = compile_problems({"$ref": "https://example.invalid/s.json"})(1)
    assert problem.path == ()
    assert problem.message.startswith("unresolvable reference in the schema: ")
    assert len(problem.message) <= len("unresolvable reference in the schema: ") + 100
    (problem,) = compile_problems({"$ref": "https://example.invalid/" + "x" * 300 + ".json"})(1)
    assert (
        problem.message
        == "unresolvable reference in the schema: " + ("Unresolvable: https://example.invalid/x" + "x" * 100)[:100]
    )


def test_a_valid_instance_has_no_problems_even_where_the_fast_path_cannot_say() -> None:
    schema = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    assert fast_check(schema) is None
    assert compile_problems(schema)("a") == []
    assert compile_problems(schema)(1.5) != []


def test_formats_are_checked_unless_turned_off() -> None:
    schema = {"type": "string", "format": "ipv4"}
    assert compile_problems(schema)("999.1.1.1") != []
    assert compile_problems(schema, formats=False)("999.1.1.1") == []


def test_a_validator_joins_the_problems_one_per_line() -> None:
    check = compile_validator({"type": "object", "required": ["a", "b"]}, formats=False)
    assert check({}) == "/a: required, but missing\n/b: required, but missing"
    assert check({"a": 1, "b": 2}) is None


def test_a_lazy_check_is_compiled_on_its_first_instance_only(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[Any, bool]] = []
    real = validation.compile_problems

    def counting(schema: Any, *, formats: bool = True) -> validation.Problems:
        made.append((schema, formats))
        return real(schema, formats=formats)

    monkeypatch.setattr(validation, "compile_problems", counting)
    check = compile_problems_lazily({"type": "string"}, formats=False)
    assert made == []
    assert check(1) != []
    assert check("a") == []
    assert made == [({"type": "string"}, False)]


# -- the fast path: what it takes, what it leaves -------------------------------------------


@pytest.mark.parametrize(
    "dialect",
    [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-06/schema#",
    ],
)
def test_the_fast_path_takes_the_dialects_that_agree(dialect: str) -> None:
    fast = fast_check({"$schema": dialect, "type": "integer"})
    assert fast is not None and fast(1.0) and not fast(1.5)


def test_the_fast_path_leaves_other_dialects_and_false_schemas() -> None:
    assert fast_check({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}) is None
    assert fast_check({"$schema": "https://example.com/own", "type": "integer"}) is None
    assert fast_check(False) is None
    assert fast_check(3) is None


def test_an_empty_or_true_schema_accepts_everything() -> None:
    for schema in (True, {}, {"title": "t", "description": "d", "x-any": 1, "$comment": "c", "default": 3}):
        fast = fast_check(schema)
        assert fast is not None
        assert all(fast(v) for v in (None, 1, "a", [], {}, True))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": []},
        {"type": "date"},
        {"type": ["string", "date"]},
        {"type": 3},
        {"properties": []},
        {"required": "a"},
        {"required": [1]},
        {"items": [{"type": "string"}]},
        {"enum": "a"},
        {"minimum": True},
        {"maximum": "1"},
        {"minLength": True},
        {"maxItems": 1.5},
        {"pattern": 3},
        {"anyOf": []},
        {"allOf": {}},
        {"oneOf": [{}]},
        {"not": {}},
        {"$ref": "#"},
        {"patternProperties": {"a": {}}, "additionalProperties": False},
        {"properties": {"a": False}},
        {"items": {"type": "nope"}},
        {"type": "object", "properties": []},
        {"type": "object", "required": "a"},
        {"type": "object", "required": [1]},
        {"type": "object", "patternProperties": {"a": {}}, "additionalProperties": False},
        {"type": "object", "patternProperties": {"a": {}}, "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {"a": {"type": "nope"}}},
        {"type": "object", "additionalProperties": {"type": "nope"}},
        {"type": "string", "format": "date"},
    ],
)
def test_the_fast_path_leaves_what_it_does_not_handle(schema: Any) -> None:
    assert fast_check(schema) is None


def test_the_fast_path_leaves_a_pattern_it_cannot_run_in_linear_time() -> None:
    assert fast_check({"type": "string", "pattern": "(a)\\1"}) is None
    fast = fast_check({"type": "string", "pattern": "^a+$"})
    assert fast is not None and fast("aa") and not fast("ab") and fast_check({"pattern": "^a"}) is not None
    assert fast_check({"pattern": "^a"})(3)  # type: ignore[misc]  # (not a string: the pattern says nothing)


def test_formats_are_annotations_for_the_fast_path_when_turned_off() -> None:
    fast = fast_check({"type": "string", "format": "date"}, formats=False)
    assert fast is not None and fast("not a date") and not fast(1)


def test_an_object_schema_is_checked_in_one_pass() -> None:
    fast = fast_check(
        {
            "type": "object",
            "properties": {"s": {"type": "string"}, "n": {"type": "integer", "minimum": 1}, "b": {"type": "boolean"}},
            "required": ["s"],
            "additionalProperties": {"type": "number"},
        }
    )
    assert fast is not None
    assert fast({"s": "a", "n": 2, "b": False, "extra": 1.5})
    assert not fast({"s": 1})  # the isinstance path
    assert not fast({"s": "a", "n": 0})  # the predicate path
    assert not fast({"s": "a", "n": True})
    assert not fast({"s": "a", "b": 0})  # a bool property takes no int
    assert not fast({"s": "a", "extra": "x"})  # the additional schema
    assert not fast({"n": 2})
    assert not fast(["s"])


def test_an_open_object_takes_any_other_property() -> None:
    for additional in ({}, {"additionalProperties": True}):
        fast = fast_check({"type": "object", "properties": {"a": {"type": "string"}}, **additional})
        assert fast is not None and fast({"a": "x", "b": 1}) and not fast({"a": 1})


def test_a_closed_object_takes_only_its_properties() -> None:
    fast = fast_check({"type": "object", "properties": {"a": {}}, "additionalProperties": False})
    assert fast is not None and fast({"a": 1}) and not fast({"a": 1, "b": 2}) and fast({})


def test_the_object_keywords_without_type_object_are_checked_one_by_one() -> None:
    fast = fast_check(
        {"properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": {"type": "integer"}}
    )
    assert fast is not None
    assert fast({"a": "x", "b": 1}) and fast("not an object") and fast([1])
    assert not fast({"a": 1}) and not fast({}) and not fast({"a": "x", "b": "y"})
    closed = fast_check({"properties": {"a": {}}, "additionalProperties": False})
    assert closed is not None and closed({"a": 1}) and not closed({"b": 1}) and closed(3)
    assert fast_check({"additionalProperties": True}) is not None


def test_a_multi_keyword_schema_needs_every_keyword() -> None:
    fast = fast_check({"type": "integer", "minimum": 0, "maximum": 10, "exclusiveMaximum": 10})
    assert fast is not None
    assert fast(0) and fast(9) and fast(9.0)
    assert not fast(10) and not fast(-1) and not fast(1.5) and not fast("1")


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"minimum": 2}, [2, 2.0, 3, "x"], [1, 1.9]),
        ({"maximum": 2}, [2, 1, "x"], [3, 2.1]),
        ({"exclusiveMinimum": 2}, [3, 2.1, None], [2, 1]),
        ({"exclusiveMaximum": 2}, [1, 1.9, []], [2, 3]),
        ({"minLength": 2}, ["ab", "abc", 1], ["a", ""]),
        ({"maxLength": 2}, ["ab", "", 123], ["abc"]),
        ({"minItems": 1}, [[1], "x"], [[]]),
        ({"maxItems": 1}, [[1], [], {}], [[1, 2]]),
        ({"minProperties": 1}, [{"a": 1}, []], [{}]),
        ({"maxProperties": 1}, [{"a": 1}, [1, 2]], [{"a": 1, "b": 2}]),
        ({"const": 1}, [1, 1.0], [True, "1", 2]),
        ({"const": {"a": [1]}}, [{"a": [1.0]}], [{"a": [1], "b": 1}, {"a": [True]}, {"b": [1]}]),
        ({"enum": [None, "a", [1, 2]]}, [None, "a", [1, 2]], [False, 0, "b", [1], [2, 1]]),
        ({"enum": [False]}, [False], [0, None, 0.0]),
        ({"enum": [1]}, [1.0], [True, [1], {"1": 1}]),
        ({"type": ["string", "null"]}, ["a", None], [1, False]),
        ({"type": "number"}, [1, 1.5], [True, "1"]),
        ({"type": "integer"}, [1, 2.0], [True, 1.5]),
        ({"type": "null"}, [None], [0, False]),
        ({"type": "array", "items": {"type": "integer"}}, [[], [1, 2]], [[1, "a"], {}]),
        ({"items": {"type": "integer"}}, [{}, [1]], [["a"]]),
        ({"anyOf": [{"type": "string"}, {"minimum": 5}]}, ["a", 6], [4]),
        ({"allOf": [{"type": "integer"}, {"minimum": 5}]}, [6], [4, "a"]),
    ],
)
def test_each_keyword_the_fast_path_takes(schema: Any, good: list[Any], bad: list[Any]) -> None:
    fast = fast_check(schema)
    assert fast is not None
    assert [v for v in good if not fast(v)] == []
    assert [v for v in bad if fast(v)] == []


def test_json_equality_is_the_schema_s() -> None:
    eq = validation._equal
    assert eq(1, 1.0) and eq(True, True) and not eq(True, 1) and not eq(1, True) and not eq(False, 0)
    assert eq("a", "a") and not eq("a", "b") and not eq("1", 1) and not eq(1, "1")
    assert eq({"a": 1}, {"a": 1.0}) and not eq({"a": 1}, {"b": 1}) and not eq({"a": 1}, {"a": 2})
    assert not eq({"a": 1}, [1]) and not eq([1], {"a": 1})
    assert eq([1, [2]], [1.0, [2]]) and not eq([1], [1, 1]) and not eq([1, 2], [2, 1]) and not eq([1], (1,))
    assert eq(None, None) and not eq(None, 0) and not eq(0, None)
    assert not eq(object(), object())


# -- the generated models' exact check ------------------------------------------------------


def test_the_compiled_check_is_shared_by_equal_schema_texts() -> None:
    text = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}, "x-shared": "unit"})
    assert exact_problems(text) is exact_problems(text)
    fast = validation._fast_exact[text]
    assert fast is not None and fast({"a": 1}) and not fast({"a": "1"})
    none = json.dumps({"oneOf": [{"type": "string"}], "x-shared": "unit"})
    exact_problems(none)
    assert none in validation._fast_exact and validation._fast_exact[none] is None


def test_formats_are_annotations_in_the_models_check() -> None:
    assert exact_problems(json.dumps({"type": "string", "format": "ipv4", "x-u": 1}))("999.1.1.1") == []


def test_check_exact_refuses_the_raw_instance_with_every_problem() -> None:
    text = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n", "m"]})
    with pytest.raises(SchemaMismatch, match="/n: '1' is not of type 'integer'") as caught:
        check_exact(text, {"n": "1"})
    assert [str(p) for p in caught.value.problems] == ["/n: '1' is not of type 'integer'", "/m: required, but missing"]
    assert check_exact(text, {"n": 1, "m": 0}) == {"n": 1, "m": 0}


def test_check_exact_hands_back_plain_data() -> None:
    text = json.dumps({"type": "object", "properties": {"t": {"type": "array"}}})
    out = check_exact(text, {"t": (1, 2)})
    assert out == {"t": [1, 2]} and type(out["t"]) is list


def test_a_wrapped_result_is_checked_wrapped_and_its_problems_placed_in_the_value() -> None:
    text = json.dumps(
        {
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
            "required": ["result"],
        }
    )
    assert check_exact(text, [1, 2], wrap="result") == [1, 2]
    with pytest.raises(SchemaMismatch, match="/1: 'x' is not of type 'integer'") as caught:
        check_exact(text, [1, "x"], wrap="result")
    assert [p.path for p in caught.value.problems] == [(1,)]
    with pytest.raises(SchemaMismatch, match="is not of type 'array'") as caught:
        check_exact(text, "x", wrap="result")
    assert [p.path for p in caught.value.problems] == [()]


def test_a_problem_outside_the_wrapped_value_keeps_its_place() -> None:
    text = json.dumps({"type": "object", "properties": {"result": {}}, "required": ["result", "other"]})
    with pytest.raises(SchemaMismatch, match="other") as caught:
        check_exact(text, 1, wrap="result")
    assert [p.path for p in caught.value.problems] == [("other",)]


@pytest.mark.parametrize("context", [{EXACT_CONTEXT_KEY: False}, types.MappingProxyType({EXACT_CONTEXT_KEY: False})])
def test_the_skip_context_skips_the_check(context: Any) -> None:
    text = json.dumps({"type": "integer"})
    assert check_exact(text, "x", context) == "x"


@pytest.mark.parametrize(
    "context",
    [None, {}, {EXACT_CONTEXT_KEY: True}, {EXACT_CONTEXT_KEY: 0}, types.MappingProxyType({}), ["mcpgen_exact"]],
)
def test_any_other_context_checks(context: Any) -> None:
    with pytest.raises(SchemaMismatch, match="is not of type 'integer'"):
        check_exact(json.dumps({"type": "integer"}), "x", context)


class Inner(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    from_: int = pydantic.Field(alias="from")


class Plain(pydantic.BaseModel):
    a: int = 0


class Outer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    kind: str = pydantic.Field(alias="type")
    inner: list[Inner] | None = None


class Flat(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    kind: str = pydantic.Field(alias="type")
    plain: Plain | None = None
    count: int = 0


class UsersOuter(Outer):
    """A user's subclass of a generated model: checked by its parent's schema."""


def test_a_model_is_returned_as_it_is() -> None:
    model = Plain(a=1)
    assert check_exact(json.dumps({"type": "string"}), model) is model


def test_plain_dumps_models_by_wire_name_leaving_unset_fields_out() -> None:
    plain = validation._plain
    assert plain({"x": (Flat(type="t", plain=Plain()), 1.5, None)}) == {"x": [{"type": "t", "plain": {}}, 1.5, None]}
    assert plain(Flat(type="t", count=2)) == {"type": "t", "count": 2}
    odd = object()
    assert plain(odd) is odd and plain("s") == "s"


def test_only_a_pydantic_model_counts_as_a_model() -> None:
    is_model = validation._is_model
    assert is_model(Plain())
    assert not is_model({"model_dump": 1}) and not is_model([]) and not is_model(1)

    class Dumps:
        def model_dump(self) -> dict[str, Any]:
            return {}

    assert not is_model(Dumps())  # no model_fields on its class


@dataclass(frozen=True)
class Row:
    args: str
    result: str | None = None
    mode: ResultMode = ResultMode.CONTENT


def _schemas(
    input_schema: dict[str, Any], output: dict[str, Any] | None = None, *, wrapped: bool = False
) -> ExactSchemas:
    tool: dict[str, Any] = {"name": "t", "inputSchema": input_schema}
    if output is not None:
        tool["outputSchema"] = output
    mode = ResultMode.WRAPPED_MODEL if wrapped else ResultMode.MODEL
    return ExactSchemas([json.dumps(tool)], {"t": Row("Outer", "Flat" if output is not None else None, mode)})


OUTER_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "inner": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "integer"}}}},
    },
    "required": ["type"],
    "additionalProperties": False,
}


def test_exact_model_reads_the_wire_names_once_per_class() -> None:
    schemas = _schemas(OUTER_SCHEMA)
    found = exact_model(Outer, schemas)
    assert found is not None
    assert found.wire_of == {"kind": "type"}
    assert found.wires == {"type", "inner"}
    assert found.renames_below is True  # Inner renames from_
    assert found.wrap is None
    assert found.schema_json == json.dumps(OUTER_SCHEMA, separators=(",", ":"))
    assert exact_model(Outer, _schemas({"type": "integer"})) is found  # kept per class


def test_a_user_subclass_is_checked_by_its_generated_parent() -> None:
    found = exact_model(UsersOuter, _schemas(OUTER_SCHEMA))
    assert found is not None and found.wire_of == {"kind": "type"}
    with pytest.raises(SchemaMismatch, match="/inner/0/from: 'x' is not of type 'integer'"):
        check_exact_model(UsersOuter, {"kind": "k", "inner": [{"from": "x"}]}, None, _schemas(OUTER_SCHEMA))


def test_a_class_that_is_no_tool_s_model_is_not_checked() -> None:
    class Other(pydantic.BaseModel):
        a: int

    assert exact_model(Other, _schemas(OUTER_SCHEMA)) is None
    assert check_exact_model(Other, {"a": "not checked"}, None, _schemas(OUTER_SCHEMA)) == {"a": "not checked"}


def test_a_wrapped_result_model_knows_its_wrapper() -> None:
    class Flat2(Flat):
        pass

    schemas = ExactSchemas(
        [json.dumps({"name": "t", "inputSchema": {}, "outputSchema": {"type": "object"}})],
        {"t": Row("Args", "Flat2", ResultMode.WRAPPED_MODEL)},
    )
    found = exact_model(Flat2, schemas)
    assert found is not None and found.wrap == "result" and found.renames_below is False
    assert found.wire_of == {"kind": "type"} and found.wires == {"type", "plain", "count"}


def test_by_wire_name_keys_python_names_by_wire_names_and_the_wire_name_wins() -> None:
    found = exact_model(Outer, _schemas(OUTER_SCHEMA))
    assert found is not None
    assert found.by_wire_name({"kind": "a", "inner": []}) == {"type": "a", "inner": []}
    assert found.by_wire_name({"kind": "python", "type": "wire"}) == {"type": "wire"}
    assert found.by_wire_name({"type": "wire", "kind": "python"}) == {"type": "wire"}
    assert found.by_wire_name({"other": 1}) == {"other": 1}
    assert found.by_wire_name(["kind"]) == ["kind"]


def test_no_renames_leaves_the_data_as_it_is() -> None:
    class NoRename(pydantic.BaseModel):
        a: int

    schemas = ExactSchemas([json.dumps({"name": "t", "inputSchema": {"type": "object"}})], {"t": Row("NoRename")})
    found = exact_model(NoRename, schemas)
    assert found is not None and found.wire_of == {} and found.renames_below is False
    data = {"a": 1}
    assert found.by_wire_name(data) is data
    assert found.check_plain(data) is data


def test_check_plain_takes_wire_names_and_refuses_with_the_problems() -> None:
    schemas = _schemas(OUTER_SCHEMA)
    found = exact_model(Outer, schemas)
    assert found is not None
    assert found.check_plain({"kind": "a"}) == {"type": "a"}
    with pytest.raises(SchemaMismatch, match="/extra: not allowed here"):
        found.check_plain({"kind": "a", "extra": 1})
    # Once the check compiled, the fast predicate answers first: the same verdicts.
    assert validation._fast_exact.get(found.schema_json) is not None
    assert found.check_plain({"kind": "b", "inner": [{"from": 1}]}) == {"type": "b", "inner": [{"from": 1}]}
    with pytest.raises(SchemaMismatch, match="required, but missing"):
        found.check_plain({})


def test_check_plain_of_a_wrapped_result_checks_it_wrapped() -> None:
    class Wrapped(pydantic.BaseModel):
        result: list[int]

    text = {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}}}
    schemas = ExactSchemas(
        [json.dumps({"name": "t", "inputSchema": {}, "outputSchema": text})],
        {"t": Row("Args", "Wrapped", ResultMode.WRAPPED_ROOT)},
    )
    found = exact_model(Wrapped, schemas)
    assert found is not None and found.wrap == "result"
    with pytest.raises(SchemaMismatch, match="/0: 'x' is not of type 'integer'"):
        found.check_plain(["x"])  # compiles the check (and its fast predicate)
    assert found.check_plain([1, 2]) == [1, 2]
    with pytest.raises(SchemaMismatch, match="/0: 'x' is not of type 'integer'"):
        found.check_plain(["x"])  # the fast predicate said no: the whole check words it


def test_check_exact_model_skips_models_and_the_skip_context() -> None:
    schemas = _schemas(OUTER_SCHEMA)
    model = Plain()
    assert check_exact_model(Outer, model, None, schemas) is model
    assert check_exact_model(Outer, {"bad": 1}, {EXACT_CONTEXT_KEY: False}, schemas) == {"bad": 1}
    assert check_exact_model(Outer, {"kind": "a", "inner": ({"from": 1},)}, {}, schemas) == {
        "type": "a",
        "inner": [{"from": 1}],
    }


def test_renames_below_finds_a_rename_at_any_depth_and_ends_on_cycles() -> None:
    class Deep(pydantic.BaseModel):
        rows: dict[str, list[Outer]] = {}

    class Loop(pydantic.BaseModel):
        next: Loop | None = None
        plain: Plain | None = None

    Loop.model_rebuild()
    assert validation._renames_below(Deep, {Deep}) is True
    assert validation._renames_below(Loop, {Loop}) is False
    assert validation._renames_below(Flat, {Flat}) is False  # renames only at the top
    assert validation._renames_below(object(), set()) is False
    assert validation._wire_names(object) == {}


class Later(pydantic.BaseModel):
    child: Later2 | None = None  # (defined below: Later is deferred until its first validation)


class Later2(pydantic.BaseModel):
    n: int


def test_validate_model_builds_a_deferred_model_on_its_first_call() -> None:
    assert Later.__pydantic_complete__ is False
    got = validate_model(Later, {"child": {"n": 1}}, {})
    assert isinstance(got, Later) and got.child is not None and got.child.n == 1
    assert Later.__pydantic_complete__ is True
    assert isinstance(validate_model(Later, {}, {}), Later)
    with pytest.raises(pydantic.ValidationError, match="n"):
        validate_model(Later2, {"n": "x"}, {})


# -- plain JSON -----------------------------------------------------------------------------


def test_plain_json_is_what_goes_on_the_wire() -> None:
    assert is_plain_json({"a": [1, 2.5, "s", True, None, {"b": []}]})
    for leaf in ("s", 1, True, None, 1.5, 0.0):
        assert is_plain_json(leaf)
        assert is_plain_json([leaf]) and is_plain_json({"k": leaf})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_the_infinities_are_no_json_at_any_depth(bad: float) -> None:
    assert not is_plain_json(bad)
    assert not is_plain_json([bad])
    assert not is_plain_json({"a": [1, {"b": bad}]})


def test_a_tuple_model_key_or_subclass_is_no_plain_json() -> None:
    class Text(str):
        pass

    assert not is_plain_json((1,))
    assert not is_plain_json([(1,)])
    assert not is_plain_json({1: "a"})
    assert not is_plain_json({"a": (1,)})
    assert not is_plain_json(Text("a"))
    assert not is_plain_json([Text("a")])
    assert not is_plain_json(Plain())
    assert not is_plain_json({"a": Plain()})


def test_plain_json_deeper_than_64_levels_counts_as_no() -> None:
    def nested(levels: int) -> Any:
        value: Any = []
        for _ in range(levels - 1):
            value = [value]
        return value

    assert is_plain_json(nested(64))
    assert not is_plain_json(nested(65))
    as_dicts: Any = {}
    for _ in range(63):
        as_dicts = {"a": as_dicts}
    assert is_plain_json(as_dicts)
    assert not is_plain_json({"a": as_dicts})


def test_a_wrapped_result_is_never_taken_for_the_wrapper_by_the_fast_check() -> None:
    # The value is an object with a "result" field of its own: checked bare against the wrapper's
    # schema it would pass; checked wrapped, as it travels, its "result" is no integer.
    class Doubled(pydantic.BaseModel):
        result: Any

    value = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}
    wrapper = {"type": "object", "properties": {"result": value}, "required": ["result"]}
    schemas = ExactSchemas(
        [json.dumps({"name": "t", "inputSchema": {}, "outputSchema": wrapper})],
        {"t": Row("Args", "Doubled", ResultMode.WRAPPED_MODEL)},
    )
    found = exact_model(Doubled, schemas)
    assert found is not None
    assert found.check_plain({"result": 1}) == {"result": 1}  # (compiles the check and its fast predicate)
    assert validation._fast_exact[found.schema_json] is not None
    with pytest.raises(SchemaMismatch, match="/result: .* is not of type 'integer'"):
        found.check_plain({"result": {"result": 1}})


class Parent(pydantic.BaseModel):
    a: int = 0


class Child(Parent):
    b: int = 0


def test_a_generated_model_that_extends_another_is_checked_by_its_own_schema() -> None:
    tools = [
        json.dumps({"name": "p", "inputSchema": {"type": "object", "required": ["a"]}}),
        json.dumps({"name": "c", "inputSchema": {"type": "object", "required": ["b"]}}),
    ]
    schemas = ExactSchemas(tools, {"p": Row("Parent"), "c": Row("Child")})
    found = exact_model(Child, schemas)
    assert found is not None and json.loads(found.schema_json) == {"type": "object", "required": ["b"]}
    with pytest.raises(SchemaMismatch, match="/b: required, but missing"):
        check_exact_model(Child, {"a": 1}, None, schemas)


class Start(pydantic.BaseModel):
    a: CycleA | None = None


class CycleA(pydantic.BaseModel):
    b: CycleB | None = None


class CycleB(pydantic.BaseModel):
    a: CycleA | None = None


for _model in (CycleB, CycleA, Start):
    _model.model_rebuild()  # (the annotations are classes now, not forward references)


def test_renames_below_ends_on_a_cycle_below_the_top() -> None:
    assert CycleB.model_fields["a"].annotation == CycleA | None
    assert validation._renames_below(Start, {Start}) is False


def test_a_failure_inside_anyof_is_explained_by_its_best_match() -> None:
    # jsonschema's best match descends into the variant: the wrong property is named at its place.
    schema = {"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}]}
    assert [str(p) for p in compile_problems(schema)({"a": "x"})] == ["/a: 'x' is not of type 'integer'"]


def test_a_lazy_check_checks_formats_unless_told_not_to() -> None:
    schema = {"type": "string", "format": "ipv4"}
    assert compile_problems_lazily(schema)("999.1.1.1") != []
    assert compile_problems_lazily(schema, formats=False)("999.1.1.1") == []


def test_the_models_fast_path_takes_a_schema_with_formats() -> None:
    # Formats are annotations in the models' check, so they keep the fast path too.
    text = json.dumps({"type": "string", "format": "date", "x-fast": "formats"})
    exact_problems(text)
    fast = validation._fast_exact[text]
    assert fast is not None and fast("not a date") and not fast(1)


def test_a_validator_checks_formats_unless_told_not_to() -> None:
    schema = {"type": "string", "format": "ipv4"}
    assert compile_validator(schema)("999.1.1.1") is not None
    assert compile_validator(schema, formats=False)("999.1.1.1") is None


class SentAs(pydantic.BaseModel):
    kind: str = pydantic.Field(serialization_alias="type")  # (sent as "type", read as "kind")


def test_a_field_sent_under_another_name_counts_as_renamed() -> None:
    assert validation._wire_names(SentAs) == {"kind": "type"}
    assert validation._wire_names(Flat) == {"kind": "type"}
