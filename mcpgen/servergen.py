"""Catalog -> server skeleton package: a regenerated `_generated/` base, a user-owned `handlers.py`.

Like grpc stubs: `_generated/base.py` holds `ToolsBase` with one typed async method
per tool (each answering "not implemented" until overridden); `handlers.py` subclasses
it and is written only when absent, so regeneration never touches the user's code.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog import Catalog, Problem, StageError, ToolSpec
from .models import ModelsOutput, check_tools, generate_models, result_props, result_view
from .naming import ToolNames, name_tools, ordered
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
    "_generated/tools.py",
)


@dataclass(frozen=True)
class ServerOptions:
    package: str
    templates: str | None = None


@dataclass
class ServerFiles:
    """The generated files, the handlers.py to write if absent, and one stub per tool."""

    files: FileSet
    handlers: str
    stubs: dict[str, str] = field(default_factory=dict)  # python method name -> stub source (class-indented)
    methods: dict[str, str] = field(default_factory=dict)  # python method name -> wire name


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
    }


def generate_server(catalog: Catalog, opts: ServerOptions) -> ServerFiles:
    """Every generated file, formatted, plus the initial handlers.py; raises StageError."""
    tools = ordered(catalog)
    names = name_tools(tools, {t.name: result_props(t) for t in tools})
    problems = check_tools(tools)
    if problems:
        raise StageError(problems)
    models, problems = generate_models(catalog, tools, names)
    errors = [p for p in problems if not p.warning]
    if models is None or errors:
        raise StageError(errors or problems)
    env = make_environment(opts.templates)
    server_name = catalog.server_info.get("name")
    version = catalog.server_info.get("version")
    contexts = [_tool_context(t, names[t.name], models) for t in tools]
    ctx: dict[str, Any] = {
        "package": opts.package,
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
    stubs = {
        t["method"]: render(env, "server/handler_stub.py.jinja", tool=t, **ctx) for t in contexts
    }
    # handlers.py imports only the modules its stubs' annotations mention (it is the user's file).
    used = "".join(stubs.values())
    handler_imports = [line for line in models.client_imports if line.rsplit(" ", 1)[-1] + "." in used]
    handlers_src = render(
        env,
        "server/handlers.py.jinja",
        stubs=[stubs[t["method"]] for t in contexts],
        handler_imports=handler_imports,
        **ctx,
    )
    fs.add(HANDLERS_FILE, handlers_src)
    fs.warnings = [p for p in problems if p.warning]
    fmt_problems = format_files(fs)
    if fmt_problems:
        raise StageError(fmt_problems)
    handlers = fs.files.pop(HANDLERS_FILE)
    return ServerFiles(fs, handlers, stubs, {t["method"]: t["wire"] for t in contexts})


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


def write_server(result: ServerFiles, out: Path, *, add_missing: bool) -> tuple[list[str], list[Problem]]:
    """Write the generated files atomically; create or extend handlers.py.

    Returns (messages for the user, problems). handlers.py is never rewritten: only
    created when absent, or extended with stubs when add_missing is set.
    """
    from .output import replace_files

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
            return messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS} (or the file does not parse); left it alone")]
        missing = [m for m in result.stubs if m not in have]
        if missing and add_missing:
            extended = append_stubs(current, [result.stubs[m] for m in missing])
            if extended is None:
                return messages, [Problem(str(handlers_path), f"cannot find class {HANDLERS_CLASS}; left it alone")]
            extra[HANDLERS_FILE] = extended
            messages.append(f"added stubs to {handlers_path}: {', '.join(missing)}")
        elif missing:
            for m in missing:
                messages.append(
                    f"{handlers_path}: no handler for tool {result.methods[m]!r} (method {m}); "
                    "it answers 'not implemented' (--add-missing appends a stub)"
                )
    replace_files(out, result.files, extra)
    return messages, []
