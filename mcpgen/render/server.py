"""Plan + models -> the files of a server skeleton (unformatted; see output/formatter.py).

Like grpc stubs: `_generated/` holds `ToolsBase` with one typed async method per tool (each
answering "not implemented" until overridden) and is rewritten every time; `handlers.py`
subclasses it and is the user's (see output/user_files.py). `_generated/tables.py` declares,
as data, what the runtime's adapter (mcpgen/runtime/server/adapter.py) serves and how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..models import ModelsOutput
from ..models.imports import import_lines
from ..models.per_tool import ModelModule
from ..options import ServerOptions
from ..plan.types import Plan
from .client import add_model_modules, code_lines, front_imports, runtime_module
from .emitters import PyCode, code
from .environment import make_environment, render
from .files import HANDLERS_FILE, FileSet, ServerFiles
from .project import DEFAULT_VERSION

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
# Stubs are rendered as `stub/<method>.py` so that the formatter formats each on its own.
STUB_PREFIX = "stub/"
# The contract test file, formatted with the rest, then taken out like handlers.py (its real
# name, files.contract_file_name's, depends on the package).
CONTRACT_RENDERED = "contract/test_contract.py"


def base_imports(
    plan: Plan,
    models: ModelsOutput,
    runtime: str,
    cache_hints: bool = False,
    skills_dir: bool = False,
    task_support: bool = False,
    tool_ui: bool = False,
) -> PyCode:
    """_generated/base.py's import block: what its stubs and ToolsBase use, sorted (ToolsBase
    declares the options' defaults: CACHE_HINTS, SKILLS_DIR, TASK_SUPPORT, TOOL_UI)."""
    used = " ".join(t.server_returns for t in plan.tools)
    annotations = [line for line in models.client_imports if line.rsplit(" ", 1)[-1] + "." in used]
    features = bool(plan.prompts or plan.templates), bool(plan.resources or plan.templates)
    support = ["Context", "Server", "bind_handlers"]
    support += (["CompletionHook"] if features[0] else []) + (["SubscriptionHook"] if features[1] else [])
    support += (["PromptOutput"] if plan.prompts else []) + (["ResourceOutput"] if features[1] else [])
    support += ["ToolOutput"] if any(t.result_model is None for t in plan.tools) else []
    support += ["CacheHint"] if cache_hints else []
    mapping = ["from collections.abc import Mapping"] if cache_hints or task_support or tool_ui else []
    typing = [*mapping, "from typing import ClassVar"] if mapping or skills_dir else []
    return code(
        import_lines(
            [
                "from __future__ import annotations",
                *typing,
                *annotations,
                f"from {runtime}.support.server import {', '.join(support)}",
                "from . import models as _models",
                "from . import tables as _tables",
            ]
        )
    )


def _with_prompt_models(modules: tuple[ModelModule, ...], plan: Plan) -> tuple[ModelModule, ...]:
    """The modules as `_models/__init__.py` indexes them: a server's prompt and template models
    are declared at the end of `_shared` (templates/server/_generated/models_module.py.jinja)."""
    extra = tuple(p.model for p in plan.prompts) + tuple(t.model for t in plan.templates)
    shared, *rest = modules
    return (replace(shared, declares=shared.declares + extra), *rest)


def render_server(
    plan: Plan, models: ModelsOutput, options: ServerOptions, package: str, templates: str | None
) -> tuple[FileSet, dict[str, str]]:
    """Every generated file, the initial handlers.py and one stub per handler method (by method name)."""
    env = make_environment(templates)
    ctx: dict[str, Any] = {
        "plan": plan,
        "package": package,
        "tools": plan.tools,
        "prompts": plan.prompts,
        "resources": plan.resources,
        "templates": plan.templates,
        "server_name": plan.server_name or package,
        # The project's version (--project), else the source server's: what `initialize` reports.
        "server_version": options.project.version
        if options.project and options.project.version
        else plan.server_version or DEFAULT_VERSION,
        "server_info_json": plan.server_info_json,
        "instructions": plan.instructions,
        "tools_json": plan.tools_json,
        "prompts_json": plan.prompts_json,
        "resources_json": plan.resources_json,
        "templates_json": plan.templates_json,
        "annotation_imports": code_lines(models.client_imports),
        "front_imports": front_imports(runtime_module(options.runtime, nested=True)),
        # Where the runtime is imported from, seen from the package and from _generated/.
        "runtime_module": runtime_module(options.runtime),
        "generated_runtime_module": runtime_module(options.runtime, nested=True),
        "base_imports": base_imports(
            plan,
            models,
            runtime_module(options.runtime, nested=True),
            bool(options.cache_hints),
            bool(options.skills_dir),
            bool(options.task_support),
            bool(options.tool_ui),
        ),
        "cache_hints": options.cache_hints,
        "skills_dir": options.skills_dir,
        "task_support": options.task_support,
        "tool_ui": options.tool_ui,
    }
    fs = FileSet()
    for path in GENERATED_FILES:
        fs.add(path, render(env, f"server/{path}.jinja", **ctx))
    declared = _with_prompt_models(models.modules, plan)
    add_model_modules(fs, env, "_generated/", models.modules, declared, "server/_generated", **ctx)
    stubs = {t.method: render(env, "server/handler_stub.py.jinja", tool=t, **ctx) for t in plan.tools}
    for kind, items in (("prompt", plan.prompts), ("resource", plan.resources), ("template", plan.templates)):
        for item in items:
            stubs[item.server_method] = render(env, f"server/{kind}_stub.py.jinja", item=item, **ctx)
    # handlers.py imports only the modules its stubs' annotations mention (it is the user's file).
    used = "".join(stubs.values())
    handler_imports = [line for line in models.client_imports if line.rsplit(" ", 1)[-1] + "." in used]
    fs.add(
        HANDLERS_FILE,
        render(
            env,
            "server/handlers.py.jinja",
            stubs=[code(stub) for stub in stubs.values()],
            handler_imports=code_lines(handler_imports),
            **ctx,
        ),
    )
    for method, stub in stubs.items():
        fs.add(f"{STUB_PREFIX}{method}.py", "class Handlers:\n" + stub)
    fs.add(CONTRACT_RENDERED, render(env, "server/contract_test.py.jinja", **ctx))
    return fs, handler_labels(plan)


def handler_labels(plan: Plan) -> dict[str, str]:
    """Handler method -> what it serves, for messages about missing handlers."""
    labels = {t.method: f"tool {t.wire!r}" for t in plan.tools}
    labels.update({p.server_method: f"prompt {p.wire!r}" for p in plan.prompts})
    labels.update({r.server_method: f"resource {r.uri!r}" for r in plan.resources})
    labels.update({t.server_method: f"resource template {t.template!r}" for t in plan.templates})
    return labels


def split_formatted(fs: FileSet, labels: Mapping[str, str]) -> ServerFiles:
    """After formatting: take handlers.py and the stubs out of the generated file set."""
    stubs = {
        path[len(STUB_PREFIX) : -3]: fs.files.pop(path).split("\n", 1)[1]
        for path in sorted(fs.files)
        if path.startswith(STUB_PREFIX)
    }
    handlers = fs.files.pop(HANDLERS_FILE)
    contract = fs.files.pop(CONTRACT_RENDERED)
    return ServerFiles(fs, handlers, stubs, dict(labels), contract=contract)
