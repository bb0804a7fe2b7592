"""One import block, grouped and sorted as ruff's isort rules (and isort's defaults) write it.

`from __future__` first, then the standard library, then third-party packages (the installed
runtime counts as one), then relative imports (a vendored runtime); a blank line between groups,
`import x` before `from x import ...` in each, each module's names once and sorted constants,
classes, then the rest. `as` imports keep their own line, as ruff's default does.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

_GROUPS = 4  # future, standard library, third party, local


def _group(stmt: ast.Import | ast.ImportFrom) -> int:
    if isinstance(stmt, ast.ImportFrom):
        if stmt.level:
            return 3
        if stmt.module == "__future__":
            return 0
        module = stmt.module or ""
    else:
        module = stmt.names[0].name
    return 1 if module.split(".")[0] in sys.stdlib_module_names else 2


def _name_key(name: str) -> tuple[int, str, str]:
    """isort's order-by-type: CONSTANTS, then Classes, then functions and modules; case-insensitive."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), name


def import_block(stmts: Iterable[ast.Import | ast.ImportFrom]) -> str:
    """The statements as one sorted block of source text (each name once), without a trailing newline."""
    plain: list[set[tuple[str, str | None]]] = [set() for _ in range(_GROUPS)]
    froms: list[dict[tuple[str, int], set[tuple[str, str | None]]]] = [{} for _ in range(_GROUPS)]
    for stmt in stmts:
        group = _group(stmt)
        if isinstance(stmt, ast.Import):
            plain[group].update((a.name, a.asname) for a in stmt.names)
        else:
            key = (stmt.module or "", stmt.level)
            froms[group].setdefault(key, set()).update((a.name, a.asname) for a in stmt.names)
    blocks: list[str] = []
    for group in range(_GROUPS):
        lines = [f"import {name}" + (f" as {asname}" if asname else "") for name, asname in sorted(plain[group])]
        # Relative imports furthest first (`..` before `.`), then by module, case-insensitively.
        for module, level in sorted(froms[group], key=lambda k: (-k[1], k[0].lower(), k[0])):
            where = "." * level + module
            names = froms[group][(module, level)]
            bare = sorted((n for n, a in names if a is None), key=_name_key)
            statements = [(_name_key(bare[0]), f"from {where} import {', '.join(bare)}")] if bare else []
            statements += [(_name_key(n), f"from {where} import {n} as {a}") for n, a in names if a is not None]
            lines += [text for _, text in sorted(statements)]
        if lines:
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def import_lines(lines: Iterable[str]) -> str:
    """`import_block` of import statements given as source lines (identifiers only, never untrusted text)."""
    tree = ast.parse("\n".join(lines))
    return import_block(s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom)))
