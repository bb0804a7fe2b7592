"""A big catalog's models made in parts (mcpgen/models/merge.py): the same models as one call.

Above `PARTS_FROM` tools the document is cut into parts, each part modelled by its own
datamodel-code-generator call and the modules merged; class names two parts both invented are
renamed in the later part. These tests hold: the merged models accept and reject exactly what
the one-call models do and build the same values, and every field is typed by a model of the
same shape; no class name twice; the renaming touches names, never data that reads like one;
the names mcpgen allocated are never renamed; the output is the same bytes every time; and the
merge rule itself on hand-written modules (forward references, `Literal` values, aliases).
"""

from __future__ import annotations

import ast
import typing
from typing import Any

import pydantic
import pytest
from big_catalog_lib import tools  # tests/models is on sys.path (conftest.py)
from models_support import loaded_models

from mcpgen.catalog.build import build_catalog
from mcpgen.catalog.instances import InstanceGenerator
from mcpgen.models import PARTS_FROM, generate_models
from mcpgen.models.document import ROOT_CLASS
from mcpgen.models.merge import merge
from mcpgen.plan.build import build_plan
from mcpgen.plan.types import Plan


@pytest.fixture(scope="module")
def plan() -> Plan:
    cat, problems = build_catalog(tools())
    assert not problems, problems
    made = build_plan(cat)
    assert len(made.tools) > PARTS_FROM, "the catalog must be big enough to be cut into parts"
    return made


@pytest.fixture(scope="module")
def in_parts(plan: Plan) -> str:
    out, problems = generate_models(plan)
    assert out is not None and not problems, problems
    return out.source


@pytest.fixture(scope="module")
def one_call(plan: Plan) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("mcpgen.models.PARTS_FROM", 10**9)
        out, problems = generate_models(plan)
    assert out is not None and not problems, problems
    return out.source


def _shape(tp: Any, path: tuple[type, ...] = ()) -> Any:
    """A type with every model replaced by its fields (names, aliases, types): what a model
    means, whatever the class is called (a model inside itself: how many levels up)."""
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        if tp in path:
            return ("recursion", len(path) - path.index(tp))
        tp.model_rebuild()  # defer_build: a model's field types resolve when it is built
        inner = (*path, tp)
        fields = tuple(
            (name, f.validation_alias, f.serialization_alias, f.is_required(), _shape(f.annotation, inner))
            for name, f in tp.model_fields.items()
        )
        roots = tp.__pydantic_generic_metadata__["args"]
        return ("model", fields, tuple(_shape(r, inner) for r in roots))
    origin = typing.get_origin(tp)
    if origin is not None:
        args = tuple(a if origin is typing.Literal else _shape(a, path) for a in typing.get_args(tp))
        return (repr(origin), args)
    return repr(tp)


def _accepts(model: Any, data: Any) -> tuple[bool, Any]:
    try:
        return True, model.model_validate(data).model_dump(mode="json", by_alias=True)
    except pydantic.ValidationError:
        return False, None


def test_parts_give_the_models_one_call_gives(plan: Plan, in_parts: str, one_call: str) -> None:
    assert in_parts != one_call  # it was made in parts (the order of classes differs)
    checked = 0
    with loaded_models(in_parts, plan) as parts_mod, loaded_models(one_call, plan) as one_mod:
        for t in plan.tools:
            for name, schema in ((t.args_model, t.spec.input_schema), (t.result_model, t.spec.output_schema)):
                if name is None:
                    continue
                ours, theirs = getattr(parts_mod, name), getattr(one_mod, name)
                assert _shape(ours) == _shape(theirs), name
                gen = InstanceGenerator(schema, seed=t.wire)
                for instance in [*gen.valid_many(2), *gen.invalid_many(2)]:
                    if name == t.result_model and t.wrapped:
                        instance = {"result": instance}
                    assert _accepts(ours, instance) == _accepts(theirs, instance), (name, instance)
                    checked += 1
    assert checked >= 4 * len(plan.tools)


def _locations(source: str) -> list[str]:
    names = [st.name for st in ast.parse(source).body if isinstance(st, ast.ClassDef)]
    assert len(names) == len(set(names))
    return [n for n in names if "Location" in n]


def test_each_class_name_once_and_named_by_its_path(in_parts: str, one_call: str) -> None:
    # Every tool has a nested `location`: each class is named by its path from its tool's model
    # (`<Tool>ArgsLocation...`), never one part's `Location1`, the same names as one call gives.
    # (Beside it these Args have a property `Location`, the same name but for case: that class is
    # named by its own first property, `Tool000ArgsLocationCity`, never DCG's `...Location2`.)
    assert _locations(in_parts) and sorted(_locations(in_parts)) == sorted(_locations(one_call))
    assert len(_locations(in_parts)) > 200
    assert all(n.startswith(("Tool", "GeoArgs")) for n in _locations(in_parts))
    assert not [n for n in _locations(in_parts) if n[-1].isdigit() and n.rstrip("0123456789") in _locations(in_parts)]
    # Data that reads like a class name stays as it was.
    assert "Literal['Location', 'Location1', 'custom-0']" in in_parts
    assert "validation_alias='Location'" in in_parts


def test_the_names_mcpgen_gave_are_never_renamed(plan: Plan, in_parts: str) -> None:
    geo = plan.tool("geo")
    assert geo.args_model == "GeoArgs"
    with loaded_models(in_parts, plan) as mod:
        assert set(mod.GeoArgs.model_fields) == {"place", "location"}
        # tool 140's nested `geo_args` object is named by its path, never GeoArgs.
        mod.Tool140Args.model_rebuild()  # defer_build: its field types resolve when it is built
        annotation = mod.Tool140Args.model_fields["geo_args"].annotation
        nested = (typing.get_args(annotation) or (annotation,))[0]
        assert nested.__name__ == "Tool140ArgsGeoArgs" and nested is not mod.GeoArgs
        assert set(nested.model_fields) == {"radius"}


def test_the_same_catalog_gives_the_same_bytes(plan: Plan, in_parts: str) -> None:
    out, _ = generate_models(plan)
    assert out is not None and out.source == in_parts


# -- the merge rule on hand-written modules -------------------------------------------------------

FIRST = """
from __future__ import annotations
from pydantic import BaseModel, Field
class Owner(BaseModel):
    id: int
class FirstArgs(BaseModel):
    owner: Owner
"""
SECOND = """
from __future__ import annotations
from typing import Annotated, Literal
from pydantic import BaseModel, Field, RootModel
class Owner(BaseModel):
    name: str = Field('Owner', alias='Owner', description='Owner')
    kind: Literal['Owner'] = 'Owner'
    next: 'Owner | None' = None
    peers: Annotated[list[Owner], Field(default_factory=lambda: [Owner.model_validate({'Owner': 'x'})])]
class Owner1(RootModel[list['Owner']]):
    root: list[Owner]
class SecondArgs(BaseModel):
    owner: Owner | None = None
    owners: Owner1
    first: FirstArgs
Owner.model_rebuild()
"""


def test_merge_renames_a_later_parts_class_through_its_syntax_tree() -> None:
    merged = merge([(ast.parse(FIRST), {"FirstArgs"}), (ast.parse(SECOND), {"SecondArgs"})])
    text = ast.unparse(merged)
    classes = [st.name for st in merged.body if isinstance(st, ast.ClassDef)]
    # The second part's Owner takes the first free OwnerN (its own Owner1 is taken: it keeps it).
    assert classes == ["Owner", "FirstArgs", "Owner2", "Owner1", "SecondArgs"]
    second = text[text.index("class Owner2") :]
    # References renamed: annotations, a string forward reference, bases, code, model_rebuild.
    for renamed in (
        "next: 'Owner2 | None'",
        "peers: Annotated[list[Owner2]",
        "[Owner2.model_validate(",
        "class Owner1(RootModel[list['Owner2']])",
        "root: list[Owner2]",
        "owner: Owner2 | None",
        "owners: Owner1",
        "Owner2.model_rebuild()",
    ):
        assert renamed in second, renamed
    # Data untouched: a default, an alias, a description, a Literal value, a dict key.
    for kept in ("Field('Owner', alias='Owner', description='Owner')", "Literal['Owner'] = 'Owner'", "{'Owner': 'x'}"):
        assert kept in second, kept
    assert "first: FirstArgs" in second  # a name the part does not define (and mcpgen pinned) stays
    assert text[: text.index("class Owner2")].count("Owner2") == 0  # the first part is untouched


def test_merge_gives_a_class_named_like_another_parts_import_a_free_name() -> None:
    first = "from pydantic import Field\nclass A(BaseModel):\n    x: int = Field(1)\n"
    second = "class Field(BaseModel):\n    y: int\nclass B(BaseModel):\n    f: Field\n"
    text = ast.unparse(merge([(ast.parse(first), set()), (ast.parse(second), set())]))
    assert "class Field1(BaseModel)" in text and "f: Field1" in text and "x: int = Field(1)" in text


def test_merge_drops_every_parts_root_class_and_is_deterministic() -> None:
    root = f"class {ROOT_CLASS}(RootModel[Any]):\n    root: Any\n"

    def parts() -> list[tuple[ast.Module, set[str]]]:
        return [(ast.parse(FIRST + root), {"FirstArgs"}), (ast.parse(SECOND + root), {"SecondArgs"})]

    text = ast.unparse(merge(parts()))
    assert ROOT_CLASS not in text
    assert text == ast.unparse(merge(parts()))
