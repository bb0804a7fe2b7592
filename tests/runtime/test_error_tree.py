"""The runtime's exceptions are one tree in one module (core/errors.py, drawn in its docstring):

- every exception class any runtime module defines lives in core/errors.py, unless it is private
  (a leading underscore) or on ALLOWED_ELSEWHERE with its reason;
- every public class there derives from McpError, unless the docstring's "why not" part names it
  (NOT_MCP_ERRORS: the warnings and InputRequired);
- the drawing is true: each class is drawn once, under its base;
- `mcpgen.runtime` exports every class of the tree a user may catch.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types
from collections.abc import Iterable
from pathlib import Path

import pytest

import mcpgen.runtime
from mcpgen.runtime.core import errors

RUNTIME = Path(mcpgen.runtime.__file__).resolve().parent
ERRORS = errors.__name__

# Exceptions defined outside core/errors.py, each with why (errors.py's docstring says the same).
ALLOWED_ELSEWHERE = {
    "mcpgen.runtime.client.llm_schemas.Refused": "tool_definitions' own control flow: a schema an LLM API "
    "would refuse leaves its tool out and becomes a refused_tools() entry, so no user sees it",
    "mcpgen.runtime.transports.http_lean.LeanHttpError": "the lean HTTP client's stand-in for httpx's "
    "exceptions; StreamableHttpTransport turns each into ConnectionClosed, so no user sees it",
    "mcpgen.runtime.transports.http_lean.ReadTimeout": "the same, for a read timeout (named like httpx's, "
    "so the ConnectionClosed message reads the same on either client)",
}
# Public classes of core/errors.py that are no McpError, and the base each has instead.
NOT_MCP_ERRORS: dict[str, type[BaseException]] = {
    "ToolOutputWarning": UserWarning,
    "SchemaDriftWarning": UserWarning,
    "InputRequired": BaseException,
}
# Classes of the tree that `mcpgen.runtime` does not export: no user catches them.
NOT_EXPORTED = {"InputRequired": "server control flow, caught by the server around every handler"}


def runtime_modules() -> list[types.ModuleType]:
    """Every module of the runtime, imported (one that cannot be imported fails the test)."""
    names = []
    for path in sorted(RUNTIME.rglob("*.py")):
        parts = list(path.relative_to(RUNTIME.parent.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return [importlib.import_module(name) for name in names]


def exception_classes(modules: Iterable[types.ModuleType]) -> dict[str, type[BaseException]]:
    """Every exception class the modules define (nested in a class too), by qualified name."""
    found: dict[str, type[BaseException]] = {}

    def visit(module: types.ModuleType, namespace: dict[str, object]) -> None:
        for value in namespace.values():
            if not inspect.isclass(value) or value.__module__ != module.__name__:
                continue
            name = f"{module.__name__}.{value.__qualname__}"
            if name in found:
                continue
            if issubclass(value, BaseException):
                found[name] = value
            visit(module, dict(vars(value)))

    for module in modules:
        visit(module, dict(vars(module)))
    return found


def _private(qualified: str) -> bool:
    return any(part.startswith("_") for part in qualified.split("."))


def misplaced(classes: dict[str, type[BaseException]], allowed: Iterable[str]) -> list[str]:
    """Public exception classes defined outside core/errors.py and not allowed there."""
    allowed = set(allowed)
    return sorted(
        name for name, cls in classes.items() if cls.__module__ != ERRORS and not _private(name) and name not in allowed
    )


def not_derived(classes: dict[str, type[BaseException]], exempt: Iterable[str]) -> list[str]:
    """Public classes of core/errors.py that are not McpErrors and not exempt."""
    exempt = set(exempt)
    return sorted(
        name
        for name, cls in classes.items()
        if cls.__module__ == ERRORS
        and not _private(name)
        and not issubclass(cls, errors.McpError)
        and cls.__name__ not in exempt
    )


def drawn_tree(doc: str) -> list[tuple[str, str | None]]:
    """(class, parent) for every class the docstring draws, roots with parent None."""
    drawn: list[tuple[str, str | None]] = []
    stack: list[str] = []
    for line in doc.splitlines():
        root = re.match(r"^    ([A-Z]\w*)(\s|$)", line)
        branch = re.search(r"[├└]── (\w+)", line)
        if branch is not None:
            depth = (branch.start() - 4) // 4 + 1
            del stack[depth:]
            drawn.append((branch.group(1), stack[-1]))
            stack.append(branch.group(1))
        elif root is not None:
            stack = [root.group(1)]
            drawn.append((root.group(1), None))
    return drawn


@pytest.fixture(scope="module")
def classes() -> dict[str, type[BaseException]]:
    found = exception_classes(runtime_modules())
    assert len(found) > 20, "the walk found the runtime's exceptions"
    return found


def test_every_runtime_exception_is_defined_in_core_errors(classes: dict[str, type[BaseException]]) -> None:
    assert misplaced(classes, ALLOWED_ELSEWHERE) == []


def test_the_allow_list_names_only_live_classes_no_user_sees(classes: dict[str, type[BaseException]]) -> None:
    for name in ALLOWED_ELSEWHERE:
        assert name in classes, f"{name} is allow-listed but no longer defined"
        assert not issubclass(classes[name], errors.McpError), f"{name} is an McpError: define it in core/errors.py"
        assert classes[name].__name__ in (errors.__doc__ or ""), f"core/errors.py's docstring does not say why {name}"


def test_every_public_error_is_an_mcp_error(classes: dict[str, type[BaseException]]) -> None:
    assert not_derived(classes, NOT_MCP_ERRORS) == []


def test_the_exceptions_to_the_rule_are_the_ones_the_docstring_gives() -> None:
    why_not = (errors.__doc__ or "").split("Why not everything derives from McpError:")[1]
    for name, base in NOT_MCP_ERRORS.items():
        cls = getattr(errors, name)
        assert issubclass(cls, base) and not issubclass(cls, errors.McpError), name
        assert f"└── {name}" in why_not or f"├── {name}" in why_not, f"{name} is not in the 'why not' part"


def test_the_drawn_tree_is_the_class_tree(classes: dict[str, type[BaseException]]) -> None:
    drawn = drawn_tree(errors.__doc__ or "")
    names = [name for name, _ in drawn]
    public = sorted(cls.__name__ for name, cls in classes.items() if cls.__module__ == ERRORS and not _private(name))
    assert sorted(n for n in names if hasattr(errors, n)) == public, "each class of errors.py drawn once"
    for name, parent in drawn:
        if parent is None:
            continue
        bases = [base.__name__ for base in getattr(errors, name).__bases__]
        assert parent in bases, f"{name} is drawn under {parent}, but its bases are {bases}"


def test_mcpgen_runtime_exports_every_error_a_user_catches(classes: dict[str, type[BaseException]]) -> None:
    tree = {cls.__name__ for name, cls in classes.items() if cls.__module__ == ERRORS and not _private(name)}
    exported = {name for name in mcpgen.runtime.__all__ if name in tree}
    assert tree - exported == set(NOT_EXPORTED)
    for name in exported:
        assert getattr(mcpgen.runtime, name) is getattr(errors, name)


def test_the_checks_catch_a_planted_exception() -> None:
    planted = types.ModuleType("mcpgen.runtime.client.planted")
    exec(
        "class PlantedError(Exception): pass\n"
        "class _Quiet(Exception): pass\n"
        "class Holder:\n"
        "    class NestedError(ValueError): pass\n"
        "class NotAnError: pass\n",
        planted.__dict__,
    )
    found = exception_classes([planted])
    assert sorted(found) == [
        "mcpgen.runtime.client.planted.Holder.NestedError",
        "mcpgen.runtime.client.planted.PlantedError",
        "mcpgen.runtime.client.planted._Quiet",
    ]
    assert misplaced(found, ()) == [
        "mcpgen.runtime.client.planted.Holder.NestedError",
        "mcpgen.runtime.client.planted.PlantedError",
    ]
    assert misplaced(found, ["mcpgen.runtime.client.planted.PlantedError"]) == [
        "mcpgen.runtime.client.planted.Holder.NestedError"
    ]

    fake_errors = types.ModuleType(ERRORS)
    fake_errors.McpError = errors.McpError  # type: ignore[attr-defined]
    exec("class Stray(Exception): pass\nclass Fine(McpError): pass\n", fake_errors.__dict__)
    stray = exception_classes([fake_errors])
    assert sorted(stray) == [f"{ERRORS}.Fine", f"{ERRORS}.McpError", f"{ERRORS}.Stray"]
    assert not_derived(stray, ()) == [f"{ERRORS}.Stray"]
    assert not_derived(stray, ["Stray"]) == []


def test_the_tree_reader_reads_depth() -> None:
    doc = "    A        root\n    ├── B    x\n    │   └── C    y\n    └── D    z\n    E        other root\n    └── F\n"
    assert drawn_tree(doc) == [("A", None), ("B", "A"), ("C", "B"), ("D", "A"), ("E", None), ("F", "E")]
