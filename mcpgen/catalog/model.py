"""The intermediate representation every source produces and every later stage reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input; stages collect these instead of raising on the first."""

    where: str  # tool name, file path or server command
    message: str
    pointer: str = ""  # JSON pointer inside `where`, "" for the whole thing
    warning: bool = False  # reported, but generation goes on
    # The problem concerns one tool only: `--skip-invalid` leaves that tool out and goes on.
    skippable: bool = False
    tool: str | None = None  # the wire name of that tool, when it has one

    def __str__(self) -> str:
        loc = f"{self.where}{'#' + self.pointer if self.pointer else ''}"
        return f"{loc}: {self.message}"


class StageError(Exception):
    """Raised at a stage boundary when problems were found; carries all of them."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class ToolSpec:
    """One tool: the parsed view next to the original JSON, kept verbatim."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any] | None
    raw: dict[str, Any]


@dataclass(frozen=True)
class FailedList:
    """An optional list (prompts, resources, resource templates) a live server failed to give:
    the catalog goes on without it (tools are the contract), and says so wherever it is used."""

    method: str  # "resources/templates/list"
    error: str  # what the server answered, e.g. "[-32601] Method not found"

    def warning(self) -> Problem:
        what = OPTIONAL_LISTS.get(self.method, self.method)
        return Problem(
            self.method,
            f"failed: {self.error}; going on without its {what} (--strict-lists makes this an error)",
            warning=True,
        )


# The lists a live catalog may go without, and what each holds (in words).
OPTIONAL_LISTS = {
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resource templates",
}


@dataclass(frozen=True)
class Catalog:
    server_info: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    prompts: tuple[dict[str, Any], ...] = ()
    resources: tuple[dict[str, Any], ...] = ()
    resource_templates: tuple[dict[str, Any], ...] = ()
    instructions: str | None = None
    # The stdio command the catalog was read from (None for files): AsyncClient.connect() reuses it.
    source_command: tuple[str, ...] | None = None
    # The HTTP URL it was read from (None otherwise): AsyncClient.connect() reuses it.
    source_url: str | None = None
    # The mcpServers file and the entry it was read from: connect() reads that entry again, so
    # the entry's args and env (tokens) never travel into generated code.
    source_config: tuple[str, str] | None = None
    # Tools left out because they are invalid (each a skippable Problem); only --skip-invalid accepts them.
    refused: tuple[Problem, ...] = ()
    # Optional lists the live server failed (tolerated unless --strict-lists); a snapshot keeps them.
    failed_lists: tuple[FailedList, ...] = ()
    # The extensions the server declared (capabilities.extensions: id -> settings), e.g. Skills.
    extensions: dict[str, Any] = field(default_factory=dict)

    def list_warnings(self) -> list[Problem]:
        """One warning per optional list the source failed: every reader of a catalog tells them."""
        return [f.warning() for f in self.failed_lists]
