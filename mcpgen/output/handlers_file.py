"""The user's handlers.py, once it exists: read to say which handlers it lacks, and extended with
their stubs on `--add-missing` (its other lines never change; the file itself is never formatted).

The stubs come from the server renderer (render/server.py), formatted on their own; the rule
that the file is written once and then the user's is `user_files.py`'s.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..catalog.model import Problem

HANDLERS_CLASS = "Handlers"


@dataclass(frozen=True)
class Stubs:
    """A stub for each handler method the user's class should have, and what each one serves."""

    stubs: Mapping[str, str]  # python method name -> stub source (class-indented)
    labels: Mapping[str, str]  # python method name -> "tool 'wire-name'"
    add_missing: bool  # append the missing ones (else each is named in a message)


def implemented_methods(handlers_source: str) -> set[str] | None:
    """Method names defined on `class Handlers` in the user's file (None if it does not parse)."""
    try:
        tree = ast.parse(handlers_source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == HANDLERS_CLASS:
            return {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return None


# Names the stubs take from `._generated` (a handlers.py from an older mcpgen may lack some).
_STUB_NAMES = ("Context", "PromptOutput", "ResourceOutput", "ToolOutput", "features", "models")


def _unimported(handlers_source: str, stubs: list[str]) -> list[str]:
    tree = ast.parse(handlers_source)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    used = "\n".join(stubs)
    return [name for name in _STUB_NAMES if name not in imported and re.search(rf"\b{name}\b", used)]


def append_stubs(handlers_source: str, stubs: list[str]) -> str | None:
    """Insert stubs at the end of `class Handlers`, leaving every other line as it was."""
    tree = ast.parse(handlers_source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == HANDLERS_CLASS and node.end_lineno is not None:
            lines = handlers_source.splitlines(keepends=True)
            end = node.end_lineno
            if lines and not lines[end - 1].endswith("\n"):
                lines[end - 1] += "\n"
            block = "".join("\n" + stub.rstrip("\n") + "\n" for stub in stubs)
            return "".join(lines[:end]) + block + "".join(lines[end:])
    return None


def extend_handlers(handlers_path: Path, kind: str, stubs: Stubs) -> tuple[str | None, list[str], list[Problem]]:
    """The user's existing handlers.py (`kind` as the folder walk found it): its new text when
    stubs are to be appended (else None), messages for the user, problems."""
    messages: list[str] = []
    if kind != "file":
        if stubs.add_missing:
            return None, messages, [Problem(str(handlers_path), "is not a plain file (a link?); left it alone")]
        return None, messages, []
    try:
        with open(handlers_path, "rb", opener=_nofollow) as f:
            current = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, messages, [Problem(str(handlers_path), f"cannot read: {exc}; left it alone")]
    have = implemented_methods(current)
    if have is None:
        reason = f"cannot find class {HANDLERS_CLASS} (or the file does not parse); left it alone"
        return None, messages, [Problem(str(handlers_path), reason)]
    missing = [m for m in stubs.stubs if m not in have]
    if missing and stubs.add_missing:
        extended = append_stubs(current, [stubs.stubs[m] for m in missing])
        if extended is None:
            return None, messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS}; left it alone")]
        messages.append(f"added stubs to {handlers_path}: {', '.join(missing)}")
        lacking = _unimported(current, [stubs.stubs[m] for m in missing])
        if lacking:
            messages.append(f"{handlers_path}: the new stubs use {', '.join(lacking)}; import them from ._generated")
        return extended, messages, []
    for m in missing:
        messages.append(
            f"{handlers_path}: no handler for {stubs.labels[m]} (method {m}); "
            "it answers 'not implemented' (--add-missing appends a stub)"
        )
    return None, messages, []


def _nofollow(path: str, flags: int) -> int:
    import os

    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))
