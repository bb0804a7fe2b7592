"""Catalog -> formatted files in memory, for either kind of package: plan, models, render, format.

Nothing here touches the output folder: a kind (kinds.py) hands the files to `output/emit.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from .catalog.model import Catalog, Problem, StageError
from .console import console
from .models import CLIENT_TABLES, SERVER_TABLES, ModelsOutput, bind_plan, generate_models, prepare_models
from .options import ClientOptions, Formatter, Layout, Runtime, ServerOptions
from .output.formatter import format_files
from .plan.build import build_plan
from .plan.renames import plan_renames
from .plan.types import Plan
from .render.client import render_client, runtime_module
from .render.files import FileSet, ServerFiles
from .wording import counted

if TYPE_CHECKING:
    from .plan.many import ManyPlan


def _plan_and_models(
    catalog: Catalog, skip_invalid: bool, runtime: Runtime, nested: bool
) -> tuple[Plan, ModelsOutput, list[Problem]]:
    console.stage("validating", counted(len(catalog.tools), "tool"))
    prepare_models(len(catalog.tools))
    plan = build_plan(catalog, skip_invalid=skip_invalid)
    console.stage("models", counted(len(plan.tools), "tool"))
    # A server's models.py sits in _generated/, one level below the vendored _runtime/.
    # A server's prompt and template models are appended to its models.py (templates/server).
    prompt_models = nested and bool(plan.prompts or plan.templates)
    models, problems = generate_models(
        plan,
        runtime_module=runtime_module(runtime, nested=nested),
        prompt_models=prompt_models,
        tables=SERVER_TABLES if nested else CLIENT_TABLES,
    )
    errors = [p for p in problems if not p.warning]
    if models is None or errors:
        raise StageError(errors or problems)
    return bind_plan(plan, models), models, list(plan.warnings) + problems


def _renames(plan: Plan, models: ModelsOutput) -> list[tuple[str, str]]:
    """The plan's renames, then those of nested model fields (`Relation.from` -> `from_`)."""
    named = [(r.wire, r.python) for r in plan_renames(plan)]
    return named + [(f"{r.model}.{r.wire}", r.python) for r in models.renames]


def _vendored(fs: FileSet, runtime: Runtime, package: str) -> FileSet:
    """With `--runtime vendor`, the part of the runtime the package's files import (render/vendor.py)."""
    if runtime is Runtime.VENDOR:
        from .render.vendor import vendored_files

        copied, _ = vendored_files(fs.files, package)
        for path, text in copied.items():
            fs.add(path, text, format=False)
    return fs


def _formatted(fs: FileSet, formatter: Formatter) -> FileSet:
    console.stage("formatting", counted(len(fs.files), "file"))
    problems = format_files(fs, formatter)
    if problems:
        raise StageError(problems)
    return fs


def generate_client(
    catalog: Catalog,
    options: ClientOptions,
    *,
    templates: str | None = None,
    skip_invalid: bool = False,
    package: str = "client",
) -> FileSet:
    """Every file of the client package, formatted; raises StageError with all problems found.

    `package` is the import name a code-mode package tells its reader (a flat client's imports
    are all relative, so it does not need one)."""
    plan, models, problems = _plan_and_models(catalog, skip_invalid, options.runtime, nested=False)
    if options.layout is Layout.CODE_MODE:
        from .render.code_mode import render_code_mode

        fs = render_code_mode(plan, models, options, templates, package)
    else:
        fs = render_client(plan, models, options, templates)
    fs.warnings = [p for p in problems if p.warning]
    fs.renames = _renames(plan, models)
    return _formatted(_vendored(fs, options.runtime, package), options.formatter)


def generate_server(
    catalog: Catalog, options: ServerOptions, package: str, *, templates: str | None = None, skip_invalid: bool = False
) -> ServerFiles:
    """Every generated file of the server, formatted, plus the initial handlers.py and the stubs."""
    from .render.server import render_server, split_formatted  # (a client never loads the server's)

    plan, models, problems = _plan_and_models(catalog, skip_invalid, options.runtime, nested=True)
    problems += [
        Problem(repr(t), "not served: a generated server matches RFC 6570 level-1 templates ({var}) only", warning=True)
        for t in plan.rich_templates
    ]
    fs, labels = render_server(plan, models, options, package, templates)
    fs.warnings = [p for p in problems if p.warning]
    fs.renames = _renames(plan, models)
    return split_formatted(_formatted(_vendored(fs, options.runtime, package), options.formatter), labels)


def generate_many(
    catalogs: Mapping[str, Catalog],
    options: ClientOptions,
    *,
    config_file: str,
    templates: str | None = None,
    skip_invalid: bool = False,
) -> tuple[FileSet, ManyPlan]:
    """One client package for {server name: catalog}: a namespace per server (render/many.py).

    `config_file` is the servers config's path relative to the package: connect() reads it
    again, so nothing from it but the server names enters the package."""
    from .plan.many import build_many_plan
    from .render.many import render_many

    bound: dict[str, tuple[Plan, ModelsOutput]] = {}
    warnings: list[Problem] = []
    for server in sorted(catalogs):
        plan, models, problems = _plan_and_models(catalogs[server], skip_invalid, options.runtime, nested=False)
        bound[server] = (plan, models)
        warnings += [replace(p, where=f"{server}: {p.where}") for p in problems if p.warning]
    many = build_many_plan({server: [t.wire for t in plan.tools] for server, (plan, _) in bound.items()})
    by_namespace = {s.namespace: bound[s.server] for s in many.servers}
    fs = render_many(many, by_namespace, options, templates, config_file)
    fs.warnings = warnings
    return _formatted(fs, options.formatter), many
