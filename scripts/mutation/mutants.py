"""The mutants of one module: small AST edits, numbered in a stable order.

`points(source)` lists every place an edit applies (line, what the edit is); `mutated(source, i)`
is the module's AST with edit `i` made, compiled as it is so that line numbers stay the module's.
Both walk a fresh parse in the same order, so an index names the same edit in every process.

The edits: a comparison flipped (`==` to `!=`, `<` to `>=`, `in` to `not in`, ...), `and`/`or`
swapped, a `not` dropped, a condition negated (`if`, `while`, a conditional expression), a number
changed (n to n + 1) or a boolean constant flipped, a statement removed (a call, `raise`,
`continue`, `break`, an augmented assignment or an assignment to an attribute or item), a
returned value replaced by None. A line ending in `# pragma: no mutate` is left alone, and so
is a docstring.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_SYMBOLS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.GtE: ">=",
    ast.Gt: ">",
    ast.LtE: "<=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_REMOVABLE = (ast.Expr, ast.Raise, ast.Continue, ast.Break, ast.AugAssign)


@dataclass(frozen=True)
class Point:
    line: int
    edit: str  # what the mutant changes, for people


# An edit: a description and a function that makes it on the node (in place) or returns a new node.
Edit = tuple[str, Callable[[ast.AST], ast.AST]]


def _negated(node: ast.AST) -> ast.AST:
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _edits(node: ast.AST, parent: ast.AST | None) -> Iterator[Edit]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIPS:
        op = type(node.ops[0])
        flipped = _FLIPS[op]

        def flip(n: ast.AST, to: type[ast.cmpop] = flipped) -> ast.AST:
            assert isinstance(n, ast.Compare)
            n.ops = [to()]
            return n

        yield f"comparison {_SYMBOLS[op]} -> {_SYMBOLS[flipped]}", flip
    elif isinstance(node, ast.BoolOp):
        swapped = ast.Or if isinstance(node.op, ast.And) else ast.And

        def swap(n: ast.AST, to: type[ast.boolop] = swapped) -> ast.AST:
            assert isinstance(n, ast.BoolOp)
            n.op = to()
            return n

        yield ("and -> or" if swapped is ast.Or else "or -> and"), swap
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not dropped", lambda n: n.operand if isinstance(n, ast.UnaryOp) else n
    elif isinstance(node, ast.Constant) and not _is_docstring(node, parent):
        value = node.value
        if isinstance(value, bool):
            yield f"constant {value} -> {not value}", lambda n: ast.Constant(value=not value)
        elif isinstance(value, (int, float)):
            yield f"constant {value!r} -> {value + 1!r}", lambda n: ast.Constant(value=value + 1)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)) and not isinstance(node.test, (ast.Compare, ast.UnaryOp)):

        def negate(n: ast.AST) -> ast.AST:
            assert isinstance(n, (ast.If, ast.While, ast.IfExp))
            n.test = _negated(n.test)
            return n

        yield "condition negated", negate
    if _removable(node, parent):
        yield f"statement removed ({type(node).__name__.lower()})", lambda n: ast.Pass()
    if isinstance(node, ast.Return) and node.value is not None and not isinstance(node.value, ast.Constant):

        def nothing(n: ast.AST) -> ast.AST:
            assert isinstance(n, ast.Return)
            n.value = ast.Constant(value=None)
            return n

        yield "return value -> None", nothing


def _is_docstring(node: ast.Constant, parent: ast.AST | None) -> bool:
    return isinstance(parent, ast.Expr) and isinstance(node.value, str)


def _removable(node: ast.AST, parent: ast.AST | None) -> bool:
    if isinstance(node, ast.Expr):
        return not isinstance(node.value, ast.Constant)  # a docstring or a bare `...`
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return parent is not None and all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets)
    return isinstance(node, _REMOVABLE)


def _walk(tree: ast.AST, skip: set[int]) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """Every node with its parent, depth first in source order; annotations and skipped lines left out."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        if getattr(node, "lineno", None) in skip:
            continue
        yield node, parent
        children = []
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "type_comment", "decorator_list"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    children.append((child, node))
        stack.extend(reversed(children))


def _skipped(source: str) -> set[int]:
    return {i for i, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith("# pragma: no mutate")}


def _places(tree: ast.AST, source: str) -> list[tuple[ast.AST, ast.AST | None, Edit]]:
    return [(n, p, e) for n, p in _walk(tree, _skipped(source)) for e in _edits(n, p)]


def points(source: str) -> list[Point]:
    return [Point(getattr(n, "lineno", 0), e[0]) for n, _, e in _places(ast.parse(source), source)]


def mutated(source: str, index: int) -> ast.Module:
    tree = ast.parse(source)
    node, parent, (_, make) = _places(tree, source)[index]
    new = make(node)
    if new is not node:
        ast.copy_location(new, node)
        _replace(parent, node, new)
    return ast.fix_missing_locations(tree)


def _replace(parent: ast.AST | None, old: ast.AST, new: ast.AST) -> None:
    assert parent is not None
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, child in enumerate(value):
                if child is old:
                    value[i] = new
                    return
    raise ValueError("node not found under its parent")
