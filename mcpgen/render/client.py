"""Plan + models -> the files of a typed client package (unformatted; see output/files.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from jinja2 import Environment

from ..models import ModelsOutput
from ..models.imports import import_lines
from ..models.per_tool import ModelModule
from ..options import ClientOptions, Runtime
from ..plan.docstrings import client_docstrings
from ..plan.types import Plan
from .emitters import PyCode, code
from .environment import make_environment, render
from .files import FileSet

FILES = ("__init__.py", "client.py", "models.py", "_catalog.py", "py.typed")


def runtime_module(runtime: Runtime, *, nested: bool = False) -> str:
    """How a package's top-level modules (or, `nested`, those one folder down) import the runtime."""
    if runtime is Runtime.VENDOR:
        return ".._runtime" if nested else "._runtime"
    return "mcpgen.runtime"


def client_imports(plan: Plan, models: ModelsOutput, runtime: str, sync: bool) -> tuple[PyCode, PyCode]:
    """client.py's import block and its `if TYPE_CHECKING:` block (indented, or ""): what it uses, sorted."""
    support = ["AsyncClientBase"] + (["SyncClientBase", "sync_method"] if sync else [])
    if any(t.runs_as_task for t in plan.tools):
        support += ["TypedTask"] + (["sync_task_method"] if sync else [])
    if any(not p.required for t in plan.tools for p in t.params):
        support += ["UNSET", "Unset"]
    if any(t.client_returns == "ToolResult" for t in plan.tools):
        support.append("ToolResult")
    support += ["PromptResult"] if plan.prompts else []
    support += ["ResourceContents", "expand_uri_template"] if plan.templates else []
    support += (["AsyncSkills"] + (["SyncSkills"] if sync else [])) if plan.skills else []
    # Annotations name the models (`_models.X`) and modules (`_typing.Any`): import those used.
    used = " ".join(t.client_returns + " " + " ".join(p.annotation for p in t.params) for t in plan.tools)
    checking = [
        line
        for line in ["from . import models as _models", *models.client_imports]
        if line.rsplit(" ", 1)[-1] + "." in used
    ]
    typing = ["TYPE_CHECKING"] if checking else []
    typing += ["cast as _cast"] if any(t.result_model for t in plan.tools) else []
    top = [
        "from __future__ import annotations",
        "from types import ModuleType as _ModuleType",
        *(f"from typing import {name}" for name in typing),
        f"from {runtime}.support.client import {', '.join(support)}",
        "from ._catalog import CATALOG",
    ]
    return code(import_lines(top)), code(indented(import_lines(checking)))


def front_imports(runtime: str) -> PyCode:
    """The import block of models.py's run-time branch, sorted (one block when the runtime is a
    vendored, relative one), indented one level."""
    return code(
        indented(import_lines([f"from {runtime}.support.models import lazy_models", "from ._models import _DECLARES"]))
    )


def code_lines(lines: tuple[str, ...] | list[str]) -> tuple[PyCode, ...]:
    """Import lines the models stage wrote, as code a template may print."""
    return tuple(code(line) for line in lines)


def indented(block: str) -> str:
    """`block` indented one level, for the body of an `if`; its blank lines stay blank ("" stays "")."""
    return "    " + block.replace("\n", "\n    ").replace("\n    \n", "\n\n") if block else ""


def add_model_modules(
    fs: FileSet,
    env: Environment,
    folder: str,
    modules: tuple[ModelModule, ...],
    declared: tuple[ModelModule, ...],
    template: str = "common",
    **ctx: Any,
) -> None:
    """`<folder>_models/`: each module of the models (mcpgen/models/per_tool.py) and the index of
    what each declares (`declared`: a server adds its prompt and template models to `_shared`)."""
    fs.add(f"{folder}_models/__init__.py", render(env, "common/models_package.py.jinja", model_modules=declared))
    for module in modules:
        fs.add(
            f"{folder}_models/{module.name}.py",
            render(
                env,
                f"{template}/models_module.py.jinja",
                module=replace(module, source=code(module.source)),
                **ctx,
            ),
        )


def render_client(plan: Plan, models: ModelsOutput, options: ClientOptions, templates: str | None) -> FileSet:
    env = make_environment(templates)
    server = plan.server_name or "an MCP server"
    fs = FileSet()
    imports, type_checking_imports = client_imports(plan, models, runtime_module(options.runtime), options.sync)
    # What every template of the client is handed, built once (the docstrings of 500 tools are
    # a good part of a second).
    context = {
        "plan": plan,
        "runtime_module": runtime_module(options.runtime),
        "annotation_imports": code_lines(models.client_imports),
        "models_source": code(models.source),  # every model in one module, for templates overriding models.py
        "front_imports": front_imports(runtime_module(options.runtime)),
        "package_doc": f"Typed MCP client for {server} (generated by mcpgen).",
        "client_doc": f"AsyncClient and Client for {server}: one typed method per tool.",
        "sync": options.sync,
        "imports": imports,
        "type_checking_imports": type_checking_imports,
        "docs": client_docstrings(plan),
    }
    for name in FILES:
        fs.add(name, render(env, f"client/{name}.jinja", **context))
    add_model_modules(fs, env, "", models.modules, models.modules)
    return fs
