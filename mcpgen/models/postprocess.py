"""DCG's module -> the models.py mcpgen writes, and what the templates need to know of it.

Drops DCG's header and root class, checks the module is inert (imports, classes and constants
only), gives every Args/Result model the exact-schema mixin (jsonschema on the raw instance,
then pydantic builds) and the schemas it checks against, and reads each model's fields and
annotations for the typed method signatures.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..catalog.model import Problem
from .document import ROOT_CLASS


@dataclass(frozen=True)
class ModelInfo:
    """What the client templates need to know about one generated model."""

    fields: dict[str, str]  # python field name -> annotation source (names qualified for client.py)
    root_type: str | None  # RootModel[T] -> "T" (qualified); None for BaseModel
    wire_names: dict[str, str] = field(default_factory=dict)  # python field name -> its alias, or itself


@dataclass(frozen=True)
class ModelsOutput:
    source: str  # models.py body, without header
    infos: dict[str, ModelInfo]  # class name -> info, for every Args/Result
    client_imports: tuple[str, ...]  # `import x as _x` lines client.py needs for annotations
    # Every module-level name models.py defines (classes, constants, imports): what a model
    # added to it later (a server's prompt and template models) must not be called.
    names: frozenset[str] = frozenset()


_SAFE_TOP = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.Assign, ast.AnnAssign)


@dataclass(frozen=True)
class _Exact:
    schemas: dict[str, tuple[str, str | None]]  # class -> (schema JSON, wrap key)
    docs: dict[str, str]  # class -> docstring
    runtime_module: str


_EXACT_NAME = "_EXACT_SCHEMAS"


_WRAPS_NAME = "_EXACT_WRAPS"
_MIXIN = "_McpgenExact"


def _exact_preamble(runtime_module: str) -> list[ast.stmt]:
    """Imports, and the one mixin every Args/Result model takes as its first base: jsonschema on
    the raw instance, then pydantic builds (one class, not a validator per model: less code)."""
    return ast.parse(
        "from typing import Any\n"
        "from pydantic import ValidationInfo, model_validator\n"
        f"from {runtime_module}.support.models import check_exact_model as _check_exact_model\n"
        f"class {_MIXIN}:\n"
        "    @model_validator(mode='before')\n"
        "    @classmethod\n"
        "    def _mcpgen_exact(cls, data: Any, info: ValidationInfo) -> Any:\n"
        f"        return _check_exact_model(cls, data, info.context, {_EXACT_NAME}, {_WRAPS_NAME})\n"
    ).body


def _dedupe_imports(imports: list[ast.stmt]) -> list[ast.stmt]:
    """Drop `from m import x` names already imported by an earlier statement (and emptied imports)."""
    seen: set[tuple[str, str, str]] = set()
    out: list[ast.stmt] = []
    for stmt in imports:
        if isinstance(stmt, ast.ImportFrom):
            names = [a for a in stmt.names if (stmt.module or "", a.name, a.asname or "") not in seen]
            seen.update((stmt.module or "", a.name, a.asname or "") for a in names)
            if not names:
                continue
            stmt.names = names
        out.append(stmt)
    return out


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
    source: str,
    wanted: set[str],
    schemas: dict[str, tuple[str, str | None]],
    docs: dict[str, str],
    runtime_module: str,
) -> tuple[ModelsOutput | None, list[Problem]]:
    """Drop DCG's header and root class, check the module is inert, read field annotations,
    add the exact validators and the schemas they check against."""
    exact = _Exact(schemas, docs, runtime_module)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return None, [Problem("models", f"generated models do not parse: {exc}")]
    problems: list[Problem] = []
    body: list[ast.stmt] = []
    module_of: dict[str, str] = {}  # imported name -> module
    classes: dict[str, ast.ClassDef] = {}
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
            _drop_same_alias(stmt)
            _wrap_str_defaults(stmt)
            _open_protected_namespaces(stmt)
        body.append(stmt)
    missing = sorted(wanted - set(classes))
    if missing:
        problems.append(Problem("models", f"datamodel-code-generator renamed models: {', '.join(missing)}"))
    if problems:
        return None, problems
    for name in sorted(wanted):
        _add_exact(classes[name], exact)
    first = 1 if body and isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__" else 0
    preamble = _exact_preamble(exact.runtime_module)
    imports: list[ast.stmt] = [st for st in body[first:] if isinstance(st, (ast.Import, ast.ImportFrom))]
    others = [st for st in body[first:] if not isinstance(st, (ast.Import, ast.ImportFrom))]
    # All imports first (DCG's too, each name once), then the mixin, then DCG's classes.
    body = body[:first] + _dedupe_imports(preamble[:-1] + imports) + preamble[-1:] + others
    table = ast.Dict(
        keys=[ast.Constant(k) for k in sorted(exact.schemas)],
        values=[ast.Constant(exact.schemas[k][0]) for k in sorted(exact.schemas)],
    )
    # JSON text, not a dict literal: the schemas stay exactly as the server sent them.
    body.append(
        ast.AnnAssign(ast.Name(_EXACT_NAME, ast.Store()), ast.parse("dict[str, str]", mode="eval").body, table, 1)
    )
    wraps = {k: w for k, (_, w) in sorted(exact.schemas.items()) if w}
    wrap_table = ast.Dict(keys=[ast.Constant(k) for k in wraps], values=[ast.Constant(w) for w in wraps.values()])
    body.append(
        ast.AnnAssign(ast.Name(_WRAPS_NAME, ast.Store()), ast.parse("dict[str, str]", mode="eval").body, wrap_table, 1)
    )
    # Re-emitting through ast.unparse makes every string literal a repr() (docs/architecture.md,
    # "Untrusted text").
    text = ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"
    qualify = _Qualifier(set(classes), module_of)
    infos = {name: _info(classes[name], qualify) for name in sorted(wanted)}
    return ModelsOutput(text, infos, tuple(sorted(qualify.imports)), _defined_names(body)), []


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


def _drop_same_alias(cls: ast.ClassDef) -> None:
    """Scoped aliases make DCG write `alias='x'` on field `x`; that is noise, remove it."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            call.keywords = [
                k
                for k in call.keywords
                if not (k.arg == "alias" and isinstance(k.value, ast.Constant) and k.value.value == stmt.target.id)
            ]
            if (
                isinstance(call.func, ast.Name)
                and call.func.id == "Field"
                and not call.keywords
                and len(call.args) == 1
            ):
                arg = call.args[0]
                if isinstance(arg, ast.Constant) and arg.value is not Ellipsis:
                    stmt.value = arg  # `x: int = Field(3)` -> `x: int = 3`
                elif isinstance(arg, ast.Constant):
                    stmt.value = None  # `Field(...)` -> required, no default
                    stmt.simple = 1


def _wrap_str_defaults(cls: ast.ClassDef) -> None:
    """`url: AnyUrl = 'https://..'` is fine for pydantic but not for mypy: use Field('https://..')."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
            and not any(k in ast.unparse(stmt.annotation) for k in ("str", "Literal", "Any"))
        ):
            stmt.value = ast.Call(ast.Name("Field", ast.Load()), [stmt.value], [])


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
    wire_names: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id != "model_config":
            fields[stmt.target.id] = q.text(stmt.annotation)
            wire_names[stmt.target.id] = _alias_of(stmt) or stmt.target.id
    return ModelInfo(fields, root, wire_names)


def _alias_of(stmt: ast.AnnAssign) -> str | None:
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field":
        for k in call.keywords:
            if k.arg == "alias" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                return k.value.value
    return None


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
