"""What shapes a generated package besides its source (one frozen object per kind of output),
and what a run does with it."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Mode(enum.Enum):
    """What a run does with the generated files."""

    WRITE = "write"
    CHECK = "check"  # compare with disk, write nothing
    DIFF = "diff"  # compare and print a unified diff, write nothing


class Runtime(str, enum.Enum):
    """Where generated code finds mcpgen.runtime."""

    IMPORT = "import"  # the installed mcpgen package
    VENDOR = "vendor"  # a copy inside the generated package (`_runtime/`): no mcpgen needed at run time


class Formatter(str, enum.Enum):
    """Whose style generated Python has (output/formatter.py): both are black's style, and agree
    on nearly all code; a team whose CI runs `black --check` over generated code picks black."""

    RUFF = "ruff"  # the default: ruff's formatter, black-compatible, a fraction of black's time
    BLACK = "black"  # black itself (the `black` extra)


class Layout(str, enum.Enum):
    """How a client package is laid out."""

    FLAT = "flat"  # one client.py with a typed method per tool
    # The same client underneath, plus one small module per tool and a searchable index, so an
    # agent writing code reads only the tools it needs.
    CODE_MODE = "code-mode"


@dataclass(frozen=True)
class ProjectOptions:
    """`--project`: the output folder becomes an installable distribution (its pyproject.toml and
    README.md, the package under it; render/project.py). None picks the default: the name from
    the package's, the version from the source server's (else DEFAULT_VERSION)."""

    name: str | None = None  # the distribution's name (`pip install NAME`)
    version: str | None = None
    extras: tuple[str, ...] = ()  # runtime extras the package needs beyond what its source implies


@dataclass(frozen=True)
class ClientOptions:
    runtime: Runtime = Runtime.IMPORT
    sync: bool = True  # also generate `Client`, the synchronous twin of `AsyncClient`
    layout: Layout = Layout.FLAT
    formatter: Formatter = Formatter.RUFF
    project: ProjectOptions | None = None


@dataclass(frozen=True)
class CacheHintOption:
    """One list method's cache hint from `[tool.mcpgen]` (`cache-hints`): the scaffold's default."""

    method: str  # "tools/list", ... (runtime/server/cache_hints.py CACHEABLE)
    ttl_ms: int
    scope: str  # "public" | "private"


@dataclass(frozen=True)
class ServerOptions:
    runtime: Runtime = Runtime.IMPORT
    add_missing: bool = False  # append stubs for new tools to the user's handlers.py
    formatter: Formatter = Formatter.RUFF
    # ToolsBase.CACHE_HINTS of the generated server; handlers.py's Handlers overrides it.
    cache_hints: tuple[CacheHintOption, ...] = ()
    project: ProjectOptions | None = None
    # ToolsBase.SKILLS_DIR: a folder of skill folders, relative to the package (`skills-dir`).
    skills_dir: str | None = None
    # ToolsBase.TASK_SUPPORT: tool wire name -> "optional" | "required" (`task-support`).
    task_support: tuple[tuple[str, str], ...] = ()
    # ToolsBase.TOOL_UI: tool wire name -> the ui:// URI of its MCP Apps page (`tool-ui`).
    tool_ui: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DocsOptions:
    """A reference-docs folder (index.html, reference.md, llms.txt): nothing to choose yet but the
    templates and the source, which every target has."""


GeneratorOptions = ClientOptions | ServerOptions | DocsOptions
