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
