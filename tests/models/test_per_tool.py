"""The models module split by tool: each tool's classes in its own module, what two or more tools
reach (and all it uses) in `_shared`, no import between tool modules, every module whole."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from generation import importable

from mcpgen.models.per_tool import SHARED, ModelModule, ToolRoots, split_by_tool

SOURCE = """
from __future__ import annotations
from typing import Literal
from pydantic import BaseModel, RootModel

class _Mixin:
    pass

class Owner(BaseModel):
    id: int

class Filter(BaseModel):
    owner: Owner | None = None

class Node(BaseModel):
    children: list['Node'] = []

class AArgs(_Mixin, BaseModel):
    filter: Filter | None = None
    mode: Literal['Owner', 'x'] = 'x'

class AResult(_Mixin, BaseModel):
    owner: 'Owner'

class BArgs(_Mixin, BaseModel):
    node: Node | None = None

class BTag(RootModel[str]):
    root: str

class BResult(_Mixin, BaseModel):
    tag: BTag
    owner: Owner

class Orphan(BaseModel):
    node_only_b_reaches: Node

Node.model_rebuild()

TABLE: dict[str, str] = {}
"""


def split(source: str = SOURCE, roots: list[ToolRoots] | None = None) -> dict[str, ModelModule]:
    tree = ast.parse(source)
    imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if roots is None:
        roots = [
            ToolRoots("tool_a", "tool-a", ("AArgs", "AResult")),
            ToolRoots("tool_b", "tool b", ("BArgs", "BResult")),
        ]
    modules = split_by_tool(imports, body, roots, pinned=("_Mixin", "TABLE"))
    return {m.name: m for m in modules}


def test_each_class_lives_with_the_one_tool_that_reaches_it_and_shared_ones_in_shared() -> None:
    modules = split()
    assert list(modules) == [SHARED, "tool_a", "tool_b"]
    # Owner: both tools; Node: tool_b and the orphan (which goes to _shared, so Node must too).
    assert modules[SHARED].declares == ("_Mixin", "Owner", "Node", "Orphan", "TABLE")
    assert modules["tool_a"].declares == ("Filter", "AArgs", "AResult")
    assert modules["tool_b"].declares == ("BArgs", "BTag", "BResult")
    assert (modules["tool_a"].tool, modules["tool_b"].tool, modules[SHARED].tool) == ("tool-a", "tool b", None)


def test_a_tool_module_imports_from_shared_only_and_shared_from_no_tool_module() -> None:
    modules = split()
    for module in modules.values():
        relative = [s for s in ast.parse(module.source).body if isinstance(s, ast.ImportFrom) and s.level]
        if module.name == SHARED:
            assert relative == []
        else:
            assert [(s.module, s.level) for s in relative] == [(SHARED, 1)]
    a_imports = ast.parse(modules["tool_a"].source).body
    shared_names = {a.name for s in a_imports if isinstance(s, ast.ImportFrom) and s.level for a in s.names}
    assert shared_names == {"Owner", "_Mixin"}
    # Only the imports a module uses: tool_a has no RootModel, tool_b no Literal.
    assert "RootModel" not in modules["tool_a"].source and "Literal" not in modules["tool_b"].source
    assert modules["tool_b"].source.count("from __future__ import annotations") == 1


def test_a_rebuild_call_runs_where_its_model_is_declared_after_it() -> None:
    shared = split()[SHARED].source
    assert shared.index("class Node") < shared.index("Node.model_rebuild()")
    assert "model_rebuild" not in split()["tool_b"].source


def test_names_inside_string_annotations_count_as_uses() -> None:
    """`owner: 'Owner'` (a quoted forward reference) pulls Owner in like `owner: Owner`."""
    source = (
        "from pydantic import BaseModel\nclass Owner(BaseModel): ...\nclass AResult(BaseModel):\n    owner: 'Owner'\n"
    )
    modules = split(source, roots=[ToolRoots("tool_a", "a", ("AResult",))])
    assert modules["tool_a"].declares == ("Owner", "AResult")
    assert modules[SHARED].declares == ()


def test_a_single_tool_keeps_its_classes_and_the_pinned_names_stay_shared() -> None:
    modules = split(roots=[ToolRoots("tool_b", "b", ("BArgs", "BResult"))])
    assert modules[SHARED].declares == ("_Mixin", "Owner", "Filter", "Node", "AArgs", "AResult", "Orphan", "TABLE")
    assert modules["tool_b"].declares == ("BArgs", "BTag", "BResult")


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "split_pkg"
    (root / "_models").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "_models" / "__init__.py").write_text("")
    for module in split().values():
        (root / "_models" / f"{module.name}.py").write_text(module.source)
    with importable(tmp_path, "split_pkg"):
        yield root


def test_every_module_imports_and_builds_on_its_own(package: Path) -> None:
    b = importlib.import_module("split_pkg._models.tool_b")
    assert "split_pkg._models.tool_a" not in sys.modules
    made = b.BResult.model_validate({"tag": "t", "owner": {"id": 1}})
    assert made.owner.id == 1
    assert b.BArgs.model_validate({"node": {"children": [{"children": []}]}}).node.children[0].children == []
    a = importlib.import_module("split_pkg._models.tool_a")
    assert a.AArgs.model_validate({"filter": {"owner": {"id": 2}}}).filter.owner.id == 2
    # One class object per name, wherever it is reached from.
    assert a.Owner is b.Owner is importlib.import_module("split_pkg._models._shared").Owner
