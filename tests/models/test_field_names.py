"""One naming rule for every level of the models: snake_case Python names, wire names on the wire,
every model built by its Python field names; descriptions kept; one sorted import block."""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from models_support import Build

# server-memory's shapes: nested objects with a keyword (`from`) and camelCase (`relationType`).
RELATION = {
    "type": "object",
    "properties": {
        "from": {"type": "string", "description": "The name of the entity where the relation starts"},
        "to": {"type": "string", "description": "The name of the entity where the relation ends"},
        "relationType": {"type": "string", "description": "The type of the relation (active voice)"},
    },
    "required": ["from", "to", "relationType"],
}
MEMORY_TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_relations",
        "description": "Create multiple new relations between entities",
        "inputSchema": {
            "type": "object",
            "properties": {"relations": {"type": "array", "items": RELATION}},
            "required": ["relations"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"relations": {"type": "array", "items": RELATION}},
            "required": ["relations"],
        },
    },
    {
        "name": "search_nodes",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The search query"},
                "maxResults": {"type": "integer", "default": 10},
                "class": {"type": "string"},
            },
            "required": ["query"],
        },
    },
]


def _fields(model: Any) -> dict[str, tuple[str | None, str | None]]:
    """Python field name -> (wire name it reads and writes, description)."""
    return {n: (f.serialization_alias or n, f.description) for n, f in model.model_fields.items()}


def test_nested_model_fields_are_snake_case_aliased_to_their_wire_names(build: Build) -> None:
    models = build(MEMORY_TOOLS).models
    relation = models.CreateRelationsArgsRelation
    assert _fields(relation) == {
        "from_": ("from", "The name of the entity where the relation starts"),
        "to": ("to", "The name of the entity where the relation ends"),
        "relation_type": ("relationType", "The type of the relation (active voice)"),
    }
    top = _fields(models.SearchNodesArgs)
    assert top == {
        "query": ("query", "The search query"),
        "max_results": ("maxResults", None),
        "class_": ("class", None),
    }


def test_every_model_is_built_by_python_names_and_sent_by_wire_names(build: Build) -> None:
    models = build(MEMORY_TOOLS).models
    relation_cls = models.CreateRelationsArgsRelation
    relation = relation_cls(from_="Ada", to="Babbage", relation_type="knows")
    assert (relation.from_, relation.relation_type) == ("Ada", "knows")
    wire = {"relations": [{"from": "Ada", "to": "Babbage", "relationType": "knows"}]}
    args = models.CreateRelationsArgs(relations=[relation])  # the exact check sees wire names
    assert args.model_dump(mode="json", by_alias=True) == wire
    assert models.CreateRelationsArgs.model_validate(wire).relations[0].from_ == "Ada"
    assert models.CreateRelationsResult.model_validate(wire).relations[0].relation_type == "knows"
    # A top-level model by Python names, aliased fields included: checked against the schema.
    search = models.SearchNodesArgs(query="ada", max_results=3, class_="person")
    assert search.model_dump(by_alias=True, exclude_unset=True) == {"query": "ada", "maxResults": 3, "class": "person"}
    with pytest.raises(ValueError, match="maxResults"):
        models.SearchNodesArgs(query="ada", max_results="3")  # no lax "3" -> 3: the schema says integer
    with pytest.raises(ValueError, match=r"\nrelationType\n  Field required "):
        relation_cls(from_="Ada", to="Babbage")  # relation_type is required


class _Recording:
    """A session that records what the typed client sends and echoes it as structured content."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def know_tools(self, tools: Any) -> None:
        pass

    async def call_tool(self, name: str, arguments: Any = None, **_: Any) -> dict[str, Any]:
        self.sent.append((name, arguments))
        return {"content": [], "structuredContent": arguments}


def test_typed_method_sends_nested_models_by_wire_name(build: Build) -> None:
    pkg = build(MEMORY_TOOLS)
    relation_cls = pkg.models.CreateRelationsArgsRelation
    session = _Recording()
    client = pkg.AsyncClient(session)
    result = asyncio.run(client.create_relations(relations=[relation_cls(from_="Ada", to="B", relation_type="knows")]))
    assert session.sent == [("create_relations", {"relations": [{"from": "Ada", "to": "B", "relationType": "knows"}]})]
    assert result.relations[0].from_ == "Ada"
    asyncio.run(client.search_nodes(query="q", class_="c", max_results=2))
    assert session.sent[-1] == ("search_nodes", {"query": "q", "class": "c", "maxResults": 2})


def test_argument_descriptions_reach_the_method_docstrings(build: Build) -> None:
    pkg = build(MEMORY_TOOLS)
    doc = inspect.getdoc(pkg.AsyncClient.search_nodes) or ""
    assert "Args:\n    query (str): The search query.\n" in doc
    # Every argument is listed, with a description or not, and how an optional one is left out.
    assert "    max_results (int, optional): Left out, the server's default applies: 10.\n" in doc
    assert "    class_ (str | None, optional): Left out of the call when not given.\n" in doc


def test_models_have_one_sorted_import_block(build: Build) -> None:
    pkg = build(MEMORY_TOOLS)
    source = Path(pkg.models.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    first_other = next(i for i, s in enumerate(tree.body) if not isinstance(s, (ast.Import, ast.ImportFrom, ast.Expr)))
    assert all(tree.body.index(s) < first_other for s in imports), "an import after the first class"
    modules = [s.module for s in imports if isinstance(s, ast.ImportFrom)]
    assert len(modules) == len(set(modules)), modules  # each module once (as-imports aside, none here)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for stmt in imports:
        if isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
            assert all((a.asname or a.name) in used for a in stmt.names), ast.unparse(stmt)


# What real servers call their arguments: builtins, a soft keyword, and a builtin the generated
# annotations name (the one that is renamed, beside the keyword).
BUILTIN_NAMED = [
    {
        "name": "type",
        "inputSchema": {
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "id": {"type": "integer"},
                "format": {"type": "string"},
                "match": {"type": "string"},
                "list": {"type": "array", "items": {"type": "string"}},
                "lambda": {"type": "boolean"},
                "item": {"type": "object", "properties": {"type": {"type": "string"}, "input": {"type": "string"}}},
            },
            "required": ["type"],
        },
    }
]


def test_builtin_names_stay_and_only_what_python_forbids_is_renamed(build: Build) -> None:
    pkg = build(BUILTIN_NAMED)
    args = pkg.models.TypeArgs
    assert list(args.model_fields) == ["type", "id", "format", "match", "list_", "lambda_", "item"]
    assert list(pkg.models.TypeArgsItem.model_fields) == ["type", "input"]
    params = inspect.signature(pkg.AsyncClient.type).parameters
    assert list(params) == ["self", "type", "id", "format", "match", "list_", "lambda_", "item"]
    session = _Recording()
    item = pkg.models.TypeArgsItem(type="inner", input="x")
    asyncio.run(pkg.AsyncClient(session).type(type="t", id=1, format="f", list_=["a"], lambda_=True, item=item))
    sent = {"type": "t", "id": 1, "format": "f", "list": ["a"], "lambda": True, "item": {"type": "inner", "input": "x"}}
    assert session.sent == [("type", sent)]
    assert args.model_validate(sent).list_ == ["a"]


# Two properties whose Python names would meet (`Items` and `items`), at the top and nested.
_CASES = {"Items": {"type": "string"}, "items": {"type": "array", "items": {"type": "integer"}}}
CASE_TWINS: list[dict[str, Any]] = [
    {
        "name": "pack",
        "inputSchema": {
            "type": "object",
            "properties": {**_CASES, "box": {"type": "object", "properties": _CASES}},
        },
    }
]


def test_a_field_is_filled_by_its_own_wire_name_only_never_by_a_twins_python_name(build: Build) -> None:
    pkg = build(CASE_TWINS)
    for model in (pkg.models.PackArgs, pkg.models.PackArgsBox):
        # Validation by wire name is exact: `items` fills the `items` field, never `Items`'s.
        for wire in ({"items": [1, 2]}, {"Items": "x"}, {"Items": "x", "items": [1]}):
            assert model.model_validate(wire).model_dump(by_alias=True, exclude_unset=True) == wire
        # No field's Python name is another field's wire name: `items` keeps its own name.
        by_wire = {f.serialization_alias or n: n for n, f in model.model_fields.items()}
        assert by_wire["items"] == "items" and by_wire["Items"] == "items_2"
        built = model.model_validate({"items": [1, 2]})
        assert (built.items, built.items_2) == ([1, 2], None)
        built = model.model_validate({"Items": "x"})
        assert (built.items, built.items_2) == (None, "x")
        assert model(items_2="x", items=[3]).model_dump(by_alias=True, exclude_unset=True) == {
            "Items": "x",
            "items": [3],
        }
    session = _Recording()
    box = pkg.models.PackArgsBox(items=[1])
    asyncio.run(pkg.AsyncClient(session).pack(items=[7], items_2="y", box=box))
    assert session.sent == [("pack", {"items": [7], "Items": "y", "box": {"items": [1]}})]
