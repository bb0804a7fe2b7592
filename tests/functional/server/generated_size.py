"""How much code a generated server's `_generated/` carries (issue 12's budget), and a synthetic
catalog to measure it on. Shared by tests/functional/server/test_generated_size.py and
bench/server_size_bench.py.

Counted: every non-blank, non-comment line (docstrings too) of `_generated/*.py` (so not the
models' declarations in `_generated/_models/`), except modules of pure data (nothing but
assignments, a docstring and `from __future__` lines); `models.py`, which loads the models on
first use, is code and counts. Budget: 80 lines plus 8 per tool.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path
from typing import Any

FIXED_BUDGET = 80
PER_TOOL_BUDGET = 8


def budget(tools: int) -> int:
    return FIXED_BUDGET + PER_TOOL_BUDGET * tools


def code_lines(source: str) -> int:
    """Non-blank lines that hold something besides a comment (a docstring's lines count)."""
    physical = source.splitlines()
    has_code: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            has_code.update(range(tok.start[0], tok.end[0] + 1))
    # A blank line inside a docstring is still blank.
    return sum(1 for n in has_code if physical[n - 1].strip())


def is_pure_data(source: str) -> bool:
    """Assignments only (plus a module docstring, `from __future__` imports and the import of the
    row types the tables are made of, from the runtime's support/)."""
    for i, node in enumerate(ast.parse(source).body):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("support.server"):
            continue
        return False
    return True


def counted_files(package: Path) -> dict[str, int]:
    """{file name: counted lines} for the `_generated/` files the budget covers."""
    counts: dict[str, int] = {}
    for path in sorted((package / "_generated").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if is_pure_data(source):
            continue
        counts[path.name] = code_lines(source)
    return counts


def synthetic_catalog(n: int) -> dict[str, Any]:
    """n tools like bench/codegen_bench.py's: every third one has an outputSchema."""
    tools = []
    for i in range(n):
        tool: dict[str, Any] = {
            "name": f"tool-{i:05d}",
            "description": f"Synthetic tool number {i}.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    "mode": {"type": "string", "enum": ["fast", "exact", f"m{i}"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["query"],
            },
        }
        if i % 3 == 0:
            tool["outputSchema"] = {
                "type": "object",
                "properties": {"hits": {"type": "array", "items": {"type": "string"}}, "total": {"type": "integer"}},
                "required": ["hits", "total"],
            }
        tools.append(tool)
    return {"tools": tools}
