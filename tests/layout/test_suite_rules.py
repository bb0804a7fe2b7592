"""Rules the test suite holds itself to, read from its source by AST:

- every `pytest.raises` names the message it expects (`match=`): the one-line reason a user
  reads is part of the contract, and without it any exception of the class passes (also in the
  call form `pytest.raises(E, f, ...)`, which cannot take `match=`: it is refused too).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# Generated code and the npm peers are not the suite's own source.
SKIPPED = ("golden/expected", "peers/node_modules")


def raises_without_match(source: str) -> list[int]:
    """The lines of `pytest.raises(...)` calls without `match=` (however pytest is spelled:
    `pytest.raises` or a `raises` imported from it)."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "pytest"
        for alias in node.names
        if alias.name == "raises"
    }
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        named = isinstance(func, ast.Attribute) and func.attr == "raises" and ast.unparse(func.value) == "pytest"
        if named or (isinstance(func, ast.Name) and func.id in imported):
            if not any(keyword.arg == "match" for keyword in node.keywords):
                lines.append(node.lineno)
    return sorted(lines)


def test_every_pytest_raises_has_a_match() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if any(part in path.as_posix() for part in SKIPPED):
            continue
        found += [f"{path.relative_to(TESTS)}:{line}" for line in raises_without_match(path.read_text("utf-8"))]
    assert not found, "pytest.raises without match=: " + ", ".join(found)


def test_the_check_finds_every_spelling() -> None:
    planted = """
import pytest
from pytest import raises, raises as r

with pytest.raises(ValueError):
    pass
with pytest.raises(
    KeyError,
):
    pass
pytest.raises(ValueError, int, "x")
with raises(ValueError):
    pass
with r(ValueError):
    pass
with pytest.raises(ValueError, match="^bad$"):
    pass
with raises(ValueError, match="bad"):
    pass
"""
    assert raises_without_match(planted) == [5, 7, 11, 12, 14]
