"""The models module -> one module per tool, plus one of what two or more tools share.

A client's first call, like a server's, needs one tool's models; declaring every tool's classes
first is most of a big package's import time (pydantic works out each class's fields when it is
declared, even with `defer_build`). So each tool's models go in `_models/<method>.py`, and a class
that two or more tools reach, everything the shared classes reach, and the exact-schema mixin
with its tables go in `_models/_shared.py`. `_models/__init__.py` indexes what each module
declares, and the front module (`models.py`) loads a module on the first use of one of its
names (mcpgen/runtime/core/model_modules.py, `lazy_models`).

A tool's module therefore imports only from `_shared`, never from another tool's module, and
`_shared` imports from no tool module: no cycles, and each module is whole on its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .imports import import_block

SHARED = "_shared"


@dataclass(frozen=True)
class ModelModule:
    """One module of `_models/`: its name, its source (no header) and the names it declares."""

    name: str  # `_shared`, or the tool's module name (plan/naming.py: a snake_case identifier, never `_`-led)
    source: str
    declares: tuple[str, ...]  # classes, aliases and tables, in the order they are declared
    tool: str | None = None  # the MCP tool (wire name) whose models it holds; None for `_shared`


@dataclass(frozen=True)
class ToolRoots:
    """A tool's module name and the models its calls name (Args, and Result if any)."""

    module: str
    wire: str
    models: tuple[str, ...]


def split_by_tool(
    imports: Sequence[ast.Import | ast.ImportFrom],
    body: Sequence[ast.stmt],
    tools: Iterable[ToolRoots],
    pinned: Iterable[str],
    shared_imports: Sequence[ast.Import | ast.ImportFrom] = (),
) -> tuple[ModelModule, ...]:
    """`_shared` first, then one module per tool in the order given. `body` is the models module
    without its imports (classes, aliases, `X.model_rebuild()` calls, tables); `pinned` names
    always go to `_shared` (the mixin every Args/Result model takes, and its tables), and
    `shared_imports` are imported there whether used or not (a server appends models to it)."""
    declared = _declared(body)
    # Each statement walked once: what it reads decides both where it goes and what it imports.
    reads = {id(stmt): _names_used(stmt) for stmt in body}
    uses = {name: reads[id(stmt)] & declared.keys() for name, stmt in declared.items()}
    tools = list(tools)
    reached: dict[str, list[str]] = {}  # name -> the modules of the tools that reach it
    for t in tools:
        for name in _closure(t.models, uses):
            reached.setdefault(name, []).append(t.module)
    home = {name: mods[0] if len(mods) == 1 else SHARED for name, mods in reached.items()}
    pinned = set(pinned)
    shared = [name for name in declared if home.get(name, SHARED) == SHARED or name in pinned]
    for name in _closure(shared, uses):  # what the shared classes use is shared too
        home[name] = SHARED
    for name in declared:
        home.setdefault(name, SHARED)

    stmts: dict[str, list[ast.stmt]] = {SHARED: []}
    stmts.update({t.module: [] for t in tools})
    for stmt in body:
        owner = _owner(stmt)
        stmts[home[owner] if owner in home else SHARED].append(stmt)
    modules = [_module(SHARED, None, stmts[SHARED], imports, home, reads, shared_imports)]
    modules += [_module(t.module, t.wire, stmts[t.module], imports, home, reads) for t in tools]
    return tuple(modules)


def _module(
    name: str,
    wire: str | None,
    stmts: list[ast.stmt],
    imports: Sequence[ast.Import | ast.ImportFrom],
    home: dict[str, str],
    reads: dict[int, set[str]],
    always: Sequence[ast.Import | ast.ImportFrom] = (),
) -> ModelModule:
    declares = tuple(n for st in stmts for n in _targets(st))
    used: set[str] = set()
    for st in stmts:
        used |= reads[id(st)]
    mine = set(declares)
    wanted = [_only(st, used) for st in imports]
    kept: list[ast.Import | ast.ImportFrom] = [st for st in wanted if st is not None] + list(always)
    from_shared = sorted(n for n in used - mine if home.get(n) == SHARED)
    if name != SHARED and from_shared:
        kept.append(ast.ImportFrom(SHARED, [ast.alias(n) for n in from_shared], 1))
    head = import_block(kept)
    code = ast.unparse(ast.Module(body=stmts, type_ignores=[])) if stmts else ""
    source = head + ("\n\n\n" + code if code else "") + "\n"
    return ModelModule(name, source, declares, wire)


def _only(stmt: ast.Import | ast.ImportFrom, used: set[str]) -> ast.Import | ast.ImportFrom | None:
    """The import with only the names `used` (every `from __future__` import is kept)."""
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
        return stmt
    names = [a for a in stmt.names if (a.asname or a.name).split(".")[0] in used]
    if not names:
        return None
    if isinstance(stmt, ast.ImportFrom):
        return ast.ImportFrom(stmt.module, names, stmt.level)
    return ast.Import(names)


def _declared(body: Sequence[ast.stmt]) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for stmt in body:
        for name in _targets(stmt):
            out[name] = stmt
    return out


def _targets(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _owner(stmt: ast.stmt) -> str:
    """The name a statement belongs with: what it declares, or the model an `X.model_rebuild()`
    call rebuilds (it runs in the module that declares X, after X)."""
    targets = _targets(stmt)
    if targets:
        return targets[0]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.value.id
    return ""


def _names_used(node: ast.AST) -> set[str]:
    """Every name a statement reads, including those inside string annotations (`'Owner'`)."""
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.AnnAssign) or isinstance(sub, ast.ClassDef):
            for part in [sub.annotation] if isinstance(sub, ast.AnnAssign) else sub.bases:
                names |= _string_annotation_names(part)
    return names


def _string_annotation_names(node: ast.AST) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                parsed = ast.parse(sub.value, mode="eval")
            except SyntaxError:
                continue  # a Literal's value, not a forward reference
            names |= {n.id for n in ast.walk(parsed) if isinstance(n, ast.Name)}
    return names


def _closure(start: Iterable[str], uses: dict[str, set[str]]) -> list[str]:
    """`start` and every name they use, transitively, in the order first reached."""
    seen: dict[str, None] = {}
    todo = [n for n in start if n in uses]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen[name] = None
        todo.extend(sorted(uses[name] - seen.keys()))
    return list(seen)
