"""DCG's module -> the models.py mcpgen writes, and what the templates need to know of it.

Drops DCG's header and root class, checks the module is inert (imports, classes and constants
only), gives every Args/Result model the exact-schema mixin (jsonschema on the raw instance,
then pydantic builds) and the schemas it checks against, and reads each model's fields and
annotations for the typed method signatures.
"""

from __future__ import annotations

import ast
import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from ..catalog.model import Problem
from .document import ROOT_CLASS
from .fields import FieldRename, name_fields
from .imports import import_block
from .per_tool import ModelModule, ToolRoots, split_by_tool


@dataclass(frozen=True)
class ModelInfo:
    """What the client templates need to know about one generated model."""

    fields: dict[str, str]  # python field name -> annotation source (names qualified for client.py)
    root_type: str | None  # RootModel[T] -> "T" (qualified); None for BaseModel


@dataclass(frozen=True)
class ModelsOutput:
    # Every model in one module, without header (the modules below split it), made when first
    # read (`source`): only a template overriding models.py asks for it, and printing the models
    # of 500 tools once more costs a tenth of a second.
    make_source: Callable[[], str] = field(repr=False, compare=False)
    infos: dict[str, ModelInfo]  # class name -> info, for every Args/Result
    client_imports: tuple[str, ...]  # `import x as _x` lines client.py needs for annotations
    # Every module-level name models.py defines (classes, constants, imports): what a model
    # added to it later (a server's prompt and template models) must not be called.
    names: frozenset[str] = frozenset()
    # Fields of nested models named other than by plain snake_case (keywords, collisions).
    renames: tuple[FieldRename, ...] = ()
    # What the package writes: `_models/_shared.py`, then one module per tool (per_tool.py).
    modules: tuple[ModelModule, ...] = ()

    @functools.cached_property
    def source(self) -> str:
        return self.make_source()


_SAFE_TOP = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.Assign, ast.AnnAssign)


@dataclass(frozen=True)
class CatalogTables:
    """Where a package's models read their schemas: its catalog module (a sibling of models.py)
    and the tool table in it. The tool JSON texts are always `TOOLS_JSON`."""

    module: str  # "_catalog" (a client), "tables" (a server's _generated/)
    table: str  # "TOOL_TABLE", "TOOLS"


CLIENT_TABLES = CatalogTables("_catalog", "TOOL_TABLE")
SERVER_TABLES = CatalogTables("tables", "TOOLS")


@dataclass(frozen=True)
class _Exact:
    docs: dict[str, str]  # class -> docstring
    runtime_module: str
    tables: CatalogTables


_EXACT_NAME = "_EXACT_SCHEMAS"
# A public name, though `_models/_shared.py` is private to the package: every tool's module
# imports it, and a checker reports an underscore name used outside its module (pyright strict).
# No model is ever called this: a tool's models are `<Stem>Args...`/`<Stem>Result...`.
_MIXIN = "ExactSchemaCheck"


# What the models of a server's prompts and URI templates (templates/server/_generated) use.
PROMPT_MODEL_IMPORTS = "from pydantic import BaseModel, ConfigDict, Field\n"


def prompt_model_imports(fields: bool) -> str:
    """PROMPT_MODEL_IMPORTS, without `Field` when no prompt or template has an argument (an
    unused import is an error under pyright strict)."""
    return PROMPT_MODEL_IMPORTS if fields else "from pydantic import BaseModel, ConfigDict\n"


def _exact_preamble(exact: _Exact) -> list[ast.stmt]:
    """Imports, the one mixin every Args/Result model takes as its first base (jsonschema on the
    raw instance, then pydantic builds: one class, not a validator per model: less code), and
    where it finds each model's schema: in the catalog, each schema once in generated code
    (runtime/core/exact_schemas.py). Underscore aliases: no model is ever called so."""
    tables = exact.tables
    return ast.parse(
        "from typing import Any\n"
        "from pydantic import ValidationInfo, model_validator\n"
        f"from {exact.runtime_module}.support.models import ExactSchemas\n"
        f"from {exact.runtime_module}.support.models import check_exact_model as _check_exact_model\n"
        f"from .{tables.module} import TOOLS_JSON as _TOOLS_JSON\n"
        f"from .{tables.module} import {tables.table} as _TOOL_TABLE\n"
        f"class {_MIXIN}:\n"
        "    @model_validator(mode='before')\n"
        "    @classmethod\n"
        "    def _mcpgen_exact(cls, data: Any, info: ValidationInfo) -> Any:\n"
        f"        return _check_exact_model(cls, data, info.context, {_EXACT_NAME})\n"
        f"{_EXACT_NAME} = ExactSchemas(_TOOLS_JSON, _TOOL_TABLE)\n"
    ).body


def _add_exact(cls: ast.ClassDef, exact: _Exact) -> None:
    body = [
        s
        for s in cls.body
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str))
    ]
    body = [s for s in body if not isinstance(s, ast.Pass)]
    doc = exact.docs.get(cls.name)
    head: list[ast.stmt] = [ast.Expr(ast.Constant(doc))] if doc else []
    cls.body = (head + body) or [ast.Pass()]
    cls.bases.insert(0, ast.Name(_MIXIN, ast.Load()))


def postprocess(
    source: str | ast.Module,
    roots: list[ToolRoots],
    docs: dict[str, str],
    runtime_module: str,
    tables: CatalogTables,
    *,
    prompt_models: bool = False,
    prompt_fields: bool = True,
) -> tuple[ModelsOutput | None, list[Problem]]:
    """Drop DCG's header and root class, check the module is inert, name every field by the one
    rule, read field annotations, add the exact validators and the schemas they check against.
    `roots`: each tool's module and models, to split the module by tool.
    `prompt_models`: the module also imports what a server's prompt/template models use
    (`prompt_fields`: `Field` too, which only their arguments use).
    `runtime_module` is how models.py imports the runtime (the modules are one folder down),
    `tables` where the package's catalog is (the exact checks read their schemas there)."""
    wanted = {name for t in roots for name in t.models}
    exact = _Exact(docs, runtime_module, tables)
    try:
        tree = ast.parse(source) if isinstance(source, str) else source
    except SyntaxError as exc:
        return None, [Problem("models", f"generated models do not parse: {exc}")]
    problems: list[Problem] = []
    body: list[ast.stmt] = []
    module_of: dict[str, str] = {}  # imported name -> module
    classes: dict[str, ast.ClassDef] = {}
    renames: list[FieldRename] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == ROOT_CLASS:
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _is_rebuild(stmt.value):
            body.append(stmt)  # `X.model_rebuild()` is how pydantic resolves forward refs
            continue
        if not isinstance(stmt, _SAFE_TOP):
            problems.append(Problem("models", f"unexpected top-level statement at line {stmt.lineno}"))
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module != "__future__":
            for a in stmt.names:
                module_of[a.asname or a.name] = stmt.module
        if isinstance(stmt, ast.ClassDef):
            classes[stmt.name] = stmt
            found = name_fields(stmt)
            if stmt.name not in wanted:  # (Args/Result fields are the plan's: it reports those)
                renames += found
            _wrap_str_defaults(stmt)
            _open_protected_namespaces(stmt)
            _defer_build(stmt)
        body.append(stmt)
    missing = sorted(wanted - set(classes))
    if missing:
        problems.append(Problem("models", f"datamodel-code-generator renamed models: {', '.join(missing)}"))
    if problems:
        return None, problems
    for name in sorted(wanted):
        _add_exact(classes[name], exact)
    preamble = _exact_preamble(exact)
    imports = _imports(preamble + body)
    body = [st for st in preamble + body if not isinstance(st, (ast.Import, ast.ImportFrom))]
    used = {n.id for n in ast.walk(ast.Module(body=body, type_ignores=[])) if isinstance(n, ast.Name)}
    imports = _used_only(imports, used)
    imports += [st for st in _imports(ast.parse(_NEEDED_IMPORTS).body) if st.names[0].name in used]
    deeper = _one_folder_down(imports)
    prompt_imports = _imports(ast.parse(prompt_model_imports(prompt_fields)).body)
    shared_extra = prompt_imports if prompt_models else []
    modules = split_by_tool(deeper, body, roots, pinned=(_MIXIN, _EXACT_NAME), shared_imports=shared_extra)
    if prompt_models:
        imports += prompt_imports
    # One sorted import block (each name once), the mixin, DCG's classes, the schema tables.
    # Re-emitting the code through ast.unparse makes every string literal a repr()
    # (docs/architecture.md, "Untrusted text"); the import block holds only identifiers.
    head = import_block(imports)

    def text() -> str:
        return head + "\n\n\n" + ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"

    qualify = _Qualifier(set(classes), module_of)
    infos = {name: _info(classes[name], qualify) for name in sorted(wanted)}
    names = _defined_names([*body, *imports])
    return ModelsOutput(text, infos, tuple(sorted(qualify.imports)), names, tuple(renames), modules), []


def _one_folder_down(imports: list[ast.Import | ast.ImportFrom]) -> list[ast.Import | ast.ImportFrom]:
    """The imports as a module one folder below models.py writes them (a vendored runtime's
    relative import takes one more dot)."""
    return [
        ast.ImportFrom(st.module, st.names, st.level + 1) if isinstance(st, ast.ImportFrom) and st.level else st
        for st in imports
    ]


def _used_only(imports: list[ast.Import | ast.ImportFrom], used: set[str]) -> list[ast.Import | ast.ImportFrom]:
    """Drop imported names the module never uses (DCG imports RootModel for the dropped root class)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for stmt in imports:
        if isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
            stmt.names = [a for a in stmt.names if (a.asname or a.name) in used]
            if not stmt.names:
                continue
        out.append(stmt)
    return out


def _imports(stmts: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    return [st for st in stmts if isinstance(st, (ast.Import, ast.ImportFrom))]


# What the renamed fields may need that datamodel-code-generator did not import.
_NEEDED_IMPORTS = "from pydantic import Field\nfrom pydantic import ConfigDict\n"


def _open_protected_namespaces(cls: ast.ClassDef) -> None:
    """A wire field may be called `model_dump_x`: pydantic would warn at import. Tell it not to."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets)
            and isinstance(stmt.value, ast.Call)
            and not any(k.arg == "protected_namespaces" for k in stmt.value.keywords)
        ):
            stmt.value.keywords.append(ast.keyword("protected_namespaces", ast.Tuple([], ast.Load())))


def _defer_build(cls: ast.ClassDef) -> None:
    """`defer_build=True`: pydantic builds a model's validator when it first validates, not at
    import. A server answers tools/list, and a client imports, without building a model per tool."""
    if not any(_base_name(b) in ("BaseModel", "RootModel") for b in cls.bases):
        return  # a subclass of a model here inherits its config
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets)
            and isinstance(stmt.value, ast.Call)
        ):
            if not any(k.arg == "defer_build" for k in stmt.value.keywords):
                stmt.value.keywords.append(ast.keyword("defer_build", ast.Constant(True)))
            return
    config = ast.parse("model_config = ConfigDict(defer_build=True)").body[0]
    at = 1 if cls.body and isinstance(cls.body[0], ast.Expr) else 0
    cls.body.insert(at, config)


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def _wrap_str_defaults(cls: ast.ClassDef) -> None:
    """`url: AnyUrl = 'https://..'` is fine for pydantic but not for mypy: use Field('https://..')."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
            and not any(k in ast.unparse(stmt.annotation) for k in ("str", "Literal", "Any"))
        ):
            stmt.value = ast.Call(ast.Name("Field", ast.Load()), [], [ast.keyword("default", stmt.value)])


def _is_rebuild(call: ast.Call) -> bool:
    f = call.func
    return (
        isinstance(f, ast.Attribute) and f.attr == "model_rebuild" and isinstance(f.value, ast.Name) and not call.args
    )


class _Qualifier(ast.NodeTransformer):
    """Rewrites annotation names so client.py can use them: models classes via `_models.`,
    imported names via a private module alias, builtins untouched."""

    def __init__(self, classes: set[str], module_of: dict[str, str]) -> None:
        self.classes = classes
        self.module_of = module_of
        self.imports: set[str] = set()

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.classes:
            return ast.Attribute(value=ast.Name("_models", ast.Load()), attr=node.id, ctx=ast.Load())
        mod = self.module_of.get(node.id)
        if mod is None:
            return node
        alias = "_" + mod.replace(".", "_")
        self.imports.add(f"import {mod} as {alias}")
        return ast.Attribute(value=ast.Name(alias, ast.Load()), attr=node.id, ctx=ast.Load())

    def text(self, node: ast.expr) -> str:
        return ast.unparse(self.visit(copy.deepcopy(node)))


def _info(cls: ast.ClassDef, q: _Qualifier) -> ModelInfo:
    root: str | None = None
    for base in cls.bases:
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id == "RootModel":
            root = q.text(base.slice)
    fields: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id != "model_config":
            fields[stmt.target.id] = q.text(stmt.annotation)
    return ModelInfo(fields, root)


def _defined_names(body: list[ast.stmt]) -> frozenset[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)
