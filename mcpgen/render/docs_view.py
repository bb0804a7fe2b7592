"""Plan -> what the reference docs show: one typed object per tool, prompt, resource and template.

Everything the docs templates print is decided here (anchors, argument rows, example values,
the generated client's Python call), so the HTML, Markdown and llms.txt templates only lay it
out. Every string from the catalog stays untrusted: the templates escape it for their format
(autoescape for HTML, the Markdown filters of `docs.py`); anchors are made here from a safe
alphabet, so no name ever reaches an `id` or `href` as it came.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog.model import Catalog
from ..plan.icons import Icon, icons_of
from ..plan.types import Plan, PromptPlan, ResourcePlan, StringParam, TemplatePlan, ToolPlan
from .emitters import pyrepr
from .schema_text import enum_values, object_example, type_label

CALL_WIDTH = 88  # a call longer than this puts one argument per line
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ArgumentRow:
    """One row of an arguments table."""

    wire: str
    python: str  # the keyword of the generated method ("" where there is none)
    type: str
    required: bool
    default: str | None  # JSON text
    enum: tuple[str, ...]  # JSON text of each allowed value
    description: str


@dataclass(frozen=True)
class Entry:
    """What every documented item has: an anchor, a heading, its text, and what search matches."""

    kind: str  # "tool" | "prompt" | "resource" | "template"
    anchor: str  # [a-z0-9-] only
    heading: str  # the wire name, URI or URI template
    title: str | None
    description: str | None
    python_call: str  # how the generated client calls it
    icons: tuple[Icon, ...]  # text; a link only where plan/icons.py says it may be one

    @property
    def summary(self) -> str:
        """The description's first paragraph on one line (or the title): llms.txt's note."""
        text = self.description or self.title or ""
        first = re.split(r"\n\s*\n", text.strip())[0] if text.strip() else ""
        return " ".join(first.split())

    @property
    def search_text(self) -> str:
        return " ".join(x for x in (self.heading, self.title, self.description) if x).lower()


@dataclass(frozen=True)
class ToolDoc(Entry):
    plan: ToolPlan
    arguments: tuple[ArgumentRow, ...]
    example_arguments: str  # the `arguments` of tools/call, as JSON text
    returns: str  # what the generated method returns
    input_schema: str  # JSON text, indented
    output_schema: str | None
    hints: tuple[str, ...]  # annotations: read-only, destructive, idempotent, open-world


@dataclass(frozen=True)
class PromptDoc(Entry):
    plan: PromptPlan
    arguments: tuple[ArgumentRow, ...]


@dataclass(frozen=True)
class ResourceDoc(Entry):
    plan: ResourcePlan
    name: str | None
    mime: str | None


@dataclass(frozen=True)
class TemplateDoc(Entry):
    definition: dict[str, Any]
    name: str | None
    mime: str | None
    arguments: tuple[ArgumentRow, ...]


@dataclass(frozen=True)
class DocsPage:
    title: str  # the server's title or name
    server_name: str | None
    version: str | None
    protocol_version: str | None
    description: str | None
    instructions: str | None
    tools: tuple[ToolDoc, ...]
    prompts: tuple[PromptDoc, ...]
    resources: tuple[ResourceDoc, ...]
    templates: tuple[TemplateDoc, ...]
    icons: tuple[Icon, ...] = ()  # the server's (serverInfo.icons)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return (*self.tools, *self.prompts, *self.resources, *self.templates)

    @property
    def counts(self) -> str:
        """`2 tools, 1 prompt, ...`: the non-empty kinds."""
        kinds = (
            (len(self.tools), "tool"),
            (len(self.prompts), "prompt"),
            (len(self.resources), "resource"),
            (len(self.templates), "resource template"),
        )
        shown = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in kinds if n]
        return ", ".join(shown) or "nothing"


def _text(definition: dict[str, Any], key: str) -> str | None:
    value = definition.get(key)
    return value if isinstance(value, str) and value.strip() else None


class _Anchors:
    """Anchors from a safe alphabet, unique across the page, in the order asked (the plan's order)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def __call__(self, kind: str, name: str) -> str:
        base = f"{kind}-{_SLUG_JUNK.sub('-', name.lower()).strip('-') or 'item'}"[:80].rstrip("-")
        anchor, n = base, 2
        while anchor in self.taken:
            anchor, n = f"{base}-{n}", n + 1
        self.taken.add(anchor)
        return anchor


def python_literal(value: Any) -> str:
    """A Python literal for JSON data, strings in double quotes where that needs no escape (as ruff writes them)."""
    if isinstance(value, str):
        text = pyrepr(value)
        return f'"{text[1:-1]}"' if text.startswith("'") and '"' not in value else text
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items()) + "}"
    return pyrepr(value)


def python_call(target: str, args: Sequence[tuple[str, Any]], positional: Sequence[Any] = ()) -> str:
    """`await client.<target>(a=1, ...)`, one argument per line when it would not fit on one."""
    parts = [python_literal(v) for v in positional] + [f"{name}={python_literal(value)}" for name, value in args]
    one_line = f"await client.{target}({', '.join(parts)})"
    if len(one_line) <= CALL_WIDTH:
        return one_line
    return f"await client.{target}(\n" + "".join(f"    {p},\n" for p in parts) + ")"


def _json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _json_short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _tool_arguments(tool: ToolPlan) -> tuple[ArgumentRow, ...]:
    schema = tool.spec.input_schema
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    rows = []
    for field in tool.args:
        sub = props.get(field.wire)
        sub_dict: dict[str, Any] = sub if isinstance(sub, dict) else {}
        rows.append(
            ArgumentRow(
                wire=field.wire,
                python=field.python,
                type=type_label(sub, schema),
                required=field.wire in needed,
                default=_json_short(sub_dict["default"]) if "default" in sub_dict else None,
                enum=enum_values(sub, schema),
                description=_text(sub_dict, "description") or _text(sub_dict, "title") or "",
            )
        )
    rows.sort(key=lambda r: not r.required)  # required first, schema order within each group (as the method)
    return tuple(rows)


def _returns(tool: ToolPlan) -> str:
    if tool.result_model is None:
        return "ToolResult (content blocks)"
    how = 'structured content, unwrapped from {"result": ...}' if tool.wrapped else "structured content"
    return f"{tool.result_model} ({how})"


_HINTS = (
    ("readOnlyHint", True, "read-only"),
    ("destructiveHint", True, "destructive"),
    ("idempotentHint", True, "idempotent"),
    ("openWorldHint", True, "open world"),
    ("openWorldHint", False, "closed world"),
)


def _hints(annotations: dict[str, Any] | None) -> tuple[str, ...]:
    if not isinstance(annotations, dict):
        return ()
    return tuple(label for key, value, label in _HINTS if annotations.get(key) is value)


def _tool_doc(tool: ToolPlan, anchor: str) -> ToolDoc:
    schema = tool.spec.input_schema
    example = object_example(schema, schema, with_given=True)
    arguments = _tool_arguments(tool)
    # Keywords in the method's order (required first), each with its example value.
    call_args = [(row.python, example[row.wire]) for row in arguments if row.wire in example]
    return ToolDoc(
        kind="tool",
        anchor=anchor,
        heading=tool.wire,
        title=tool.spec.title if tool.spec.title and tool.spec.title.strip() else None,
        description=tool.spec.description if tool.spec.description and tool.spec.description.strip() else None,
        python_call=python_call(tool.method, call_args),
        icons=icons_of(tool.spec.raw),
        plan=tool,
        arguments=arguments,
        example_arguments=_json_text(example),
        returns=_returns(tool),
        input_schema=_json_text(schema),
        output_schema=_json_text(tool.spec.output_schema) if tool.spec.output_schema is not None else None,
        hints=_hints(tool.spec.annotations),
    )


def _string_rows(params: Iterable[StringParam], declared: dict[str, dict[str, Any]]) -> tuple[ArgumentRow, ...]:
    return tuple(
        ArgumentRow(
            wire=p.wire,
            python=p.python,
            type="string",
            required=p.required,
            default=None,
            enum=(),
            description=_text(declared.get(p.wire, {}), "description") or "",
        )
        for p in params
    )


def _prompt_doc(prompt: PromptPlan, anchor: str) -> PromptDoc:
    arguments = prompt.definition.get("arguments")
    declared = {
        a["name"]: a for a in (arguments if isinstance(arguments, list) else []) if isinstance(a, dict) and "name" in a
    }
    return PromptDoc(
        kind="prompt",
        anchor=anchor,
        heading=prompt.wire,
        title=_text(prompt.definition, "title"),
        description=_text(prompt.definition, "description"),
        python_call=python_call(prompt.client_method, [(p.python, "example") for p in prompt.params if p.required]),
        icons=icons_of(prompt.definition),
        plan=prompt,
        arguments=_string_rows(prompt.params, declared),
    )


def _resource_doc(resource: ResourcePlan, anchor: str) -> ResourceDoc:
    return ResourceDoc(
        kind="resource",
        anchor=anchor,
        heading=resource.uri,
        title=_text(resource.definition, "title"),
        description=_text(resource.definition, "description"),
        python_call=python_call("read_resource", [], [resource.uri]),
        icons=icons_of(resource.definition),
        plan=resource,
        name=_text(resource.definition, "name"),
        mime=resource.mime,
    )


def _template_doc(definition: dict[str, Any], plan: TemplatePlan | None, anchor: str) -> TemplateDoc:
    uri_template = str(definition["uriTemplate"])
    if plan is not None:
        call = python_call(plan.client_method, [(p.python, "example") for p in plan.params])
        rows = _string_rows(plan.params, {})
    else:
        # {+path}, {?q}, ...: no typed method; the URI is expanded by hand and read as it is.
        call = python_call("read_resource", [], ["<the URI, expanded from the template>"])
        rows = ()
    mime = definition.get("mimeType")
    return TemplateDoc(
        kind="template",
        anchor=anchor,
        heading=uri_template,
        title=_text(definition, "title"),
        description=_text(definition, "description"),
        python_call=call,
        icons=icons_of(definition),
        definition=definition,
        name=_text(definition, "name"),
        mime=mime if isinstance(mime, str) else None,
        arguments=rows,
    )


def _all_templates(plan: Plan, catalog: Catalog) -> list[tuple[dict[str, Any], TemplatePlan | None]]:
    """Every template, sorted: the plan's (typed) and the richer ones the plan only names."""
    rich = set(plan.rich_templates)
    seen: dict[str, dict[str, Any]] = {}
    for t in catalog.resource_templates:
        key = t.get("uriTemplate")
        if isinstance(key, str) and key in rich and key not in seen:
            seen[key] = t
    pairs: list[tuple[dict[str, Any], TemplatePlan | None]] = [(t.definition, t) for t in plan.templates]
    pairs += [(d, None) for d in seen.values()]
    pairs.sort(key=lambda pair: str(pair[0]["uriTemplate"]))
    return pairs


def build_docs(plan: Plan, catalog: Catalog) -> DocsPage:
    """The whole page, in the plan's order (each list sorted by wire identity)."""
    anchor = _Anchors()
    info = plan.server_info
    return DocsPage(
        title=_text(info, "title") or plan.server_name or "MCP server",
        server_name=plan.server_name,
        version=plan.server_version,
        protocol_version=catalog.protocol_version,
        description=_text(info, "description"),
        instructions=catalog.instructions if catalog.instructions and catalog.instructions.strip() else None,
        icons=icons_of(info),
        tools=tuple(_tool_doc(t, anchor("tool", t.wire)) for t in plan.tools),
        prompts=tuple(_prompt_doc(p, anchor("prompt", p.wire)) for p in plan.prompts),
        resources=tuple(
            _resource_doc(r, anchor("resource", _text(r.definition, "name") or r.uri)) for r in plan.resources
        ),
        templates=tuple(
            _template_doc(d, p, anchor("template", _text(d, "name") or str(d["uriTemplate"])))
            for d, p in _all_templates(plan, catalog)
        ),
    )
