"""The modules datamodel-code-generator (DCG) made of a document's parts -> one module.

A big catalog's document is cut into parts (`Document.parts`), one DCG call each. Within one
call DCG keeps the class names it invents unique (`Owner`, `Owner1`, ...), but two calls know
nothing of each other: both may invent `Owner`. The merge keeps the first part's name and gives
a later part's class a free one (`Owner` -> `Owner12`), renaming it through that part's syntax
tree (the class statement, every reference to it, forward references written as strings, its
`model_rebuild()` call), never through the text: a field's wire name, a default, a `Literal`
value or a description that happens to read `Owner` stays as it is. The names mcpgen gave the
Args/Result models are each defined by one part only (their $defs keys) and are never renamed.

The result depends only on the parts and their order: the same catalog gives the same bytes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence, Set

from .document import ROOT_CLASS

_IMPORTS = (ast.Import, ast.ImportFrom)


# One DCG module and the Args/Result names its document defined (its own: never renamed).
Part = tuple[ast.Module, Set[str]]


def merge(parts: Sequence[Part]) -> ast.Module:
    """One module: every part's imports (postprocess writes them as one block), then each part's
    statements in part order, DCG's root class dropped, later parts' colliding names renamed."""
    pinned: set[str] = set().union(*(own for _, own in parts))
    imported = {name for tree, _ in parts for name in _imported_names(tree.body)}
    defined = [_defined_names(tree.body) for tree, _ in parts]
    # A new name must not be any part's name either: it would capture that part's references.
    taken: set[str] = {ROOT_CLASS} | pinned | imported | {n for names in defined for n in names}
    used: set[str] = set()
    fresh = _FreshNames(taken)
    body: list[ast.stmt] = []
    imports: list[ast.stmt] = []
    for (tree, own), names in zip(parts, defined, strict=True):
        renames: dict[str, str] = {}
        for name in names:
            if name in own:
                used.add(name)
            elif name in used or name in pinned or name in imported:
                renames[name] = fresh.take(name)
            else:
                used.add(name)
        stmts = [st for st in tree.body if not (isinstance(st, ast.ClassDef) and st.name == ROOT_CLASS)]
        if renames:
            _Renamer(renames).module(stmts)
        imports += [st for st in stmts if isinstance(st, _IMPORTS)]
        body += [st for st in stmts if not isinstance(st, _IMPORTS)]
    return ast.Module(body=imports + body, type_ignores=[])


class _FreshNames:
    """Free names `<base><n>` (DCG's own style), counting up per base; never one already taken."""

    def __init__(self, taken: set[str]) -> None:
        self._taken = taken
        self._next: dict[str, int] = {}

    def take(self, name: str) -> str:
        base = name.rstrip("0123456789") or name
        n = self._next.get(base, 1)
        while f"{base}{n}" in self._taken:
            n += 1
        self._next[base] = n + 1
        new = f"{base}{n}"
        self._taken.add(new)
        return new


def _defined_names(body: Iterable[ast.stmt]) -> list[str]:
    """Module-level names a part binds besides imports (classes, constants), in order."""
    names: list[str] = []
    for st in body:
        if isinstance(st, ast.ClassDef) and st.name != ROOT_CLASS:
            names.append(st.name)
        elif isinstance(st, ast.Assign):
            names += [t.id for t in st.targets if isinstance(t, ast.Name)]
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            names.append(st.target.id)
    return names


def _imported_names(body: Iterable[ast.stmt]) -> set[str]:
    return {
        (a.asname or a.name).split(".")[0] for st in body if isinstance(st, _IMPORTS) for a in st.names if a.name != "*"
    }


# Subscripts whose arguments are values, not types: `Literal['Owner']` names no class.
_VALUE_SUBSCRIPTS = frozenset({"Literal"})
# Subscripts whose first argument alone is a type: `Annotated[Owner, Field(...)]`.
_FIRST_ONLY_SUBSCRIPTS = frozenset({"Annotated"})


class _Renamer:
    """Renames module-level names in one part's statements: every read of the name, the class
    statement and module-level assignments that bind it, and forward references in annotations
    (a string there is Python source: it is parsed, renamed and written back). A class body's
    own assignments (its fields, `model_config`) bind class attributes, never module names."""

    def __init__(self, renames: dict[str, str]) -> None:
        self._renames = renames

    def module(self, body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, ast.ClassDef):
                self._class(st)
            elif isinstance(st, ast.Assign):
                for target in st.targets:
                    self._store(target)
                self._value(st.value)
            elif isinstance(st, ast.AnnAssign):
                self._store(st.target)
                self._annotation(st.annotation)
                if st.value is not None:
                    self._value(st.value)
            elif not isinstance(st, _IMPORTS):
                self._value(st)  # `Owner.model_rebuild()` and any other statement: reads only

    def _store(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            target.id = self._renames.get(target.id, target.id)
        else:
            self._value(target)

    def _class(self, cls: ast.ClassDef) -> None:
        cls.name = self._renames.get(cls.name, cls.name)
        for base in cls.bases:
            self._annotation(base)  # `RootModel[list[Owner]]`: a base is written like an annotation
        for node in [*cls.keywords, *cls.decorator_list]:
            self._value(node)
        for st in cls.body:
            if isinstance(st, ast.ClassDef):
                self._class(st)
            elif isinstance(st, ast.AnnAssign):
                self._annotation(st.annotation)
                if st.value is not None:
                    self._value(st.value)
            elif isinstance(st, ast.Assign):
                self._value(st.value)
            else:
                self._value(st)

    def _value(self, node: ast.AST) -> None:
        """Code that runs: every name read is renamed; strings are data and stay."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                sub.id = self._renames.get(sub.id, sub.id)

    def _annotation(self, node: ast.expr) -> None:
        """A type expression: names and string forward references renamed, `Literal` values and
        `Annotated` metadata (a `Field(...)` call) left to `_value`'s rule."""
        if isinstance(node, ast.Name):
            node.id = self._renames.get(node.id, node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = self._forward_ref(node.value)
        elif isinstance(node, ast.Subscript):
            self._annotation(node.value)
            head = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
            if head in _VALUE_SUBSCRIPTS:
                return
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in _FIRST_ONLY_SUBSCRIPTS:
                self._annotation(items[0])
                for item in items[1:]:
                    self._value(item)
                return
            for item in items:
                self._annotation(item)
        elif isinstance(node, ast.BinOp):  # `Owner | None`
            self._annotation(node.left)
            self._annotation(node.right)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for item in node.elts:
                self._annotation(item)
        elif isinstance(node, ast.Attribute):
            self._value(node.value)
        else:
            self._value(node)

    def _forward_ref(self, text: str) -> str:
        try:
            expr = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            return text  # not Python: not a reference
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if not names & self._renames.keys():
            return text
        self._annotation(expr)
        return ast.unparse(expr)
