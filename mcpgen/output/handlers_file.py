"""The user's handlers.py: written once, then only ever extended (`--add-missing`), never rewritten.

mcpgen reads it to say which tools have no handler yet; the new stubs it may append come from
the server renderer, formatted on their own (the user's file itself is never formatted).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.model import Problem
from .files import FileSet
from .ownership import Tree

HANDLERS_FILE = "handlers.py"
HANDLERS_CLASS = "Handlers"


@dataclass
class ServerFiles:
    """The generated files, the handlers.py to write if absent, and one stub per handler method."""

    files: FileSet
    handlers: str
    stubs: dict[str, str] = field(default_factory=dict)  # python method name -> stub source (class-indented)
    methods: dict[str, str] = field(default_factory=dict)  # python method name -> "tool 'wire-name'"
    contract: str = ""  # the contract test file's text (see contract_file.py)


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


def plan_handlers(
    result: ServerFiles, out: Path, tree: Tree, *, add_missing: bool
) -> tuple[dict[str, str], list[str], list[Problem]]:
    """What to write to handlers.py, if anything: ({path: text}, messages for the user, problems).

    handlers.py is never rewritten: only created when absent, or extended with stubs
    when add_missing is set.
    """
    messages: list[str] = []
    handlers_path = out / HANDLERS_FILE
    extra: dict[str, str] = {}
    kind = tree.kind(HANDLERS_FILE)
    if kind is None:
        extra[HANDLERS_FILE] = result.handlers
        messages.append(f"wrote {handlers_path}: fill in the handlers")
    elif kind != "file":
        if add_missing:
            return {}, messages, [Problem(str(handlers_path), "is not a plain file (a link?); left it alone")]
    else:
        try:
            with open(handlers_path, "rb", opener=_nofollow) as f:
                current = f.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return {}, messages, [Problem(str(handlers_path), f"cannot read: {exc}; left it alone")]
        have = implemented_methods(current)
        if have is None:
            return (
                {},
                messages,
                [
                    Problem(
                        str(handlers_path),
                        f"cannot find class {HANDLERS_CLASS} (or the file does not parse); left it alone",
                    )
                ],
            )
        missing = [m for m in result.stubs if m not in have]
        if missing and add_missing:
            extended = append_stubs(current, [result.stubs[m] for m in missing])
            if extended is None:
                return {}, messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS}; left it alone")]
            extra[HANDLERS_FILE] = extended
            messages.append(f"added stubs to {handlers_path}: {', '.join(missing)}")
            lacking = _unimported(current, [result.stubs[m] for m in missing])
            if lacking:
                messages.append(
                    f"{handlers_path}: the new stubs use {', '.join(lacking)}; import them from ._generated"
                )
        elif missing:
            for m in missing:
                messages.append(
                    f"{handlers_path}: no handler for {result.methods[m]} (method {m}); "
                    "it answers 'not implemented' (--add-missing appends a stub)"
                )
    return extra, messages, []


def _nofollow(path: str, flags: int) -> int:
    import os

    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))
