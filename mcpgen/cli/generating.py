"""The commands that generate: `client`, `server` and `docs` (one target from flags) and
`generate` (the targets of [tool.mcpgen]); all of them run targets through pipeline.py."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ..catalog.model import Problem
from ..console import console, echo
from ..options import (
    ClientOptions,
    DocsOptions,
    Formatter,
    GeneratorOptions,
    Layout,
    Mode,
    ProjectOptions,
    Runtime,
    ServerOptions,
)
from .common import (
    EXIT_BAD_INPUT,
    EXIT_DIFFERENT,
    F,
    LiveSourceCommand,
    converting,
    fail,
    options_decorator,
    warn,
    with_output_options,
)
from .source_options import source_options

if TYPE_CHECKING:
    from ..config import SourceSpec, Target

_OUTPUT_HELP = "Package directory to write."
_TEMPLATES = click.option(
    "--templates",
    "templates",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="Directory of templates overriding shipped ones by file name.",
)


def _skip_invalid(rest: str) -> Callable[[F], F]:
    return click.option(
        "--skip-invalid",
        is_flag=True,
        help=f"Leave out (with a warning) each tool that cannot be generated exactly; {rest}.",
    )


# What `client` and `server` both take about the package they write.
with_package_options = options_decorator(
    [
        click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False), help=_OUTPUT_HELP),
        click.option("--name", "name", default=None, help="Package name (default: the output folder's name)."),
        click.option(
            "--runtime",
            type=click.Choice([r.value for r in Runtime]),
            default=Runtime.IMPORT.value,
            show_default=True,
            help="import: use the installed mcpgen.runtime; vendor: copy it into the package.",
        ),
        click.option(
            "--formatter",
            type=click.Choice([f.value for f in Formatter]),
            default=Formatter.RUFF.value,
            show_default=True,
            help="Who formats the generated Python: ruff, or black (pip install 'mcpgen[black]').",
        ),
        _TEMPLATES,
        _skip_invalid("generate the rest"),
    ]
)


def _project(kwargs: dict[str, Any]) -> dict[str, Any]:
    """--project and its three options -> `project` (None without --project)."""
    wanted = kwargs.pop("project")
    name, version, extras = kwargs.pop("project_name"), kwargs.pop("project_version"), kwargs.pop("project_extras")
    if not wanted and (name or version or extras):
        fail([Problem("--project-name/--project-version/--project-extra", "apply with --project only")])
    return {**kwargs, "project": ProjectOptions(name, version, tuple(extras)) if wanted else None}


# An installable distribution instead of a bare package (render/project.py).
with_project_options = converting(
    [
        click.option(
            "--project",
            is_flag=True,
            help="Make -o an installable distribution: pyproject.toml, README.md, and the package under its name.",
        ),
        click.option(
            "--project-name", default=None, help="With --project: the distribution name (default: the package's)."
        ),
        click.option(
            "--project-version",
            default=None,
            help="With --project: its version (default: the source server's, else 0.1.0).",
        ),
        click.option(
            "--project-extra",
            "project_extras",
            multiple=True,
            help="With --project: an extra of mcpgen-runtime it needs (repeatable; a --url source implies `http`).",
        ),
    ],
    _project,
)


def _mode(kwargs: dict[str, Any]) -> dict[str, Any]:
    check, show_diff = kwargs.pop("check"), kwargs.pop("show_diff")
    return {**kwargs, "mode": Mode.DIFF if show_diff else Mode.CHECK if check else Mode.WRITE}


def _mode_options(where: str) -> Callable[[F], F]:
    """--check and --diff (handed to the command as `mode`), and --force (`where` names what
    the command generates into: "a folder", "folders")."""
    never = "those are never overwritten or deleted"
    return converting(
        [
            click.option(
                "--check",
                is_flag=True,
                help="Regenerate in memory; exit 1 listing the files that differ. Writes nothing.",
            ),
            click.option("--diff", "show_diff", is_flag=True, help="Like --check, and print a unified diff."),
            click.option(
                "--force", is_flag=True, help=f"Also generate into {where} holding files mcpgen did not write; {never}."
            ),
        ],
        _mode,
    )


with_mode_options = _mode_options("a folder")


def _generate_one(
    source: SourceSpec,
    output: str,
    generator: GeneratorOptions,
    *,
    name: str | None = None,
    templates: str | None,
    skip_invalid: bool,
    mode: Mode,
    force: bool,
) -> NoReturn:
    """`mcpgen client|server|docs`: one Target from the command line, through the pipeline."""
    from ..config import Target, package_for
    from ..kinds import kind_for

    out = Path(output)
    package = ""  # a docs folder holds no Python
    if kind_for(generator, source).named:
        package, problems = package_for(out, name, "--name")
        if problems:
            fail(problems)
    target = Target(
        name="",
        source=source,
        output=out,
        package=package,
        generator=generator,
        templates=Path(templates) if templates else None,
        force=force,
        skip_invalid=skip_invalid,
        display=output,
    )
    sys.exit(_run([target], mode))


@click.command("client", cls=LiveSourceCommand)
@with_output_options
@with_package_options
@click.option(
    "--sync/--no-sync",
    "sync",
    default=True,
    show_default=True,
    help="Also generate `Client`, the synchronous twin of `AsyncClient`.",
)
@click.option(
    "--layout",
    type=click.Choice([layout.value for layout in Layout]),
    default=Layout.FLAT.value,
    show_default=True,
    help="flat: one client.py; code-mode: also one module per tool, a searchable index and a SKILL.md for agents.",
)
@with_project_options
@source_options("source", many=True)
@with_mode_options
def client_cmd(
    source: SourceSpec,
    output: str,
    name: str | None,
    runtime: str,
    formatter: str,
    templates: str | None,
    skip_invalid: bool,
    sync: bool,
    layout: str,
    project: ProjectOptions | None,
    mode: Mode,
    force: bool,
) -> None:
    """Generate a typed client package from SOURCE (file), --url, --config/--server, or -- COMMAND ARGS...

    \b
    Examples:
      mcpgen client schemas/weather.yaml -o weather_client
      mcpgen client -o weather_client -- python -m weather_server
      mcpgen client -o everything_client -- npx -y @modelcontextprotocol/server-everything
      mcpgen client --url http://127.0.0.1:8000/mcp -o weather_client
      mcpgen client --config mcp.json --server weather -o weather_client
      mcpgen client schemas/weather.yaml -o weather_client --check
    """
    _generate_one(
        source,
        output,
        ClientOptions(
            runtime=Runtime(runtime), sync=sync, layout=Layout(layout), formatter=Formatter(formatter), project=project
        ),
        name=name,
        templates=templates,
        skip_invalid=skip_invalid,
        mode=mode,
        force=force,
    )


@click.command("server", cls=LiveSourceCommand)
@with_output_options
@with_package_options
@click.option(
    "--add-missing", is_flag=True, help="Append stubs for new tools to handlers.py (nothing else in it changes)."
)
@with_project_options
@source_options("sources")
@with_mode_options
def server_cmd(
    source: SourceSpec,
    output: str,
    name: str | None,
    add_missing: bool,
    runtime: str,
    formatter: str,
    templates: str | None,
    skip_invalid: bool,
    project: ProjectOptions | None,
    mode: Mode,
    force: bool,
) -> None:
    """Scaffold a server package from SOURCES (files or folders of schemas), --url, --config/--server, or -- COMMAND.

    _generated/ is rewritten every time; handlers.py is written once and then belongs to you.

    \b
    Examples:
      mcpgen server schemas/ -o weather_server
      mcpgen server schemas/ -o weather_server --add-missing
      mcpgen server -o mirror_server -- python -m weather_server
      python -m weather_server --http --port 8000
    """
    _generate_one(
        source,
        output,
        ServerOptions(
            runtime=Runtime(runtime), add_missing=add_missing, formatter=Formatter(formatter), project=project
        ),
        name=name,
        templates=templates,
        skip_invalid=skip_invalid,
        mode=mode,
        force=force,
    )


@click.command("docs", cls=LiveSourceCommand)
@with_output_options
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False), help="Docs folder to write.")
@_TEMPLATES
@_skip_invalid("document the rest")
@source_options("sources")
@with_mode_options
def docs_cmd(
    source: SourceSpec,
    output: str,
    templates: str | None,
    skip_invalid: bool,
    mode: Mode,
    force: bool,
) -> None:
    """Write reference docs for SOURCES (files or folders of schemas), --url, --config/--server, or -- COMMAND.

    DIR/index.html (one self-contained page with search; it loads nothing from the network),
    DIR/reference.md and DIR/llms.txt.

    \b
    Examples:
      mcpgen docs schemas/weather.yaml -o docs/weather
      mcpgen docs -o docs/everything -- npx -y @modelcontextprotocol/server-everything
      mcpgen docs --url http://127.0.0.1:8000/mcp -o docs/weather --check
    """
    _generate_one(
        source,
        output,
        DocsOptions(),
        templates=templates,
        skip_invalid=skip_invalid,
        mode=mode,
        force=force,
    )


@click.command("generate")
@with_output_options
@click.option("--target", "names", multiple=True, help="Only this target (repeatable; default: all).")
@_mode_options("folders")
def generate_cmd(names: tuple[str, ...], mode: Mode, force: bool) -> None:
    """Run the targets of [tool.mcpgen] in the nearest pyproject.toml (found from the current folder up).

    \b
    Examples:
      mcpgen generate
      mcpgen generate --target weather
      mcpgen generate --check
      mcpgen generate --diff
    """
    from dataclasses import replace

    from ..config import load_project

    project, problems = load_project(Path.cwd())
    if problems or project is None:
        fail(problems)
    known = {t.name for t in project.targets}
    unknown = [n for n in names if n not in known]
    if unknown:
        fail(
            [
                Problem(str(project.pyproject), f"no target named {n!r} (known: {', '.join(sorted(known))})")
                for n in unknown
            ]
        )
    targets = [replace(t, force=t.force or force) for t in project.targets if not names or t.name in names]
    sys.exit(_run(targets, mode))


def _run(targets: Sequence[Target], mode: Mode) -> int:
    """Every target, each reported on its own; exit 2 if any failed, else 1 if any differs."""
    from ..pipeline import SettledSources, run_target
    from ..wording import counted, verb

    failed = differs = False
    cwd = Path.cwd()
    settled: SettledSources = {}  # a source the manifest settled is read once per run
    for t in targets:
        outcome = run_target(t, mode, cwd, settled)
        console.done()
        label = f"{t.name}: " if t.name else ""
        if outcome.problems:
            failed = True
            for p in outcome.problems:
                echo(f"mcpgen: error: {label}{p}", err=True)
            continue
        warn([Problem(f"{label}{w.where}", w.message, w.pointer, w.warning) for w in outcome.warnings])
        for line in outcome.messages:
            console.info(f"mcpgen: {label}{line}")
        shown = t.display or str(t.output)
        if mode is Mode.WRITE:
            console.info(
                f"{label}wrote {counted(outcome.written, 'file')} to {shown} ({counted(outcome.tools, 'tool')})"
            )
            continue
        if outcome.diff:
            echo(outcome.diff, nl=False)
        for ch in outcome.changes:
            # With --diff, stdout is the patch alone; the summary goes to stderr.
            echo(f"{label}{ch.status:8} {Path(shown) / ch.path}", err=mode is Mode.DIFF)
        if outcome.changes:
            differs = True
            n = len(outcome.changes)
            echo(
                f"mcpgen: {label}{shown} is out of date ({counted(n, 'file')} {verb(n, 'differs', 'differ')})",
                err=True,
            )
        else:
            console.info(f"{label}{shown} is up to date")
    return EXIT_BAD_INPUT if failed else EXIT_DIFFERENT if differs else 0


COMMANDS = (client_cmd, server_cmd, docs_cmd, generate_cmd)
