"""Nested model names never counters (mcpgen/models/branch_names.py): union branches and names
that differ only by case are named by their parent and what tells them apart, over hand-made
cases, every group of the JSON Schema Test Suite and the recorded live captures."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import jsts_agreement_lib as lib
import pytest
from models_support import loaded_models

from mcpgen.catalog.build import build_catalog
from mcpgen.models import generate_models
from mcpgen.models.branch_names import BranchNamer, distinguishers
from mcpgen.models.fields import wire_name
from mcpgen.plan.build import build_plan
from mcpgen.plan.naming import RUNTIME_EXPORTS
from mcpgen.plan.types import Plan

LIVE = Path("/work/shared/fixtures/live")


def _classes(tools: list[dict[str, Any]], *, skip_invalid: bool = False) -> tuple[list[str], str, Plan]:
    catalog, problems = build_catalog(tools)
    assert skip_invalid or not problems, problems
    plan = build_plan(catalog, skip_invalid=skip_invalid)
    out, problems = generate_models(plan)
    assert out is not None, problems
    return re.findall(r"^class (\w+)", out.source, re.M), out.source, plan


def _counted(classes: list[str]) -> list[str]:
    """Class names that end in a counter (`Content1`, `Location2`): no nested model name here
    ends in a digit but by DCG's counting (the tools' and properties' names have none)."""
    return [c for c in classes if re.fullmatch(r".*[A-Za-z]\d+", c)]


def _tool(props: dict[str, Any], name: str = "read") -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": props}}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def test_union_branches_are_named_by_the_const_they_pin() -> None:
    text = {**_obj(type={"const": "text"}, text={"type": "string"}), "required": ["type", "text"]}
    image = {**_obj(type={"const": "image"}, data={"type": "string"}), "required": ["type", "data"]}
    classes, _, _ = _classes([_tool({"content": {"type": "array", "items": {"anyOf": [text, image]}}})])
    assert {"ReadArgsContentText", "ReadArgsContentImage"} <= set(classes)
    assert not _counted(classes)


def test_each_rule_in_turn_titles_required_keys_properties_places() -> None:
    titled = [{**_obj(x={"type": "integer"}), "title": t} for t in ("By id", "By name")]
    required = [{**_obj(x={"type": "integer"}, **{k: {"type": "string"}}), "required": [k]} for k in ("id", "name")]
    own = [_obj(id={"type": "string"}), _obj(name={"type": "string"})]
    same = [_obj(x={"type": "integer"}), _obj(x={"type": "string"})]
    assert distinguishers(titled, ["0", "1"]) == ["ById", "ByName"]
    assert distinguishers(required, ["0", "1"]) == ["Id", "Name"]
    assert distinguishers(own, ["0", "1"]) == ["Id", "Name"]
    assert distinguishers(same, ["0", "1"]) == ["First", "Second"]
    # A const with no letters is no name (it would read as a counter): the next rule decides.
    numbered = [{**_obj(v={"const": n}, **{k: {"type": "string"}}), "required": [k]} for n, k in ((1, "a"), (2, "b"))]
    assert distinguishers(numbered, ["0", "1"]) == ["A", "B"]
    classes, _, _ = _classes([_tool({"pick": {"oneOf": same}})])
    assert {"ReadArgsPickFirst", "ReadArgsPickSecond"} <= set(classes)


def test_names_that_differ_only_by_case_get_names_of_their_own() -> None:
    tool = _tool(
        {
            "Location": _obj(a={"type": "string"}),
            "location": _obj(b={"type": "string"}),
            "Items": {"type": "array", "items": _obj(x={"type": "string"})},
            "items": {"type": "array", "items": _obj(y={"type": "string"})},
        }
    )
    classes, source, plan = _classes([tool])
    assert {"ReadArgsLocationA", "ReadArgsLocationB", "ReadArgsItemsX", "ReadArgsItemsY"} <= set(classes)
    assert not _counted(classes)
    # The models still take exactly what the schema does, each property its own class.
    with loaded_models(source, plan) as mod:
        given = {"Location": {"a": "1"}, "location": {"b": "2"}, "Items": [{"x": "3"}], "items": [{"y": "4"}]}
        built = mod.ReadArgs.model_validate(given)
        assert built.model_dump(mode="json", by_alias=True, exclude_unset=True) == given
        of_wire = {info.validation_alias or name: name for name, info in mod.ReadArgs.model_fields.items()}
        assert type(getattr(built, of_wire["location"])).__name__ == "ReadArgsLocationB"
        assert type(getattr(built, of_wire["Location"])).__name__ == "ReadArgsLocationA"
        with pytest.raises(Exception, match="validation error"):
            mod.ReadArgs.model_validate({"location": {"b": 2}})


def test_a_ref_into_a_schema_body_keeps_it_where_it_is() -> None:
    # `#/properties/...` points into the Args schema: moving a branch out would break it.
    branches = [{**_obj(**{k: {"type": "integer"}}), "required": [k]} for k in "xy"]
    tool = _tool({"pick": {"oneOf": branches}})
    tool["inputSchema"]["properties"]["again"] = {"$ref": "#/properties/pick"}
    classes, source, plan = _classes([tool])
    with loaded_models(source, plan) as mod:
        assert mod.ReadArgs.model_validate({"again": {"x": 1}, "pick": {"y": 2}})
        with pytest.raises(Exception, match="does not match the JSON Schema"):
            mod.ReadArgs.model_validate({"again": {"z": 1}})
    # In the document DCG reads: a def another `$ref` reaches into keeps its branches in place.
    pick = {"oneOf": branches}
    defs: dict[str, Any] = {"A": _obj(pick=pick), "B": _obj(again={"$ref": "#/$defs/A/properties/pick"})}
    BranchNamer(defs, {}).name_all()
    assert set(defs) == {"A", "B"} and defs["A"]["properties"]["pick"] == pick
    defs = {"A": _obj(pick=pick)}
    BranchNamer(defs, {}).name_all()
    assert set(defs) == {"A", "APickX", "APickY"}


def _corpus() -> list[dict[str, Any]]:
    """Every group of the JSON Schema Test Suite and every tool of the recorded live captures."""
    tools = [{"name": g.tool, "inputSchema": lib.wrap(g.schema, g.draft)} for g in lib.groups()]
    for capture in sorted(LIVE.glob("*.raw.json")):
        listed = json.loads(capture.read_text())["tools"]["tools"]
        tools += [{**t, "name": f"{capture.name.split('.')[0]}_{t['name']}"} for t in listed]
    return tools


def _field_clashes(source: str) -> tuple[int, list[tuple[str, str, str]]]:
    """(fields, clashes): each model field whose Python name is another field's wire name of
    the same model (with populate_by_name, that wire name would fill the wrong field)."""
    models = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    fields = [[s for s in m.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)] for m in models]
    clashes = [
        (m.name, ast.unparse(f.target), wire_name(g))
        for m, fs in zip(models, fields, strict=True)
        for f in fs
        for g in fs
        if f is not g and ast.unparse(f.target) == wire_name(g)
    ]
    return sum(map(len, fields)), clashes


def test_the_suite_and_the_live_captures_give_no_counter_and_no_runtime_name() -> None:
    classes, source, _ = _classes(_corpus(), skip_invalid=True)
    assert len(classes) > 500
    assert not _counted(classes), _counted(classes)
    assert not set(classes) & RUNTIME_EXPORTS  # what a package re-exports from the runtime
    fields, clashes = _field_clashes(source)
    assert fields > 700 and not clashes, clashes


def _with_twins(schema: Any) -> Any:
    """`schema` with, beside every property `p` of every `properties`, a property `-p`: the same
    snake_case, sorted first (so the old rule gave it `p`'s own name)."""
    if isinstance(schema, list):
        return [_with_twins(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _with_twins(v) for k, v in schema.items()}
    props = out.get("properties")
    if isinstance(props, dict) and all(isinstance(k, str) for k in props):
        out["properties"] = {**props, **{f"-{k}": v for k, v in props.items() if f"-{k}" not in props}}
    return out


@pytest.mark.slow
def test_over_the_corpus_with_a_twin_of_every_property_no_field_is_named_like_a_twins_wire_name() -> None:
    tools = [{**t, "inputSchema": _with_twins(t["inputSchema"])} for t in _corpus()]
    _, source, _ = _classes(tools, skip_invalid=True)
    fields, clashes = _field_clashes(source)
    assert fields > 1000 and not clashes, clashes[:20]


def test_local_defs_that_differ_only_by_case_are_told_apart_too() -> None:
    tool = _tool({"p": {"$ref": "#/$defs/Foo"}, "q": {"$ref": "#/$defs/foo"}})
    tool["inputSchema"]["$defs"] = {"Foo": _obj(a={"type": "string"}), "foo": _obj(b={"type": "string"})}
    classes, source, plan = _classes([tool])
    assert {"ReadArgsFooA", "ReadArgsFooB"} <= set(classes) and not _counted(classes)
    with loaded_models(source, plan) as mod:
        built = mod.ReadArgs.model_validate({"p": {"a": "1"}, "q": {"b": "2"}})
        assert (type(built.p).__name__, type(built.q).__name__) == ("ReadArgsFooA", "ReadArgsFooB")


def test_a_class_beside_a_plain_property_of_its_name_but_for_case_is_named_by_itself() -> None:
    # DCG counts `ReadArgsLocation2` even when the other `Location` is a string.
    location = {**_obj(city={"type": "string"}), "required": ["city"]}
    classes, _, _ = _classes([_tool({"Location": {"type": "string"}, "location": location})])
    assert "ReadArgsLocationCity" in classes and not _counted(classes)
