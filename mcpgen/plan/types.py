"""The plan: every decision about names and shapes, made once, that both renderers read.

A `Plan` is built from a catalog (`build.py`): tools, prompts, resources and resource templates
each deduplicated, sorted by wire name and named (Python methods for the client and for the
server, model class names, field names) through the one allocator in `naming.py`. The models
stage then fills in what only the generated models know (annotations, root types, the class
names the prompt and template models must avoid) with `models.bind_plan`. Templates render these
objects; they never compute a name themselves.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

from ..catalog.model import Problem, ToolSpec
from ..runtime.core.tables import ResultMode
from .naming import FieldName


class ResultShape(enum.Enum):
    """How a tool's result travels and what its typed method returns."""

    CONTENT = "content"  # no outputSchema: content blocks (ToolResult / ToolOutput)
    MODEL = "model"  # an object schema: a BaseModel from structuredContent
    ROOT = "root"  # any other schema: a RootModel's value


@dataclass(frozen=True)
class Param:
    """One keyword argument of a typed method (the plan orders required ones first)."""

    python: str
    wire: str
    required: bool
    annotation: str = "Any"  # filled from the generated models (names qualified for client.py)
    description: str = ""  # the schema's, untrusted (it reaches source through the docstring filter)
    default: str | None = None  # the schema's default as JSON text (the server applies it), if any


# The behaviour hints of MCP tool annotations (2025-03-26 on).
TOOL_HINTS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
ONE_LINE_MAX = 120


@dataclass(frozen=True)
class ToolPlan:
    spec: ToolSpec
    method: str  # the Python method on AsyncClient/Client and on the server's ToolsBase
    pascal: str  # stem of <Pascal>Args / <Pascal>Result
    module: str  # the module of its models, `_models/<module>.py` (plan/naming.py)
    args: tuple[FieldName, ...]  # inputSchema's top-level properties, schema order
    result_fields: tuple[FieldName, ...]  # the (unwrapped) result's top-level properties
    shape: ResultShape
    wrapped: bool  # the advertised result is {"result": X}; the method returns X
    doc: str  # the handler stub's docstring: title, description and `Args:`
    summary: str  # a short one for the server's ToolsBase (the full text is in the tool table)
    schema_hash: str
    text: str = ""  # title and description alone (the client's docstring: plan/docstrings.py)
    # Known once the models are generated (models.bind_plan):
    params: tuple[Param, ...] = ()
    result_annotation: str | None = None  # None: no outputSchema
    # The server declares the Tasks extension (FastMCP marks no tool, it serves any as a task).
    server_tasks: bool = False
    start_clash: bool = False  # another tool's method is named start_<method>

    @property
    def wire(self) -> str:
        return self.spec.name

    @property
    def hints(self) -> dict[str, bool]:
        """The tool's behaviour hints (`readOnlyHint`, `destructiveHint`, ...) that are booleans,
        sorted: a host gates calls on them (hints are the server's claims, not guarantees)."""
        annotations = self.spec.raw.get("annotations")
        if not isinstance(annotations, dict):
            return {}
        return {k: v for k, v in sorted(annotations.items()) if k in TOOL_HINTS and isinstance(v, bool)}

    @property
    def one_line(self) -> str:
        """One line for a tool index: the description's first sentence, else the title."""
        description, title = self.spec.raw.get("description"), self.spec.raw.get("title")
        text = description if isinstance(description, str) and description.strip() else title
        if not isinstance(text, str):
            return ""
        first = " ".join(text.split())
        first = first.split(". ", 1)[0]
        return first if len(first) <= ONE_LINE_MAX else first[: ONE_LINE_MAX - 4].rsplit(" ", 1)[0] + " ..."

    @property
    def runs_as_task(self) -> bool:
        """The tool may run as a task (Tasks extension): its `execution.taskSupport` says
        "optional" or "required", or the server declares the extension and the tool does not
        say "forbidden". The client then gets a `start_<method>` returning a typed task handle."""
        execution = self.spec.raw.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if self.start_clash:
            return False
        return support in ("optional", "required") or (self.server_tasks and support != "forbidden")

    @property
    def start_method(self) -> str:
        return f"start_{self.method}"

    @property
    def args_model(self) -> str:
        return f"{self.pascal}Args"

    @property
    def result_model(self) -> str | None:
        return f"{self.pascal}Result" if self.shape is not ResultShape.CONTENT else None

    @property
    def client_returns(self) -> str:
        """What the typed client method returns."""
        return self.result_annotation or "ToolResult"

    @property
    def server_returns(self) -> str:
        """What the server's handler method returns."""
        return self.result_annotation or "ToolOutput"

    @property
    def is_root(self) -> bool:
        """The typed method returns a RootModel's value (not a BaseModel)."""
        return self.shape is ResultShape.ROOT

    @property
    def mode(self) -> ResultMode:
        """How the result travels (the tables' `mode` column, client and server alike)."""
        if self.shape is ResultShape.CONTENT:
            return ResultMode.CONTENT
        return ResultMode(("wrapped_" if self.wrapped else "") + str(self.shape.value))


@dataclass(frozen=True)
class StringParam:
    """A prompt argument or a URI template variable: always a string on the wire."""

    python: str
    wire: str
    required: bool
    description: str = ""  # untrusted, as Param's


@dataclass(frozen=True)
class PromptPlan:
    definition: dict[str, Any]  # verbatim
    client_method: str  # get_<name>
    server_method: str  # prompt_<name>
    model: str  # the server's typed arguments model (named around every class of models.py)
    params: tuple[StringParam, ...]  # required first, declaration order within each group
    doc: str
    summary: str
    text: str = ""  # title and description alone (the client's docstring: plan/docstrings.py)

    @property
    def wire(self) -> str:
        return str(self.definition["name"])


@dataclass(frozen=True)
class ResourcePlan:
    definition: dict[str, Any]
    server_method: str  # resource_<name>
    doc: str
    summary: str

    @property
    def uri(self) -> str:
        return str(self.definition["uri"])

    @property
    def mime(self) -> str | None:
        mime = self.definition.get("mimeType")
        return mime if isinstance(mime, str) else None


@dataclass(frozen=True)
class TemplatePlan:
    """An RFC 6570 level-1 template (`{var}` only): the client expands it safely, the server matches it."""

    definition: dict[str, Any]
    client_method: str  # read_<name>
    server_method: str  # template_<name>
    model: str  # the server's typed parameters model (named around every class of models.py)
    params: tuple[StringParam, ...]  # the template's `{var}` names, in order (all required)
    doc: str
    summary: str
    text: str = ""  # title and description alone (the client's docstring: plan/docstrings.py)

    @property
    def template(self) -> str:
        return str(self.definition["uriTemplate"])

    @property
    def mime(self) -> str | None:
        mime = self.definition.get("mimeType")
        return mime if isinstance(mime, str) else None


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def _json(items: Any) -> tuple[str, ...]:
    """One compact JSON text per definition: a table holds one a line, so a one-tool change is a
    one-line diff."""
    return tuple(_json_text(item) for item in items)


@dataclass(frozen=True)
class Plan:
    tools: tuple[ToolPlan, ...]
    prompts: tuple[PromptPlan, ...]
    resources: tuple[ResourcePlan, ...]
    templates: tuple[TemplatePlan, ...]
    # Richer templates ({+path}, {?q}, ...): the client reads them with read_resource(uri); a
    # generated server cannot match them, so it leaves them out (with a warning).
    rich_templates: tuple[str, ...]
    server_info: dict[str, Any]
    source_command: tuple[str, ...] | None
    source_url: str | None
    # (servers config relative to the package folder, entry name), or None
    source_config: tuple[str, str] | None = None
    warnings: tuple[Problem, ...] = field(default=())
    instructions: str | None = None  # what the source's initialize said to its clients
    skills: bool = False  # the source declares Skills (SEP-2640): the client gets list_skills()

    @property
    def server_name(self) -> str | None:
        name = self.server_info.get("name")
        return name if isinstance(name, str) else None

    @property
    def server_version(self) -> str | None:
        version = self.server_info.get("version")
        return version if isinstance(version, str) else None

    # The definitions as JSON text, exactly as the source declared them (advertised verbatim).
    @property
    def tools_json(self) -> tuple[str, ...]:
        return _json([t.spec.raw for t in self.tools])

    @property
    def server_info_json(self) -> str:
        """Everything the source said about itself in serverInfo (title, websiteUrl, icons, ...)."""
        return _json_text(self.server_info)

    @property
    def prompts_json(self) -> tuple[str, ...]:
        return _json([p.definition for p in self.prompts])

    @property
    def resources_json(self) -> tuple[str, ...]:
        return _json([r.definition for r in self.resources])

    @property
    def templates_json(self) -> tuple[str, ...]:
        return _json([t.definition for t in self.templates])

    def tool(self, wire: str) -> ToolPlan:
        return next(t for t in self.tools if t.wire == wire)
