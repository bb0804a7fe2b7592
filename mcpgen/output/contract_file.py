"""The scaffold's contract test file: like handlers.py, written once when absent and then the
user's (never rewritten, never compared by --check, never removed)."""

from __future__ import annotations

from .ownership import Tree


def contract_file_name(package: str) -> str:
    """`test_<package>_contract.py`: inside the output folder (mcpgen writes nowhere else), and a
    name plain `pytest` collects there."""
    return f"test_{package}_contract.py"


def plan_contract(text: str, name: str, tree: Tree) -> dict[str, str]:
    """{name: text} when the file is absent; nothing when anything (the user's edits, a link,
    a folder) is already at that path."""
    return {name: text} if tree.kind(name) is None else {}
