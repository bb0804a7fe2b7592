"""Catalog -> formatted files in memory, for either kind of package: plan, models, render, format.

Nothing here touches the output folder; `pipeline.py` decides what to write, check or diff.
"""

from __future__ import annotations

from .catalog.model import Catalog, Problem, StageError
from .models import ModelsOutput, bind_plan, generate_models
from .options import ClientOptions, Runtime, ServerOptions
from .output.files import FileSet, format_files
from .output.handlers_file import ServerFiles
from .plan.build import build_plan
from .plan.renames import plan_renames
from .plan.types import Plan
from .render.client import render_client, runtime_module
from .render.server import render_server, split_formatted


def _plan_and_models(
    catalog: Catalog, skip_invalid: bool, runtime: Runtime, nested: bool
) -> tuple[Plan, ModelsOutput, list[Problem]]:
    plan = build_plan(catalog, skip_invalid=skip_invalid)
    # A server's models.py sits in _generated/, one level below the vendored _runtime/.
    # A server's prompt and template models are appended to its models.py (templates/server).
    prompt_models = nested and bool(plan.prompts or plan.templates)
    models, problems = generate_models(
        plan, runtime_module=runtime_module(runtime, nested=nested), prompt_models=prompt_models
    )
    errors = [p for p in problems if not p.warning]
    if models is None or errors:
        raise StageError(errors or problems)
    return bind_plan(plan, models), models, list(plan.warnings) + problems


def _renames(plan: Plan, models: ModelsOutput) -> list[tuple[str, str]]:
    """The plan's renames, then those of nested model fields (`Relation.from` -> `from_`)."""
    named = [(r.wire, r.python) for r in plan_renames(plan)]
    return named + [(f"{r.model}.{r.wire}", r.python) for r in models.renames]


def _formatted(fs: FileSet) -> FileSet:
    problems = format_files(fs)
    if problems:
        raise StageError(problems)
    return fs


def generate_client(
    catalog: Catalog, options: ClientOptions, *, templates: str | None = None, skip_invalid: bool = False
) -> FileSet:
    """Every file of the client package, formatted; raises StageError with all problems found."""
    plan, models, problems = _plan_and_models(catalog, skip_invalid, options.runtime, nested=False)
    fs = render_client(plan, models, options, templates)
    fs.warnings = [p for p in problems if p.warning]
    fs.renames = _renames(plan, models)
    return _formatted(fs)


def generate_server(
    catalog: Catalog, options: ServerOptions, package: str, *, templates: str | None = None, skip_invalid: bool = False
) -> ServerFiles:
    """Every generated file of the server, formatted, plus the initial handlers.py and the stubs."""
    plan, models, problems = _plan_and_models(catalog, skip_invalid, options.runtime, nested=True)
    problems += [
        Problem(repr(t), "not served: a generated server matches RFC 6570 level-1 templates ({var}) only", warning=True)
        for t in plan.rich_templates
    ]
    fs, labels = render_server(plan, models, options, package, templates)
    fs.warnings = [p for p in problems if p.warning]
    fs.renames = _renames(plan, models)
    return split_formatted(_formatted(fs), labels)
