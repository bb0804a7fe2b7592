"""The searchable index of a code-mode client package: what an agent reads before it imports a tool.

A generated `_index.py` holds one `ToolInfo` per tool as plain literals; searching it never
imports a tool module, the client or the models, so an agent pays only for the tools it uses.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .tool_search import SEARCH_LIMIT, rank


@dataclass(frozen=True)
class ToolInfo:
    """One tool as the index shows it."""

    name: str  # the Python name: `from <package>.tools.<module> import <name>`
    wire: str  # the name the server knows it by
    summary: str  # one line
    signature: str  # `async def name(*, arg: type, ...) -> result`
    doc: str  # the function's docstring
    hints: Mapping[str, bool] = field(default_factory=dict[str, bool])  # readOnlyHint, destructiveHint, ...
    # Its module under tools/: the name, unless that is too long for a file name or one Windows
    # keeps for a device ("" in packages generated before the two could differ: the name).
    module: str = ""
    # `async def start_name(...) -> TypedTask[result]` when the tool's module has one (the tool
    # may run as a task, Tasks extension); "" otherwise (and in packages generated before it).
    task: str = ""

    @property
    def read_only(self) -> bool:
        return self.hints.get("readOnlyHint", False)

    @property
    def destructive(self) -> bool:
        """The MCP default: a tool that is not read-only may be destructive unless it says otherwise."""
        return not self.read_only and self.hints.get("destructiveHint", True)


class ToolIndex:
    """`search_tools`, `describe` and `info` over a package's static table of tools."""

    def __init__(self, package: str, tools: Sequence[ToolInfo]) -> None:
        self.package = package
        self.tools = tuple(tools)
        self._by_name = {t.name: t for t in self.tools}
        self._by_wire = {t.wire: t for t in self.tools}

    def search(self, query: str = "", limit: int = SEARCH_LIMIT) -> list[tuple[str, str]]:
        """(name, one-line summary) of the tools matching every word of `query`, best first.

        A word in the tool's name counts more than one in its summary or docstring; an empty
        query lists the first `limit` tools by name (tool_search.py: the one search, shared with
        the LLM discovery meta-tools).
        """
        found = rank(query, ((t.name, f"{t.name} {t.wire}", f"{t.summary} {t.doc}", t) for t in self.tools), limit)
        return [(t.name, t.summary) for t in found]

    def info(self, name: str) -> ToolInfo:
        """The tool by its Python name, else by its MCP name (a string that is both, for two
        tools, means the Python one: what `search` returns); LookupError with close names otherwise."""
        found = self._by_name.get(name) or self._by_wire.get(name)
        if found is None:
            close = difflib.get_close_matches(name, list(self._by_name), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; search_tools() lists them"
            raise LookupError(f"no tool named {name!r}{hint}")
        return found

    def describe(self, name: str) -> str:
        """How to import and call one tool: its signature, docstring and behaviour hints."""
        t = self.info(name)
        hints = ", ".join(f"{k}={v}" for k, v in t.hints.items()) or "none declared"
        where = f"{self.package}.tools.{t.module or t.name}"
        text = f"from {where} import {t.name}\n\n{t.signature}\n\n{t.doc}\n\nhints: {hints}\n"
        if not t.task:
            return text
        start = t.task.removeprefix("async def ").partition("(")[0]
        return (
            f"{text}\nIt may run as a task (long-running): from {where} import {start}\n\n{t.task}\n\n"
            f"returns at once a task handle: `await task.wait()` gives what {t.name}(...) returns, "
            "`task.status` follows it, `await task.cancel()` stops it.\n"
        )
