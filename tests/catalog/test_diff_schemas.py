"""`mcpgen diff` on one argument's (and one result field's) schema, keyword by keyword: the exact
changes it reports, with their class. The same edit is breaking on one side and compatible on
the other: an input that accepts less breaks callers, an output that may send more breaks
readers. Variants (anyOf/oneOf), exclusive bounds, uniqueItems and boolean schemas included."""

from __future__ import annotations

from typing import Any

import pytest

from mcpgen.catalog.diff import Change, diff_tools, fails, format_table, summary

# (old schema of x, new schema of x, [(kind, breaking as an input, where below x, detail)])
Row = tuple[str, bool, str, str]
NARROWED, WIDENED = True, False  # breaking as an input; the other way round as an output
CASES: dict[str, tuple[Any, Any, list[Row]]] = {
    "exclusiveMaximum lowered": (
        {"exclusiveMaximum": 5},
        {"exclusiveMaximum": 4},
        [("constraint_tightened", NARROWED, "/exclusiveMaximum", "exclusiveMaximum 5 -> 4")],
    ),
    "exclusiveMaximum raised": (
        {"exclusiveMaximum": 5},
        {"exclusiveMaximum": 6},
        [("constraint_loosened", WIDENED, "/exclusiveMaximum", "exclusiveMaximum 5 -> 6")],
    ),
    "exclusiveMinimum raised": (
        {"exclusiveMinimum": 0},
        {"exclusiveMinimum": 1},
        [("constraint_tightened", NARROWED, "/exclusiveMinimum", "exclusiveMinimum 0 -> 1")],
    ),
    "exclusiveMinimum added": (
        {},
        {"exclusiveMinimum": 0},
        [("constraint_tightened", NARROWED, "/exclusiveMinimum", "exclusiveMinimum None -> 0")],
    ),
    "maxLength lowered": (
        {"maxLength": 9},
        {"maxLength": 8},
        [("constraint_tightened", NARROWED, "/maxLength", "maxLength 9 -> 8")],
    ),
    "minLength lowered": (
        {"minLength": 2},
        {"minLength": 1},
        [("constraint_loosened", WIDENED, "/minLength", "minLength 2 -> 1")],
    ),
    "minimum lowered": (
        {"minimum": 2},
        {"minimum": 1.5},
        [("constraint_loosened", WIDENED, "/minimum", "minimum 2 -> 1.5")],
    ),
    "maxItems raised": (
        {"maxItems": 2},
        {"maxItems": 3},
        [("constraint_loosened", WIDENED, "/maxItems", "maxItems 2 -> 3")],
    ),
    "maximum removed": ({"maximum": 9}, {}, [("constraint_loosened", WIDENED, "/maximum", "maximum 9 -> None")]),
    "minItems raised": (
        {"minItems": 1},
        {"minItems": 2},
        [("constraint_tightened", NARROWED, "/minItems", "minItems 1 -> 2")],
    ),
    "maxProperties lowered": (
        {"maxProperties": 3},
        {"maxProperties": 2},
        [("constraint_tightened", NARROWED, "/maxProperties", "maxProperties 3 -> 2")],
    ),
    "minProperties lowered": (
        {"minProperties": 3},
        {"minProperties": 2},
        [("constraint_loosened", WIDENED, "/minProperties", "minProperties 3 -> 2")],
    ),
    "draft-4 boolean exclusiveMaximum is not a bound": (
        {"maximum": 3, "exclusiveMaximum": True},
        {"maximum": 3, "exclusiveMaximum": False},
        [],
    ),
    "a bound that is not a number is not compared": ({"minimum": "1"}, {"minimum": 2}, []),
    "uniqueItems required": (
        {"type": "array"},
        {"type": "array", "uniqueItems": True},
        [("constraint_tightened", NARROWED, "/uniqueItems", "items must be unique now")],
    ),
    "uniqueItems dropped": (
        {"type": "array", "uniqueItems": True},
        {"type": "array", "uniqueItems": False},
        [("constraint_loosened", WIDENED, "/uniqueItems", "items need not be unique now")],
    ),
    "uniqueItems false and absent say the same": ({"type": "array", "uniqueItems": False}, {"type": "array"}, []),
    "anyOf variant removed": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string"}]},
        [("variant_removed", NARROWED, "/anyOf", "1 anyOf variant removed")],
    ),
    "oneOf variants added": (
        {"oneOf": [{"type": "string"}]},
        {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        [("variant_added", WIDENED, "/oneOf", "2 oneOf variants added")],
    ),
    "anyOf variant swapped for another": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
        [
            ("variant_removed", NARROWED, "/anyOf", "1 anyOf variant removed"),
            ("variant_added", WIDENED, "/anyOf", "1 anyOf variant added"),
        ],
    ),
    "variants reordered are the same": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        [],
    ),
    "variants that are not a list are not compared": (
        {"anyOf": [{"type": "string"}]},
        {"anyOf": {"type": "string"}},
        [],
    ),
    "boolean schema true -> false": (True, False, [("schema_changed", True, "", "schema changed")]),
    "boolean schema true -> {}": (True, {}, [("schema_changed", True, "", "schema changed")]),
    "boolean schema unchanged": (True, True, []),
    "format changed": (
        {"format": "date"},
        {"format": "uri"},
        [("constraint_changed", True, "/format", "format 'date' -> 'uri'")],
    ),
    "multipleOf added": (
        {},
        {"multipleOf": 2},
        [("constraint_tightened", NARROWED, "/multipleOf", "multipleOf None -> 2")],
    ),
    "pattern removed": ({"pattern": "^a"}, {}, [("constraint_loosened", WIDENED, "/pattern", "pattern '^a' -> None")]),
    "null no longer accepted": (
        {"type": ["string", "null"]},
        {"type": "string"},
        [("type_narrowed", NARROWED, "/type", 'type ["string","null"] -> "string"')],
    ),
    "a type added to a list": (
        {"type": "integer"},
        {"type": ["integer", "string"]},
        [("type_widened", WIDENED, "/type", 'type "integer" -> ["integer","string"]')],
    ),
    "number covers integer": (
        {"type": "integer"},
        {"type": "number"},
        [("type_widened", WIDENED, "/type", 'type "integer" -> "number"')],
    ),
    "type given where any went": (
        {},
        {"type": "string"},
        [("type_narrowed", NARROWED, "/type", 'type any -> "string"')],
    ),
    "type dropped": ({"type": "string"}, {}, [("type_widened", WIDENED, "/type", 'type "string" -> any')]),
    "type swapped": (
        {"type": "string"},
        {"type": "boolean"},
        [("type_changed", True, "/type", 'type "string" -> "boolean"')],
    ),
    "a type swapped inside a list": (
        {"type": ["string", "null"]},
        {"type": ["integer", "null"]},
        [("type_changed", True, "/type", 'type ["string","null"] -> ["integer","null"]')],
    ),
    "variants with their keys in another order are the same": (
        {"anyOf": [{"type": "string", "minLength": 1}]},
        {"anyOf": [{"minLength": 1, "type": "string"}]},
        [],
    ),
    "an empty type list means any": ({"type": []}, {}, []),
    "const changed": (
        {"const": 1},
        {"const": 2},
        [
            ("enum_value_removed", NARROWED, "/enum", "value 1 removed"),
            ("enum_value_added", WIDENED, "/enum", "value 2 added"),
        ],
    ),
    "enum dropped": ({"enum": [1]}, {}, [("enum_removed", WIDENED, "/enum", "any value allowed now")]),
    "object opened": (
        {"type": "object", "additionalProperties": False},
        {"type": "object"},
        [("additional_properties_opened", WIDENED, "/additionalProperties", "unknown properties allowed now")],
    ),
    "object closed": (
        {"type": "object", "additionalProperties": True},
        {"type": "object", "additionalProperties": False},
        [("additional_properties_closed", NARROWED, "/additionalProperties", "unknown properties refused now")],
    ),
    "a required name without a property": (
        {"type": "object", "required": ["a"]},
        {"type": "object", "required": ["a", "b"]},
        [("required_added", NARROWED, "/required", "'b' is required now")],
    ),
    "a required name without a property, dropped": (
        {"type": "object", "required": ["a", "b"]},
        {"type": "object", "required": ["a"]},
        [("required_removed", WIDENED, "/required", "'b' is optional now")],
    ),
    "a nested title": ({"title": "a"}, {"title": "b"}, [("title_changed", False, "/title", "title changed")]),
    "a default": ({"default": 1}, {"default": 2}, [("default_changed", False, "/default", "default 1 -> 2")]),
    "items followed": (
        {"type": "array", "items": {"type": "string", "maxLength": 5}},
        {"type": "array", "items": {"type": "string", "maxLength": 4}},
        [("constraint_tightened", NARROWED, "/items/maxLength", "maxLength 5 -> 4")],
    ),
    "items added where none was": (
        {"type": "array"},
        {"type": "array", "items": {"type": "string"}},
        [("type_narrowed", NARROWED, "/items/type", 'type any -> "string"')],
    ),
    "items made false": (
        {"type": "array", "items": True},
        {"type": "array", "items": False},
        [("constraint_tightened", NARROWED, "/items", "no element allowed here now")],
    ),
    "items false made a schema": (
        {"type": "array", "items": False},
        {"type": "array", "items": {"type": "string"}},
        [("constraint_loosened", WIDENED, "/items", "elements allowed here now")],
    ),
    "a prefixItems position narrowed": (
        {"type": "array", "prefixItems": [{"type": "string"}, {}]},
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        [("type_narrowed", NARROWED, "/prefixItems/1/type", 'type any -> "integer"')],
    ),
    "a draft 7 tuple closed": (
        {"type": "array", "items": [{"type": "string"}]},
        {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
        [("constraint_tightened", NARROWED, "/additionalItems", "no element allowed here now")],
    ),
    "a draft 7 tuple made one schema": (
        {"type": "array", "items": [{"type": "string"}]},
        {"type": "array", "items": {"type": "integer"}},
        [
            ("type_changed", True, "/items/0/type", 'type "string" -> "integer"'),
            ("type_narrowed", NARROWED, "/items/type", 'type any -> "integer"'),
        ],
    ),
    "false twice": (
        {"type": "array", "items": False},
        {"type": "array", "items": False, "title": "t"},
        [("title_changed", False, "/title", "title changed")],
    ),
    "items made a tuple of one, the rest refused": (
        {"type": "array", "items": {"type": "string"}},
        {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
        [("constraint_tightened", NARROWED, "/items", "no element allowed here now")],
    ),
}
UNPREFIXED = ("title_changed", "default_changed")  # documentation: the same on both sides


def _tool(x: Any, side: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"x": x}}
    if side == "input":
        return {"name": "t", "inputSchema": schema}
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}


def _expected(rows: list[Row], side: str) -> list[tuple[str, bool, str, str]]:
    base = "/inputSchema" if side == "input" else "/outputSchema"
    out = []
    for kind, breaking, where, detail in rows:
        if side == "output" and kind not in UNPREFIXED:
            symmetric = kind in ("schema_changed", "type_changed", "constraint_changed")
            kind, breaking = f"output_{kind}", breaking if symmetric else not breaking
        out.append((kind, breaking, f"{base}/properties/x{where}", detail))
    return out


@pytest.mark.parametrize("side", ["input", "output"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_keyword_change_is_reported_exactly(case: str, side: str) -> None:
    old, new, rows = CASES[case]
    changes = diff_tools([_tool(old, side)], [_tool(new, side)])
    assert [(c.kind, c.breaking, c.where, c.detail) for c in changes] == _expected(rows, side)
    assert not any(c.security for c in changes)
    # Back again: the same places, the other direction (or nothing, when nothing changed).
    assert bool(diff_tools([_tool(new, side)], [_tool(old, side)])) is bool(rows)


def test_schemas_nested_past_the_depth_limit_are_compared_whole() -> None:
    def nested(leaf: str, depth: int = 40) -> dict[str, Any]:
        node: dict[str, Any] = {"type": leaf}
        for _ in range(depth):
            node = {"type": "array", "items": node}
        return node

    [change] = diff_tools([_tool(nested("string"), "input")], [_tool(nested("integer"), "input")])
    # Depth 0 is the input schema, 1 the property x, then one step per items: 33 is past the limit.
    assert (change.kind, change.breaking, change.detail) == ("schema_changed", True, "schema changed")
    assert change.where == "/inputSchema/properties/x" + "/items" * 32
    shallow = diff_tools([_tool(nested("string", 3), "input")], [_tool(nested("integer", 3), "input")])
    assert [c.kind for c in shallow] == ["type_changed"]


def test_refs_are_followed_locally_only_and_escapes_are_decoded() -> None:
    def with_defs(maximum: int, ref: str) -> dict[str, Any]:
        return {
            "name": "r",
            "inputSchema": {
                "type": "object",
                "$defs": {"a/b": {"type": "integer", "maximum": maximum}, "hop": {"$ref": "#/$defs/a~1b"}},
                "properties": {"n": {"$ref": ref}},
            },
        }

    hopped = diff_tools([with_defs(10, "#/$defs/hop")], [with_defs(5, "#/$defs/hop")])
    assert [(c.kind, c.where) for c in hopped] == [("constraint_tightened", "/inputSchema/properties/n/maximum")]
    # A remote or dangling ref is not followed: the refs themselves are equal, so nothing to report.
    assert diff_tools([with_defs(10, "other.json#/x")], [with_defs(5, "other.json#/x")]) == []
    assert diff_tools([with_defs(10, "#/$defs/missing")], [with_defs(5, "#/$defs/missing")]) == []


def test_a_ref_chain_is_followed_eight_hops_and_no_further() -> None:
    # (a bound on the work an untrusted schema can ask for; a cycle is its extreme case)
    def chain(hops: int, maximum: int) -> dict[str, Any]:
        defs: dict[str, Any] = {f"h{i}": {"$ref": f"#/$defs/h{i + 1}"} for i in range(hops - 1)}
        defs[f"h{hops - 1}"] = {"type": "integer", "maximum": maximum}
        schema = {"type": "object", "$defs": defs, "properties": {"n": {"$ref": "#/$defs/h0"}}}
        return {"name": "r", "inputSchema": schema}

    followed = diff_tools([chain(8, 10)], [chain(8, 5)])
    assert [(c.kind, c.where) for c in followed] == [("constraint_tightened", "/inputSchema/properties/n/maximum")]
    # Nine hops: the ninth ref is left as it is, and both sides' refs are equal.
    assert diff_tools([chain(9, 10)], [chain(9, 5)]) == []


def _c(kind: str, breaking: bool, security: bool = False) -> Change:
    return Change("t", kind, breaking, "/w" if kind != "tool_added" else "", "d", security=security)


def test_summary_fails_and_the_table() -> None:
    changes = [_c("title_changed", False), _c("tool_added", False, True), _c("argument_removed", True)]
    assert summary(changes)["counts"] == {"breaking": 1, "compatible": 2, "security": 1}
    assert summary(changes)["breaking"] is True and summary(changes)["security"] is True
    assert summary([changes[0]]) == {
        "breaking": False,
        "security": False,
        "counts": {"breaking": 0, "compatible": 1, "security": 0},
        "changes": [changes[0].to_json()],
    }
    only_title = [changes[0]]
    assert fails(only_title, ["any"]) and not fails(only_title, ["breaking", "security"])
    assert fails([changes[1]], ["security"]) and not fails([changes[1]], ["breaking"])
    assert fails([changes[2]], ["breaking"]) and not fails([changes[2]], ["security"])
    assert format_table([]) == "no changes\n"
    assert format_table(changes) == (
        "          TOOL  CHANGE            WHERE  DETAIL\n"
        "BREAKING  t     argument_removed  /w     d\n"
        "SECURITY  t     tool_added        -      d\n"
        "ok        t     title_changed     /w     d\n"
        "3 changes: 1 breaking, 2 compatible, 1 security\n"
    )


def test_pointers_escape_property_names_and_other_annotations_are_compared_apart_from_hints() -> None:
    def tool(props: dict[str, Any], annotations: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object", "properties": props}}
        if annotations is not None:
            out["annotations"] = annotations
        return out

    [removed] = diff_tools([tool({"a/b~c": {}})], [tool({})])
    assert (removed.kind, removed.where, removed.detail) == (
        "argument_removed",
        "/inputSchema/properties/a~1b~0c",
        "'a/b~c' removed",
    )
    [added] = diff_tools([tool({})], [tool({"n/1": {"type": "integer"}})])
    assert (added.kind, added.breaking, added.where) == (
        "optional_argument_added",
        False,
        "/inputSchema/properties/n~11",
    )
    # Annotations beside the hints: an empty object and none say the same; anything else is a change.
    assert diff_tools([tool({})], [tool({}, {})]) == []
    assert diff_tools([tool({}, {"readOnlyHint": False})], [tool({}, {})]) == []  # a hint at its default
    for before, after in (({}, {"title": "x"}), ({"title": "x"}, ["not", "an", "object"])):
        [changed] = diff_tools([tool({}, before)], [tool({}, after)])
        assert (changed.kind, changed.breaking, changed.where) == ("annotations_changed", False, "/annotations")


def test_whole_tool_changes_output_schemas_refs_and_cycles() -> None:
    base: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    writer = {"name": "w", "inputSchema": {"type": "object"}}
    assert [(c.tool, c.kind, c.security) for c in diff_tools([base], [base, writer])] == [("w", "tool_added", True)]
    reader = {**writer, "annotations": {"readOnlyHint": True}}
    assert [(c.kind, c.detail, c.security) for c in diff_tools([base], [base, reader])] == [
        ("tool_added", "tool added, read-only", False)
    ]
    typed = {**base, "outputSchema": {"type": "object"}}
    [added] = diff_tools([base], [typed])
    assert (added.kind, added.breaking, added.where) == ("output_schema_added", False, "/outputSchema")
    [whole] = diff_tools([typed], [{**base, "outputSchema": True}])
    assert (whole.kind, whole.breaking, whole.where) == ("output_schema_changed", True, "/outputSchema")
    [odd] = diff_tools([{**base, "annotations": ["a"]}], [{**base, "annotations": ["b"]}])
    assert odd.kind == "annotations_changed"

    def out_ref(maximum: int) -> dict[str, Any]:
        schema = {
            "type": "object",
            "$defs": {"N": {"type": "integer", "maximum": maximum}},
            "properties": {"n": {"$ref": "#/$defs/N"}},
        }
        return {**base, "outputSchema": schema}

    [loosened] = diff_tools([out_ref(5)], [out_ref(10)])
    assert (loosened.kind, loosened.breaking, loosened.where) == (
        "output_constraint_loosened",
        True,
        "/outputSchema/properties/n/maximum",
    )
    # A $ref cycle ends after a few hops instead of looping.
    cycle = {"type": "object", "$defs": {"A": {"$ref": "#/$defs/A"}}, "properties": {"a": {"$ref": "#/$defs/A"}}}
    assert diff_tools([{**base, "inputSchema": cycle}], [{**base, "inputSchema": cycle}]) == []


# The shapes an array's elements can be given, each about strings (issue 40, #104).
ITEMS: dict[str, dict[str, Any]] = {
    "absent": {},
    "true": {"items": True},
    "false": {"items": False},
    "a schema": {"items": {"type": "string"}},
    "a draft 7 tuple": {"items": [{"type": "string"}]},
    "a closed draft 7 tuple": {"items": [{"type": "string"}], "additionalItems": False},
    "prefixItems": {"prefixItems": [{"type": "string"}, {"type": "integer"}]},
    "closed prefixItems": {"prefixItems": [{"type": "string"}], "items": False},
}
INSTANCES = [[], ["a"], [1], ["a", "b"], ["a", 1], [1, "a"], [1, 2], ["a", "b", "c"], ["a", 1, None]]


def _accepts(shape: dict[str, Any]) -> set[str]:
    import json

    import jsonschema

    schema = {"type": "array", **shape}
    draft = jsonschema.Draft7Validator if isinstance(shape.get("items"), list) else jsonschema.Draft202012Validator
    return {json.dumps(i) for i in INSTANCES if draft(schema).is_valid(i)}


@pytest.mark.parametrize("side", ["input", "output"])
@pytest.mark.parametrize("new", sorted(ITEMS))
@pytest.mark.parametrize("old", sorted(ITEMS))
def test_a_change_of_the_elements_shape_has_the_class_of_what_it_accepts(old: str, new: str, side: str) -> None:
    # The module's rule, checked against a validator: an input that refuses an instance it accepted
    # is breaking, an output that may send one it did not is breaking; no change, no report.
    before, after = _accepts(ITEMS[old]), _accepts(ITEMS[new])
    changes = diff_tools([_tool({"type": "array", **ITEMS[old]}, side)], [_tool({"type": "array", **ITEMS[new]}, side)])
    breaks = bool(before - after) if side == "input" else bool(after - before)
    assert any(c.breaking for c in changes) is breaks, [c.to_json() for c in changes]
    assert bool(changes) is (before != after), [c.to_json() for c in changes]
