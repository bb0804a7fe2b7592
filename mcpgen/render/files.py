"""What rendering produces: a package's files in memory (a `FileSet`), and a server's split into
the files mcpgen generates every time and the two that become the user's.

Render fills a FileSet; output formats it (`output/formatter.py`) and writes, checks or diffs it
(`output/emit.py`). Nothing here touches disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog.model import Problem

# A scaffold's user-owned files: written once when absent, then never rewritten, never compared
# by --check, never removed (handlers.py may be extended with --add-missing's stubs).
HANDLERS_FILE = "handlers.py"


def contract_file_name(package: str) -> str:
    """`test_<package>_contract.py`: inside the output folder (mcpgen writes nowhere else), and a
    name plain `pytest` collects there."""
    return f"test_{package}_contract.py"


@dataclass
class FileSet:
    files: dict[str, str] = field(default_factory=dict)  # posix relative path -> text
    verbatim: set[str] = field(default_factory=set)  # paths the formatter must not touch (copied runtime)
    warnings: list[Problem] = field(default_factory=list)
    # (wire name, Python name) of every name not given by the plain rule (plan/renames.py).
    renames: list[tuple[str, str]] = field(default_factory=list)

    def add(self, path: str, text: str, *, format: bool = True) -> None:
        self.files[path] = text
        if not format:
            self.verbatim.add(path)


@dataclass
class ServerFiles:
    """The generated files, the handlers.py to write if absent, and one stub per handler method."""

    files: FileSet
    handlers: str
    stubs: dict[str, str] = field(default_factory=dict)  # python method name -> stub source (class-indented)
    methods: dict[str, str] = field(default_factory=dict)  # python method name -> "tool 'wire-name'"
    contract: str = ""  # the contract test file's text (written as contract_file_name(package))
