"""Generated models accept exactly what the schema accepts: lax coercions, nesting, drafts, results."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pydantic
import pytest
from models_support import Build


class FakeSession:
    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.sent: list[dict[str, Any]] = []

    def know_tools(self, tools: Any) -> None:  # the generated client hands over its catalog
        pass

    async def call_tool(
        self, name: str, arguments: Any = None, *, timeout: Any = None, progress: Any = None
    ) -> dict[str, Any]:
        self.sent.append(dict(arguments or {}))
        return self.reply


def _ok(model: Any, data: Any) -> bool:
    try:
        model.model_validate(data)
        return True
    except pydantic.ValidationError:
        return False


def test_lax_coercions_cannot_sneak_through(build: Build) -> None:
    pkg = build(
        [
            {
                "name": "t",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "i": {"type": "integer"},
                        "s": {"type": "string"},
                        "b": {"type": "boolean"},
                        "n": {"type": "number"},
                        "e": {"enum": [1, "a"]},
                    },
                },
            }
        ]
    )
    m = pkg.models.TArgs
    for bad in (
        {"i": "1"},
        {"i": True},
        {"i": 1.5},
        {"s": 1},
        {"b": 1},
        {"b": "true"},
        {"n": "1.0"},
        {"e": True},
        {"e": "1"},
    ):
        assert not _ok(m, bad), bad
    for good in ({"i": 1}, {"i": 1.0}, {"s": "x"}, {"b": False}, {"n": 2}, {"e": 1.0}, {"e": "a"}):
        assert _ok(m, good), good
    assert m.model_validate({"i": 1.0}).i == 1


def test_constraints_python_types_cannot_say_are_enforced(build: Build) -> None:
    schema = {
        "type": "object",
        "properties": {
            "x": {"type": "integer", "multipleOf": 3, "exclusiveMaximum": 10},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 1},
            "pat": {"type": "string", "pattern": "^a\\d$"},  # ECMA's \d, in RE2: ASCII digits only
            "obj": {"type": "object", "propertyNames": {"maxLength": 2}, "additionalProperties": {"type": "integer"}},
        },
        "dependentRequired": {"x": ["tags"]},
        "additionalProperties": False,
    }
    m = build([{"name": "t", "inputSchema": schema}]).models.TArgs
    assert _ok(m, {"x": 9, "tags": ["a"], "pat": "a1", "obj": {"ab": 1}})
    for bad in (
        {"x": 4, "tags": ["a"]},
        {"x": 12, "tags": ["a"]},
        {"x": 3},
        {"tags": ["a", "a"]},
        {"tags": []},
        {"pat": "cb"},
        {"pat": "a\u0663"},  # ARABIC-INDIC DIGIT THREE: a digit to Python's re, not to ECMA-262
        {"obj": {"abc": 1}},
        {"obj": {"a": "1"}},
        {"extra": 1},
    ):
        assert not _ok(m, bad), bad


def test_nested_models_and_recursive_refs(build: Build) -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "v": {"type": "integer", "minimum": 0},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["v"],
            }
        },
        "properties": {"top": {"$ref": "#/$defs/Node"}},
        "required": ["top"],
    }
    pkg = build([{"name": "tree", "inputSchema": schema}])
    m = pkg.models.TreeArgs
    assert _ok(m, {"top": {"v": 1, "kids": [{"v": 2, "kids": []}]}})
    assert not _ok(m, {"top": {"v": 1, "kids": [{"v": -2}]}})  # deep constraint
    assert not _ok(m, {"top": {"v": 1, "kids": [{"kids": []}]}})  # deep required
    node = pkg.models.TreeArgsNode(v=3)
    s = FakeSession({"content": []})
    asyncio.run(pkg.AsyncClient(s).tree(top=node))
    assert s.sent[-1] == {"top": {"v": 3}}


def test_draft7_semantics_when_schema_says_so(build: Build) -> None:
    # In draft-07 `items: [...]` is the tuple form and $ref siblings are ignored.
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"i": {"type": "integer"}},
        "properties": {
            "pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]},
            "r": {"$ref": "#/definitions/i", "maximum": 0},
        },
    }
    m = build([{"name": "t", "inputSchema": schema}]).models.TArgs
    assert _ok(m, {"pair": [1, "a", None]}) and not _ok(m, {"pair": ["a", 1]})
    assert _ok(m, {"r": 5})  # sibling `maximum` ignored in draft-07


OUT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}


def test_results_strict_warn_off_and_never_on_error(build: Build) -> None:
    pkg = build([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": OUT}])
    bad = {"content": [], "structuredContent": {"n": -1}}
    assert asyncio.run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"n": 2}})).t()).n == 2
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 't': output does not match outputSchema: .*\n.*/n: -1 is less than the minimum of 0 ",
    ):
        asyncio.run(pkg.AsyncClient(FakeSession(bad)).t())
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 't': output does not match outputSchema: .*\n.*/n: '1' is not of type 'integer' ",
    ):  # "1" is not an integer: no lax coercion on output either
        asyncio.run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"n": "1"}})).t())
    c = pkg.AsyncClient(FakeSession(bad), validate_output="warn")
    with pytest.warns(pkg.ToolOutputWarning):
        assert asyncio.run(c.t()) == {"n": -1}
    off = pkg.AsyncClient(FakeSession(bad)).with_options(validate_output="off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert asyncio.run(off.t()).n == -1  # typed, not checked
    err = {"isError": True, "content": [{"type": "text", "text": "boom"}], "structuredContent": {"n": "junk"}}
    with pytest.raises(pkg.ToolError, match=r"^tool 't' failed: boom$"):
        asyncio.run(pkg.AsyncClient(FakeSession(err)).t())
    with pytest.raises(ValueError, match="validate_output must be one of"):
        pkg.AsyncClient(FakeSession(bad), validate_output="sometimes")


def test_wrapped_result_checked_against_declared_schema(build: Build) -> None:
    out = {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}},
        "required": ["result"],
    }
    pkg = build([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": out}])
    assert asyncio.run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"result": [1, 2]}})).t()) == [
        1,
        2,
    ]
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 't': output does not match outputSchema: .*\n.*\(top level\): \[1, 2, 3\] is too long ",
    ):
        asyncio.run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"result": [1, 2, 3]}})).t())


def test_validators_compile_lazily_no_import_side_effects(build: Build) -> None:
    from mcpgen.runtime.core import validation

    pkg = build([{"name": "lazy_tool", "inputSchema": {"type": "object", "properties": {"q": {"const": 7}}}}])
    found = pkg.models._EXACT_SCHEMAS.get("LazyToolArgs")
    assert found is not None
    text = found[0]
    assert text not in validation._compiled
    assert _ok(pkg.models.LazyToolArgs, {"q": 7})
    assert text in validation._compiled
