"""Catalog -> Plan: choose what to generate and name all of it, once, for both generators.

Every list is deduplicated by wire identity (tool/prompt name, resource URI, URI template;
of duplicates the first definition wins, with a warning) and sorted by it, so the order of
distinct items never matters and the client and the server always expose the same things.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..catalog.checks import check_tools
from ..catalog.model import Catalog, Problem, StageError, ToolSpec
from ..runtime.client.drift import schema_hash
from ..runtime.core.protocol import EXTENSION_TASKS
from ..runtime.core.skills import EXTENSION_ID as SKILLS_EXTENSION
from .naming import (
    CLIENT_MEMBERS,
    RESERVED_SNAKE,
    SERVER_MEMBERS,
    ToolNames,
    allocate,
    field_names,
    name_tools,
    pascal,
    snake,
)
from .result_shape import result_props, result_view
from .types import Plan, PromptPlan, ResourcePlan, ResultShape, StringParam, TemplatePlan, ToolPlan

# Names the generated prompt/template methods use inside their bodies (a parameter must not shadow them).
_BODY_LOCALS = frozenset({"arguments", "values", "expand_uri_template"})
_TEMPLATE_VAR = re.compile(r"\{([A-Za-z0-9_]+)\}")


def build_plan(catalog: Catalog, *, skip_invalid: bool = False) -> Plan:
    """The plan for `catalog`; raises StageError when a tool cannot be generated (unless skip_invalid)."""
    tools, warnings = _usable_tools(catalog, skip_invalid)
    names = name_tools(tools, {t.name: result_props(t) for t in tools})
    server_tasks = EXTENSION_TASKS in catalog.extensions
    tool_plans = tuple(replace(_tool_plan(t, names[t.name]), server_tasks=server_tasks) for t in tools)
    # A start_<method> that another tool's method already is gets no start method (never two
    # methods of one name in a class).
    methods = {t.method for t in tool_plans}
    tool_plans = tuple(replace(t, start_clash=t.start_method in methods) for t in tool_plans)
    taken_methods = frozenset(t.method for t in tool_plans)
    taken_models = frozenset(m for t in tool_plans for m in (t.args_model, f"{t.pascal}Result"))
    prompts, p_warn = _unique(catalog.prompts, "name", "prompt")
    resources, r_warn = _unique(catalog.resources, "uri", "resource")
    templates, t_warn = _unique(catalog.resource_templates, "uriTemplate", "resource template")
    prompt_plans, resource_plans, template_plans = _feature_plans(
        prompts, resources, templates, taken_methods, taken_models
    )
    return Plan(
        tools=tool_plans,
        prompts=prompt_plans,
        resources=resource_plans,
        templates=template_plans,
        rich_templates=tuple(t["uriTemplate"] for t in templates if level1_variables(t["uriTemplate"]) is None),
        server_info=dict(catalog.server_info),
        source_command=catalog.source_command,
        source_url=catalog.source_url,
        source_config=catalog.source_config,
        warnings=tuple(catalog.list_warnings() + warnings + p_warn + r_warn + t_warn),
        instructions=catalog.instructions,
        skills=SKILLS_EXTENSION in catalog.extensions,
    )


def _usable_tools(catalog: Catalog, skip_invalid: bool) -> tuple[list[ToolSpec], list[Problem]]:
    """The tools to generate, by wire name, and the refused ones as warnings; without
    skip_invalid a refusal is an error."""
    tools = sorted(catalog.tools, key=lambda t: t.name)
    refused = list(catalog.refused) + check_tools(tools)
    if refused and not skip_invalid:
        raise StageError(refused)
    bad = {p.tool for p in refused}
    usable = [t for t in tools if t.name not in bad]
    if refused and not usable:
        # Skipping every tool would write a client of nothing and call it a success.
        raise StageError([*refused, Problem("--skip-invalid", "every tool is invalid: nothing left to generate")])
    notes = [replace(p, warning=True, message=p.message + " (tool skipped)") for p in refused]
    return usable, notes


def _text(definition: dict[str, Any], fallback: str) -> str:
    """Title and description (the description alone when it starts with the title), else a fallback."""
    title, desc = (definition.get(k) if isinstance(definition.get(k), str) else None for k in ("title", "description"))
    if title and desc and desc.startswith(title):
        title = None
    return "\n\n".join(x for x in (title, desc) if x) or fallback


def _doc(definition: dict[str, Any], fallback: str, footer: str, args: str = "") -> str:
    """`_text`, then the `Args:` section, if any, and the footer."""
    return "\n\n".join(x for x in (_text(definition, fallback), args, footer) if x)


def one_line(text: Any) -> str:
    """An argument's description on one line of at most ARG_DOC_MAX characters ("" if none)."""
    line = " ".join(text.split()) if isinstance(text, str) else ""
    if len(line) > ARG_DOC_MAX:
        line = line[:ARG_DOC_MAX].rsplit(" ", 1)[0] + " ..."
    return line


# An argument's description in a docstring's Args: section is one line of at most this many characters.
ARG_DOC_MAX = 1000


def _args_section(described: list[tuple[str, Any]]) -> str:
    """Google style `Args:` (as IDEs show it): `name: description` for each argument that has one,
    in signature order; the text is untrusted and reaches the source only through the docstring filter."""
    lines = []
    for python, desc in described:
        text = one_line(desc)
        if text:
            lines.append(f"    {python}: {text}")
    return "Args:\n" + "\n".join(lines) if lines else ""


def _tool_args_section(spec: ToolSpec, n: ToolNames) -> str:
    props = spec.input_schema.get("properties")
    props = props if isinstance(props, dict) else {}
    required = spec.input_schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    ordered = sorted(n.args, key=lambda f: f.wire not in required)  # as the signature: required first
    schemas = [props.get(f.wire) for f in ordered]
    return _args_section(
        [
            (f.python, s.get("description") if isinstance(s, dict) else None)
            for f, s in zip(ordered, schemas, strict=True)
        ]
    )


# Server docstrings are short: the title or the description's first paragraph, cut to
# SUMMARY_MAX, and what the method serves; on one line when that fits in DOC_WIDTH (the full
# description is advertised in the tables, and handlers.py's stubs keep it).
SUMMARY_MAX = 80
DOC_WIDTH = 100 - len('        """"""')


def _summary(definition: dict[str, Any], kind: str, name: str) -> str:
    """A short docstring: `MCP <kind> 'name'` and the title, else the description's first paragraph."""
    title, description = definition.get("title"), definition.get("description")
    text = title if isinstance(title, str) and title.strip() else description if isinstance(description, str) else ""
    first = " ".join(re.split(r"\n\s*\n", text.strip())[0].split())
    if len(first) > SUMMARY_MAX:
        first = first[:SUMMARY_MAX].rsplit(" ", 1)[0] + " ..."
    one_line = f"MCP {kind} {name!r}: {first}" if first else f"MCP {kind} {name!r}"
    return one_line if len(one_line) <= DOC_WIDTH else f"{first}\n\nMCP {kind}: {name!r}"


def _tool_plan(spec: ToolSpec, n: ToolNames) -> ToolPlan:
    shape = ResultShape.CONTENT
    wrapped = False
    if spec.output_schema is not None:
        schema, wrapped = result_view(spec)
        object_like = isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema)
        shape = ResultShape.MODEL if object_like and not wrapped else ResultShape.ROOT
    return ToolPlan(
        spec=spec,
        method=n.method,
        pascal=n.pascal,
        module=n.module,
        args=n.args,
        result_fields=n.result_fields,
        shape=shape,
        wrapped=wrapped,
        doc=_doc(spec.raw, f"The {spec.name!r} tool.", f"MCP tool: {spec.name!r}", _tool_args_section(spec, n)),
        summary=_summary(spec.raw, "tool", spec.name),
        schema_hash=schema_hash(spec.raw),
        text=_text(spec.raw, f"The {spec.name!r} tool."),
    )


def _unique(items: tuple[dict[str, Any], ...], key: str, what: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """Definitions with a string `key`, the first of each kept, sorted by it."""
    kept: dict[str, dict[str, Any]] = {}
    warnings: list[Problem] = []
    for item in items:
        ident = item.get(key)
        if not isinstance(ident, str):
            continue
        if ident in kept:
            warnings.append(Problem(repr(ident), f"duplicate {what}; the first definition is kept", warning=True))
            continue
        kept[ident] = item
    return [kept[k] for k in sorted(kept)], warnings


def level1_variables(uri_template: str) -> list[str] | None:
    """The variables of an RFC 6570 level-1 template (`{var}` only), in order; None if richer."""
    pieces = _TEMPLATE_VAR.split(uri_template)
    if any("{" in text or "}" in text for text in pieces[::2]):
        return None  # {+path}, {?q}, ...: no typed helper, read_resource(uri) still works
    return list(dict.fromkeys(pieces[1::2]))


def _label(definition: dict[str, Any], ident: str) -> str:
    name = definition.get("name")
    return name if isinstance(name, str) and name else ident


def _feature_plans(
    prompts: list[dict[str, Any]],
    resources: list[dict[str, Any]],
    templates: list[dict[str, Any]],
    tool_methods: frozenset[str],
    tool_models: frozenset[str],
) -> tuple[tuple[PromptPlan, ...], tuple[ResourcePlan, ...], tuple[TemplatePlan, ...]]:
    """Method and model names for prompts, resources and templates, on both sides.

    Their names are untrusted: they become Python names only through naming.allocate, stepping
    around keywords, each side's own members, the tool methods and each other.
    """
    level1 = {t["uriTemplate"]: level1_variables(t["uriTemplate"]) for t in templates}
    # The client: get_<prompt>, read_<template> (level-1 templates only).
    templates = [t for t in templates if level1[t["uriTemplate"]] is not None]
    client_keys = ["p:" + p["name"] for p in prompts] + ["t:" + t["uriTemplate"] for t in templates]
    client_base = {"p:" + p["name"]: "get_" + snake(p["name"], empty="prompt") for p in prompts}
    client_base.update(
        {"t:" + t["uriTemplate"]: "read_" + snake(_label(t, t["uriTemplate"]), empty="template") for t in templates}
    )
    client = allocate(client_keys, client_base, RESERVED_SNAKE | CLIENT_MEMBERS | tool_methods)
    # The server: prompt_<name>, resource_<name>, template_<name>, and their argument models.
    server_base = {"p:" + p["name"]: "prompt_" + snake(p["name"], empty="prompt") for p in prompts}
    server_base.update({"r:" + r["uri"]: "resource_" + snake(_label(r, r["uri"]), empty="resource") for r in resources})
    server_base.update(
        {"t:" + t["uriTemplate"]: "template_" + snake(_label(t, t["uriTemplate"]), empty="template") for t in templates}
    )
    server = allocate(list(server_base), server_base, RESERVED_SNAKE | SERVER_MEMBERS | tool_methods)
    model_base = {k: pascal(server[k]) + ("Args" if k.startswith("p:") else "Params") for k in server if k[0] in "pt"}
    models = allocate(list(model_base), model_base, tool_models, joiner="V")

    prompt_plans: list[PromptPlan] = []
    for p in prompts:
        key = "p:" + p["name"]
        declared: dict[str, dict[str, Any]] = {}
        arguments = p.get("arguments")
        for a in arguments if isinstance(arguments, list) else []:
            if isinstance(a, dict) and isinstance(a.get("name"), str):
                declared.setdefault(a["name"], a)
        params = [
            StringParam(
                f.python,
                f.wire,
                declared[f.wire].get("required") is True,
                one_line(declared[f.wire].get("description")),
            )
            for f in field_names(declared, _BODY_LOCALS)
        ]
        params.sort(key=lambda a: not a.required)  # stable: declaration order within each group
        prompt_plans.append(
            PromptPlan(
                definition=p,
                client_method=client[key],
                server_method=server[key],
                model=models[key],
                params=tuple(params),
                doc=_doc(
                    p,
                    f"The {p['name']!r} prompt.",
                    f"MCP prompt: {p['name']!r}",
                    _args_section([(a.python, declared[a.wire].get("description")) for a in params]),
                ),
                summary=_summary(p, "prompt", p["name"]),
                text=_text(p, f"The {p['name']!r} prompt."),
            )
        )
    resource_plans = tuple(
        ResourcePlan(
            definition=r,
            server_method=server["r:" + r["uri"]],
            doc=_doc(r, f"The resource {r['uri']!r}.", f"MCP resource: {r['uri']!r}"),
            summary=_summary(r, "resource", r["uri"]),
        )
        for r in resources
    )
    template_plans: list[TemplatePlan] = []
    for t in templates:
        key = "t:" + t["uriTemplate"]
        variables = level1[t["uriTemplate"]]
        if variables is None:  # {+path}, {?q}, ...: see Plan.rich_templates
            continue
        template_plans.append(
            TemplatePlan(
                definition=t,
                client_method=client[key],
                server_method=server[key],
                model=models[key],
                params=tuple(
                    StringParam(f.python, f.wire, True) for f in field_names(dict.fromkeys(variables), _BODY_LOCALS)
                ),
                doc=_doc(t, "Resources matching this URI template.", f"MCP resource template: {t['uriTemplate']!r}"),
                summary=_summary(t, "resource template", t["uriTemplate"]),
                text=_text(t, "Resources matching this URI template."),
            )
        )
    return tuple(prompt_plans), resource_plans, tuple(template_plans)
