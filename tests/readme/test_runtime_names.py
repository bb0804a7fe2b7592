"""Every runtime name README.md and the pages of docs/ mention exists: each dotted `mcpgen.runtime.X` resolves
(to a module, or a name in one), and what they import from `mcpgen.runtime` or
`mcpgen.runtime.client.auth`, or name as `mcpgen.runtime.NAME`, is in that package's `__all__`
(the public API pinned by tests/runtime/test_public_names.py)."""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEXTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
PUBLIC_PACKAGES = ("mcpgen.runtime", "mcpgen.runtime.client.auth")
DOTTED = re.compile(r"\bmcpgen\.runtime(?:\.\w+)*")
IMPORT = re.compile(r"^\s*from (mcpgen\.runtime(?:\.\w+)*) import ([\w, ]+)", re.MULTILINE)


def _resolve(dotted: str) -> object:
    """The module or the attribute a dotted name means (ImportError/AttributeError if none)."""
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        module, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module), name)


def _mentions() -> list[tuple[str, str]]:
    found = []
    for path in TEXTS:
        text = path.read_text(encoding="utf-8")
        found += [(path.relative_to(REPO).as_posix(), m.group(0)) for m in DOTTED.finditer(text)]
    return found


def _imports() -> list[tuple[str, str, str]]:
    found = []
    for path in TEXTS:
        for match in IMPORT.finditer(path.read_text(encoding="utf-8")):
            found += [
                (path.relative_to(REPO).as_posix(), match.group(1), n.strip())
                for n in match.group(2).split(",")
                if n.strip()
            ]
    return found


def test_the_texts_mention_runtime_names() -> None:
    assert len(_mentions()) > 5 and len(_imports()) >= 2, "the patterns find what README.md names"


@pytest.mark.parametrize(("where", "dotted"), sorted(set(_mentions())))
def test_every_dotted_runtime_name_resolves(where: str, dotted: str) -> None:
    value = _resolve(dotted)
    package, _, name = dotted.rpartition(".")
    if package in PUBLIC_PACKAGES and not isinstance(value, types.ModuleType) and not name.startswith("__"):
        assert name in importlib.import_module(package).__all__, f"{where} names {dotted}, which is not public"


@pytest.mark.parametrize(("where", "module", "name"), sorted(set(_imports())))
def test_every_imported_runtime_name_is_public(where: str, module: str, name: str) -> None:
    assert _resolve(f"{module}.{name}") is not None
    if module in PUBLIC_PACKAGES:
        assert name in importlib.import_module(module).__all__, f"{where} imports {name} from {module}"
