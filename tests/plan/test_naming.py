from __future__ import annotations

import ast
import builtins
import keyword
import random
from pathlib import Path

from generation import AWKWARD, tool

from mcpgen.catalog.build import build_catalog
from mcpgen.plan.naming import ANNOTATION_BUILTINS, name_tools, snake
from mcpgen.plan.result_shape import result_props


def _names(wires: list[str]) -> dict[str, tuple[str, str]]:
    cat, problems = build_catalog([tool(w) for w in wires])
    assert not problems
    names = name_tools(cat.tools, {t.name: result_props(t) for t in cat.tools})
    return {w: (n.method, n.pascal) for w, n in names.items()}


def test_every_awkward_name_gets_a_unique_valid_method() -> None:
    names = _names(AWKWARD)
    methods = [m for m, _ in names.values()]
    pascals = [p for _, p in names.values()]
    assert set(names) == set(AWKWARD)
    assert len(set(methods)) == len(AWKWARD) and len(set(pascals)) == len(AWKWARD)
    for m in methods:
        assert m.isidentifier() and m.isascii() and not keyword.iskeyword(m), m
        assert not m.startswith("_"), m
    for reserved in (
        "class",
        "list",
        "call_tool",
        "dispatch",
        "with_options",
        "connect",
        "close",
        "self",
        "None",
    ):
        assert reserved not in methods
    # Builtins Python lets a method be called, and the generated code does not name, stay.
    assert names["print"][0] == "print" and names["list"][0] == "list_"


def test_a_tools_module_is_its_method_as_a_safe_file_name() -> None:
    """`_models/<module>.py`: unique, an identifier, at most 64 characters before a `_N` that
    tells two cut names apart, never `_`-led (`_shared` is the shared one) nor a Windows device."""
    cat, problems = build_catalog([tool(w) for w in AWKWARD])
    assert not problems
    names = name_tools(cat.tools, {t.name: result_props(t) for t in cat.tools})
    modules = {w: n.module for w, n in names.items()}
    assert len(set(modules.values())) == len(AWKWARD)
    for w, module in modules.items():
        assert module.isidentifier() and not keyword.iskeyword(module) and not module.startswith("_"), w
        assert module == names[w].method or len(names[w].method) > 64 or names[w].method == "con"
    assert modules["con"] == "con_"
    assert {modules["t" * 300], modules["t" * 299 + "u"]} == {"t" * 64, "t" * 64 + "_2"}
    assert modules["get-weather"] == names["get-weather"].method == "get_weather"


def test_collisions_resolve_by_wire_name_not_input_order() -> None:
    base = _names(AWKWARD)
    for seed in range(20):
        shuffled = AWKWARD[:]
        random.Random(seed).shuffle(shuffled)
        assert _names(shuffled) == base
    # The smallest wire name keeps the plain name.
    assert base["get-weather"][0] == "get_weather"
    assert base["get_weather"][0] != "get_weather"


def test_snake_rules() -> None:
    assert snake("getWeather", empty="t") == "get_weather"
    assert snake("HTTPServer", empty="t") == "http_server"
    assert snake("café", empty="t") == "cafe"
    assert snake("天気", empty="t") == "u5929_u6c17"
    assert snake("", empty="tool") == "tool"
    assert snake("3d", empty="tool") == "tool_3d"


def test_field_names_avoid_pydantic_and_keywords() -> None:
    cat, _ = build_catalog(
        [tool("t", {"model_dump": {}, "schema": {}, "class": {}, "my-field": {}, "my_field": {}, "self": {}})]
    )
    n = name_tools(cat.tools, {})["t"]
    py = {f.wire: f.python for f in n.args}
    assert py["model_dump"] != "model_dump" and py["schema"] != "schema" and py["class"] == "class_"
    assert py["self"] != "self"
    assert len(set(py.values())) == len(py)
    # A wire name that is a Python name keeps it: no field is named like another field's wire name.
    assert py["my_field"] == "my_field" and py["my-field"] == "my_field_2"


def test_no_tool_method_can_shadow_a_member_of_the_generated_clients_base_classes() -> None:
    from mcpgen.plan.naming import CLIENT_MEMBERS
    from mcpgen.runtime.client.typed import AsyncClientBase, SyncClientBase

    public = {n for cls in (AsyncClientBase, SyncClientBase) for n in dir(cls) if not n.startswith("_")}
    assert public - CLIENT_MEMBERS == set()


def _annotation_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            found += [x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x]
            found.append(node.returns)
        names |= {n.id for ann in found if ann is not None for n in ast.walk(ann) if isinstance(n, ast.Name)}
    return names


def test_the_reserved_builtins_are_those_generated_annotations_name() -> None:
    """A field or method called like a builtin an annotation of its class names would hide it
    there; every other builtin is free. Read from the goldens and examples: every generated kind."""
    repo = Path(__file__).resolve().parents[2]
    files = [p for root in ("tests/golden/expected", "examples") for p in sorted((repo / root).rglob("*.py"))]
    used = {n for p in files if "_runtime" not in p.parts for n in _annotation_names(p)}
    assert used & set(dir(builtins)) - {"None"} <= ANNOTATION_BUILTINS
    assert {"str", "int", "float", "bool", "list", "dict"} <= used  # (the scan saw real annotations)
