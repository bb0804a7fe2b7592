"""Catalog -> server skeleton package: a regenerated `_generated/` base, a user-owned `handlers.py`.

Like grpc stubs: `_generated/base.py` holds `ToolsBase` with one typed async method
per tool (each answering "not implemented" until overridden); `handlers.py` subclasses
it and is written only when absent, so regeneration never touches the user's code.
`_generated/tables.py` declares, as data, what the runtime's adapter serves and how.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog import Catalog, Problem, StageError, ToolSpec
from .clientgen import RUNTIME_DIR, usable_tools
from .dcg_worker import DcgWorker
from .models import ModelsOutput, generate_models, result_props, result_view
from .naming import ToolNames, name_tools
from .output import FileSet, format_files
from .render import make_environment, render

HANDLERS_FILE = "handlers.py"
HANDLERS_CLASS = "Handlers"
# Generated every time (the user owns handlers.py and anything else in the folder).
GENERATED_FILES = (
    "__init__.py",
    "__main__.py",
    "py.typed",
    "_generated/__init__.py",
    "_generated/base.py",
    "_generated/models.py",
    "_generated/tables.py",
)
# ToolsBase docstrings are short: the title or the description's first paragraph, cut to
# SUMMARY_MAX, and what the method serves; on one line when that fits in DOC_WIDTH (the full
# description is advertised in the tool table, and handlers.py's stubs keep it).
SUMMARY_MAX = 80
DOC_WIDTH = 100 - len('        """"""')


@dataclass(frozen=True)
class ServerOptions:
    package: str
    runtime: str = "import"  # "import" | "vendor" (a copy of mcpgen.runtime in PKG/_runtime/)
    templates: str | None = None
    skip_invalid: bool = False


@dataclass
class ServerFiles:
    """The generated files, the handlers.py to write if absent, and one stub per tool."""

    files: FileSet
    handlers: str
    stubs: dict[str, str] = field(default_factory=dict)  # python method name -> stub source (class-indented)
    methods: dict[str, str] = field(default_factory=dict)  # python method name -> "tool 'wire-name'"


def _returns(spec: ToolSpec, n: ToolNames, models: ModelsOutput) -> tuple[str, str]:
    """(return annotation, how to send it): none | model | root | root_wrapped_in_legacy."""
    if spec.output_schema is None:
        return "ToolOutput", "none"
    info = models.infos[n.result_model]
    _, wrapped = result_view(spec)
    if info.root_type is None:
        return f"_models.{n.result_model}", "wrapped_model" if wrapped else "model"
    # A non-object result: {"result": X} on the wire if the advertised schema is that wrapper,
    # else bare X in the stateless era and the SDKs' wrapper in the handshake era.
    return info.root_type, "wrapped_root" if wrapped else "root"


def _summary(definition: dict[str, Any], kind: str, name: str) -> str:
    """A short docstring: `MCP <kind> 'name'` and the title, else the description's first paragraph."""
    title, description = definition.get("title"), definition.get("description")
    text = title if isinstance(title, str) and title.strip() else description if isinstance(description, str) else ""
    first = " ".join(re.split(r"\n\s*\n", text.strip())[0].split())
    if len(first) > SUMMARY_MAX:
        first = first[:SUMMARY_MAX].rsplit(" ", 1)[0] + " ..."
    one_line = f"MCP {kind} {name!r}: {first}" if first else f"MCP {kind} {name!r}"
    return one_line if len(one_line) <= DOC_WIDTH else f"{first}\n\nMCP {kind}: {name!r}"


def _tool_context(spec: ToolSpec, n: ToolNames, models: ModelsOutput) -> dict[str, Any]:
    returns, mode = _returns(spec, n, models)
    doc = "\n\n".join(x for x in (spec.title, spec.description) if x) or f"The {spec.name!r} tool."
    return {
        "wire": spec.name,
        "method": n.method,
        "args_model": n.args_model,
        "result_model": n.result_model if spec.output_schema is not None else None,
        "returns": returns,
        "mode": mode,
        "doc": doc + f"\n\nMCP tool: {spec.name!r}",
        "summary": _summary(spec.raw, "tool", spec.name),
    }


def _feature_contexts(catalog: Catalog, taken: set[str], classes: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Handler names and argument models for prompts, resources and resource templates.

    Method names get a kind prefix (prompt_, resource_, template_) and step around the tool
    methods and each other through the one allocator in naming.py; model names step around
    `classes`, those models.py already defines.
    """
    from .naming import allocate, field_names, pascal, snake

    entries: list[tuple[str, str, dict[str, Any]]] = []  # (kind, key, definition)
    for prompt in catalog.prompts:
        if isinstance(prompt.get("name"), str):
            entries.append(("prompt", "p:" + prompt["name"], prompt))
    for resource in catalog.resources:
        if isinstance(resource.get("uri"), str):
            entries.append(("resource", "r:" + resource["uri"], resource))
    for template in catalog.resource_templates:
        if isinstance(template.get("uriTemplate"), str):
            entries.append(("template", "t:" + template["uriTemplate"], template))
    base = {
        key: f"{kind}_" + snake(str(d.get("name") or d.get("uri") or d.get("uriTemplate")), empty=kind)
        for kind, key, d in entries
    }
    methods = allocate([key for _, key, _ in entries], base, frozenset(taken))
    suffix = {"prompt": "Args", "template": "Params"}
    wanted = {key: pascal(methods[key]) + suffix[kind] for kind, key, _ in entries if kind in suffix}
    model_names = allocate(list(wanted), wanted, frozenset(classes), joiner="V")
    out: dict[str, list[dict[str, Any]]] = {"prompts": [], "resources": [], "templates": []}
    for kind, key, definition in entries:
        method = methods[key]
        doc = "\n\n".join(str(x) for x in (definition.get("title"), definition.get("description")) if x)
        if kind == "prompt":
            args = [a for a in definition.get("arguments") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)]
            names = field_names({a["name"]: a for a in args})
            required = {a["name"] for a in args if a.get("required") is True}
            fields = [{"python": f.python, "wire": f.wire, "required": f.wire in required} for f in names]
            out["prompts"].append(
                {"wire": definition["name"], "method": method, "model": model_names[key], "fields": fields,
                 "doc": (doc or f"The {definition['name']!r} prompt.") + f"\n\nMCP prompt: {definition['name']!r}",
                 "summary": _summary(definition, "prompt", definition["name"])}
            )
        elif kind == "resource":
            out["resources"].append(
                {"uri": definition["uri"], "method": method, "mime": definition.get("mimeType"),
                 "doc": (doc or f"The resource {definition['uri']!r}.") + f"\n\nMCP resource: {definition['uri']!r}",
                 "summary": _summary(definition, "resource", definition["uri"])}
            )
        else:
            variables = list(dict.fromkeys(re.findall(r"\{([A-Za-z0-9_]+)\}", definition["uriTemplate"])))
            names = field_names({v: v for v in variables})
            out["templates"].append(
                {"template": definition["uriTemplate"], "method": method, "model": model_names[key],
                 "mime": definition.get("mimeType"),
                 "fields": [{"python": f.python, "wire": f.wire, "required": True} for f in names],
                 "doc": (doc or "Resources matching this URI template.") + f"\n\nMCP resource template: {definition['uriTemplate']!r}",
                 "summary": _summary(definition, "resource template", definition["uriTemplate"])}
            )
    return out


def generate_server(catalog: Catalog, opts: ServerOptions, dcg: DcgWorker | None = None) -> ServerFiles:
    """Every generated file, formatted, plus the initial handlers.py; raises StageError."""
    tools, refused = usable_tools(catalog, opts.skip_invalid)  # refused: warnings, or StageError
    names = name_tools(tools, {t.name: result_props(t) for t in tools})
    vendor = opts.runtime == "vendor"
    # models.py lives in _generated/: a vendored runtime is one package up from it.
    models_runtime = ".._runtime" if vendor else "mcpgen.runtime"
    models, problems = generate_models(catalog, tools, names, runtime_module=models_runtime, dcg=dcg)
    errors = [p for p in problems if not p.warning]
    if models is None or errors:
        raise StageError(errors or problems)
    problems = refused + problems
    env = make_environment(opts.templates)
    server_name = catalog.server_info.get("name")
    version = catalog.server_info.get("version")
    contexts = [_tool_context(t, names[t.name], models) for t in tools]
    features = _feature_contexts(catalog, {t["method"] for t in contexts}, _class_names(models.source))
    ctx: dict[str, Any] = {
        **features,
        "prompts_json": json.dumps(list(catalog.prompts), ensure_ascii=True, separators=(",", ":")),
        "resources_json": json.dumps(list(catalog.resources), ensure_ascii=True, separators=(",", ":")),
        "templates_json": json.dumps(list(catalog.resource_templates), ensure_ascii=True, separators=(",", ":")),
        "package": opts.package,
        # Where the runtime is imported from, seen from the package and from _generated/.
        "runtime_module": "._runtime" if vendor else "mcpgen.runtime",
        "generated_runtime_module": ".._runtime" if vendor else "mcpgen.runtime",
        "tools": contexts,
        "annotation_imports": models.client_imports,
        "models_source": models.source,
        "server_name": server_name if isinstance(server_name, str) else opts.package,
        "server_version": version if isinstance(version, str) else "0.1.0",
        "tools_json": json.dumps([t.raw for t in tools], ensure_ascii=True, separators=(",", ":")),
    }
    fs = FileSet()
    for path in GENERATED_FILES:
        fs.add(path, render(env, f"server/{path}.jinja", **ctx))
    if vendor:
        for src in sorted(RUNTIME_DIR.rglob("*.py")):
            fs.add(f"_runtime/{src.relative_to(RUNTIME_DIR).as_posix()}", src.read_text(encoding="utf-8"), format=False)
    stubs = {t["method"]: render(env, "server/handler_stub.py.jinja", tool=t, **ctx) for t in contexts}
    for kind in ("prompts", "resources", "templates"):
        for item in features[kind]:
            stubs[item["method"]] = render(env, f"server/{kind[:-1]}_stub.py.jinja", item=item, **ctx)
    # handlers.py imports only the modules its stubs' annotations mention (it is the user's file).
    used = "".join(stubs.values())
    handler_imports = [line for line in models.client_imports if line.rsplit(" ", 1)[-1] + "." in used]
    handlers_src = render(
        env,
        "server/handlers.py.jinja",
        stubs=list(stubs.values()),
        handler_imports=handler_imports,
        **ctx,
    )
    fs.add(HANDLERS_FILE, handlers_src)
    # Stubs appended later by --add-missing are formatted on their own (the user's file never is).
    for method, stub in stubs.items():
        fs.add(f"stub/{method}.py", "class Handlers:\n" + stub)
    fs.warnings = [p for p in problems if p.warning]
    fmt_problems = format_files(fs)
    if fmt_problems:
        raise StageError(fmt_problems)
    for method in stubs:
        stubs[method] = fs.files.pop(f"stub/{method}.py").split("\n", 1)[1]
    handlers = fs.files.pop(HANDLERS_FILE)
    labels = {t["method"]: f"tool {t['wire']!r}" for t in contexts}
    labels.update({i["method"]: f"prompt {i['wire']!r}" for i in features["prompts"]})
    labels.update({i["method"]: f"resource {i['uri']!r}" for i in features["resources"]})
    labels.update({i["method"]: f"resource template {i['template']!r}" for i in features["templates"]})
    return ServerFiles(fs, handlers, stubs, labels)


def _class_names(source: str) -> set[str]:
    """The top-level classes (and other names) a module defines: feature models must step around them."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def implemented_methods(handlers_source: str) -> set[str] | None:
    """Method names defined on `class Handlers` in the user's file (None if it does not parse)."""
    try:
        tree = ast.parse(handlers_source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == HANDLERS_CLASS:
            return {
                item.name
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
    return None


# Names the stubs take from `._generated` (a handlers.py from an older mcpgen may lack some).
_STUB_NAMES = ("Context", "PromptOutput", "ResourceOutput", "ToolOutput", "features", "models")


def _unimported(handlers_source: str, stubs: list[str]) -> list[str]:
    tree = ast.parse(handlers_source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    used = "\n".join(stubs)
    return [name for name in _STUB_NAMES if name not in imported and re.search(rf"\b{name}\b", used)]


def append_stubs(handlers_source: str, stubs: list[str]) -> str | None:
    """Insert stubs at the end of `class Handlers`, leaving every other line as it was."""
    tree = ast.parse(handlers_source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == HANDLERS_CLASS and node.end_lineno is not None:
            lines = handlers_source.splitlines(keepends=True)
            end = node.end_lineno
            if lines and not lines[end - 1].endswith("\n"):
                lines[end - 1] += "\n"
            block = "".join("\n" + stub.rstrip("\n") + "\n" for stub in stubs)
            return "".join(lines[:end]) + block + "".join(lines[end:])
    return None


def plan_handlers(
    result: ServerFiles, out: Path, *, add_missing: bool
) -> tuple[dict[str, str], list[str], list[Problem]]:
    """What to write to handlers.py, if anything: ({path: text}, messages for the user, problems).

    handlers.py is never rewritten: only created when absent, or extended with stubs
    when add_missing is set.
    """
    messages: list[str] = []
    handlers_path = out / HANDLERS_FILE
    extra: dict[str, str] = {}
    if not handlers_path.exists():
        extra[HANDLERS_FILE] = result.handlers
        messages.append(f"wrote {handlers_path}: fill in the handlers")
    else:
        current = handlers_path.read_text(encoding="utf-8")
        have = implemented_methods(current)
        if have is None:
            return {}, messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS} (or the file does not parse); left it alone")]
        missing = [m for m in result.stubs if m not in have]
        if missing and add_missing:
            extended = append_stubs(current, [result.stubs[m] for m in missing])
            if extended is None:
                return {}, messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS}; left it alone")]
            extra[HANDLERS_FILE] = extended
            messages.append(f"added stubs to {handlers_path}: {', '.join(missing)}")
            lacking = _unimported(current, [result.stubs[m] for m in missing])
            if lacking:
                messages.append(
                    f"{handlers_path}: the new stubs use {', '.join(lacking)}; import them from ._generated"
                )
        elif missing:
            for m in missing:
                messages.append(
                    f"{handlers_path}: no handler for {result.methods[m]} (method {m}); "
                    "it answers 'not implemented' (--add-missing appends a stub)"
                )
    return extra, messages, []
