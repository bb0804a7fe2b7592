"""Command line: parses flags, calls the stages, maps problems to exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from . import __version__
from .catalog.model import Catalog, Problem
from .config import SourceSpec, Target, package_for
from .console import Verbosity, console
from .options import ClientOptions, DocsOptions, Mode, Runtime, ServerOptions
from .wording import counted, verb

EXIT_DIFFERENT = 1
EXIT_BAD_INPUT = 2


def _fail(problems: Sequence[Problem]) -> NoReturn:
    console.done()
    for p in problems:
        click.echo(f"mcpgen: error: {p}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _warn(problems: Sequence[Problem]) -> None:
    for p in problems:
        console.info(f"mcpgen: warning: {p}")


def _set_verbosity(level: Verbosity) -> Callable[[click.Context, click.Parameter, bool], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if value:
            console.verbosity = level

    return callback


# Every command takes these (after its name: `mcpgen client ... --quiet`).
output_options = [
    click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_set_verbosity(Verbosity.QUIET),
        help="Print nothing but errors (and what the command is for: a table, a diff).",
    ),
    click.option(
        "-v",
        "--verbose",
        is_flag=True,
        expose_value=False,
        callback=_set_verbosity(Verbosity.VERBOSE),
        help="Print each stage on its own line, with its time.",
    ),
]


def cli_source(
    files: Sequence[str],
    command: Sequence[str],
    url: str | None,
    headers: Sequence[str],
    config: str | None,
    server: str | None,
    connect_timeout: float,
) -> SourceSpec:
    """Exactly one of: file(s), --url, --config F --server N, or a command after `--`."""
    given = sum(bool(x) for x in (files, command, url, config))
    if given != 1:
        _fail(
            [
                Problem(
                    "usage",
                    "give exactly one source: FILE, --url URL, --config FILE --server NAME, or -- COMMAND ARGS...",
                )
            ]
        )
    if config and not server:
        _fail([Problem("usage", "--config needs --server NAME")])
    pairs: list[tuple[str, str]] = []
    for h in headers:
        key, sep, value = h.partition(":")
        if not sep or not key.strip():
            _fail([Problem("--header", f"{h!r} is not NAME:VALUE")])
        pairs.append((key.strip(), value.strip()))
    if pairs and not url:
        _fail([Problem("--header", "headers only apply to --url")])
    return SourceSpec(
        files=tuple(Path(f) for f in files),
        url=url,
        headers=tuple(pairs),
        command=tuple(command),
        config=Path(config) if config else None,
        server=server,
        connect_timeout=connect_timeout,
    )


def load_source(spec: SourceSpec) -> Catalog:
    from .pipeline import load_catalog

    console.stage("reading", spec.describe())
    try:
        cat, problems = load_catalog(spec)
    finally:
        console.done()
    if problems or cat is None:
        _fail(problems or [Problem(spec.describe(), "no catalog")])
    return cat


_F = TypeVar("_F", bound=Callable[..., Any])


class LiveSourceCommand(click.Command):
    """A command that also takes a server to start after `--`: its usage line says so."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- COMMAND [ARGS]...]"]


def _options_decorator(options: list[Any]) -> Callable[[_F], _F]:
    """One decorator applying a list of click options, in the order listed."""

    def apply(f: _F) -> _F:
        for opt in reversed(options):
            f = opt(f)
        return f

    return apply


source_options = [
    click.option("--url", "url", type=str, default=None, help="A Streamable HTTP (or HTTP+SSE) server."),
    click.option(
        "--header", "headers", multiple=True, metavar="NAME:VALUE", help="HTTP header for --url (repeatable)."
    ),
    click.option("--config", "config", type=str, default=None, help="mcpServers JSON file (with --server)."),
    click.option("--server", "server", type=str, default=None, help="Server name inside --config."),
    click.option(
        "--connect-timeout", type=float, default=30.0, show_default=True, help="Seconds a live server gets to answer."
    ),
]


_with_source_options = _options_decorator(source_options)
_with_output_options = _options_decorator(output_options)


# What `client` and `server` both take about the package they write.
package_options = [
    click.option(
        "-o", "--output", "output", required=True, type=click.Path(file_okay=False), help="Package directory to write."
    ),
    click.option("--name", "name", default=None, help="Package name (default: the output folder's name)."),
    click.option(
        "--runtime",
        type=click.Choice([r.value for r in Runtime]),
        default=Runtime.IMPORT.value,
        show_default=True,
        help="import: use the installed mcpgen.runtime; vendor: copy it into the package.",
    ),
    click.option(
        "--templates",
        "templates",
        type=click.Path(exists=True, file_okay=False),
        default=None,
        help="Directory of templates overriding shipped ones by file name.",
    ),
    click.option(
        "--skip-invalid",
        is_flag=True,
        help="Leave out (with a warning) each tool that cannot be generated exactly; generate the rest.",
    ),
]


_with_package_options = _options_decorator(package_options)


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


class McpgenGroup(click.Group):
    """The command group. On failure stderr holds only `mcpgen: error:` lines: Ctrl-C and an
    unexpected exception each become one such line, not a traceback (MCPGEN_DEBUG=1 keeps it)."""

    def invoke(self, ctx: click.Context) -> Any:
        import os

        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("mcpgen: error: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            if os.environ.get("MCPGEN_DEBUG"):
                raise
            what = " ".join(str(exc).split())[:300]
            click.echo(
                f"mcpgen: error: internal error: {type(exc).__name__}: {what} (MCPGEN_DEBUG=1 shows where)", err=True
            )
            sys.exit(EXIT_BAD_INPUT)


@click.group(cls=McpgenGroup)
@click.version_option(__version__, prog_name="mcpgen")
def cli() -> None:
    """Turn MCP tool definitions into typed Python code.

    \b
    Examples:
      mcpgen client schemas/weather.yaml -o weather_client
      mcpgen server schemas/ -o weather_server
      mcpgen inspect -- npx -y @modelcontextprotocol/server-everything
      mcpgen COMMAND --help
    """


mode_options = [
    click.option(
        "--check", is_flag=True, help="Regenerate in memory; exit 1 listing the files that differ. Writes nothing."
    ),
    click.option("--diff", "show_diff", is_flag=True, help="Like --check, and print a unified diff."),
    click.option(
        "--force",
        is_flag=True,
        help="Also generate into a folder holding files mcpgen did not write; those are never overwritten or deleted.",
    ),
]


_with_mode_options = _options_decorator(mode_options)


def _mode(check: bool, show_diff: bool) -> Mode:
    return Mode.DIFF if show_diff else Mode.CHECK if check else Mode.WRITE


def _cli_target(output: str, name: str | None, source: SourceSpec, **options: Any) -> Target:
    out = Path(output)
    pkg, problems = package_for(out, name, "--name")
    if problems:
        _fail(problems)
    return Target(name="", source=source, output=out, package=pkg, display=output, **options)


@cli.command("client", cls=LiveSourceCommand)
@_with_output_options
@click.argument("source", required=False)
@_with_package_options
@click.option(
    "--sync/--no-sync",
    "sync",
    default=True,
    show_default=True,
    help="Also generate `Client`, the synchronous twin of `AsyncClient`.",
)
@_with_source_options
@_with_mode_options
@click.pass_context
def client_cmd(
    ctx: click.Context,
    source: str | None,
    output: str,
    name: str | None,
    runtime: str,
    templates: str | None,
    skip_invalid: bool,
    sync: bool,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: str | None,
    connect_timeout: float,
    check: bool,
    show_diff: bool,
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
    spec = cli_source(
        [source] if source else [], ctx.obj.get("command", ()), url, headers, config, server, connect_timeout
    )
    target = _cli_target(
        output,
        name,
        spec,
        generator=ClientOptions(runtime=Runtime(runtime), sync=sync),
        templates=Path(templates) if templates else None,
        force=force,
        skip_invalid=skip_invalid,
    )
    sys.exit(_run([target], _mode(check, show_diff)))


@cli.command("server", cls=LiveSourceCommand)
@_with_output_options
@click.argument("sources", nargs=-1)
@_with_package_options
@click.option(
    "--add-missing", is_flag=True, help="Append stubs for new tools to handlers.py (nothing else in it changes)."
)
@_with_source_options
@_with_mode_options
@click.pass_context
def server_cmd(
    ctx: click.Context,
    sources: tuple[str, ...],
    output: str,
    name: str | None,
    add_missing: bool,
    runtime: str,
    templates: str | None,
    skip_invalid: bool,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: str | None,
    connect_timeout: float,
    check: bool,
    show_diff: bool,
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
    spec = cli_source(sources, ctx.obj.get("command", ()), url, headers, config, server, connect_timeout)
    target = _cli_target(
        output,
        name,
        spec,
        generator=ServerOptions(runtime=Runtime(runtime), add_missing=add_missing),
        templates=Path(templates) if templates else None,
        force=force,
        skip_invalid=skip_invalid,
    )
    sys.exit(_run([target], _mode(check, show_diff)))


@cli.command("docs", cls=LiveSourceCommand)
@_with_output_options
@click.argument("sources", nargs=-1)
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False), help="Docs folder to write.")
@click.option(
    "--templates",
    "templates",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="Directory of templates overriding shipped ones by file name.",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Leave out (with a warning) each tool that cannot be generated exactly; document the rest.",
)
@_with_source_options
@_with_mode_options
@click.pass_context
def docs_cmd(
    ctx: click.Context,
    sources: tuple[str, ...],
    output: str,
    templates: str | None,
    skip_invalid: bool,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: str | None,
    connect_timeout: float,
    check: bool,
    show_diff: bool,
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
    spec = cli_source(sources, ctx.obj.get("command", ()), url, headers, config, server, connect_timeout)
    target = Target(
        name="",
        source=spec,
        output=Path(output),
        package="",
        generator=DocsOptions(),
        templates=Path(templates) if templates else None,
        force=force,
        skip_invalid=skip_invalid,
        display=output,
    )
    sys.exit(_run([target], _mode(check, show_diff)))


@cli.command("generate")
@_with_output_options
@click.option("--target", "names", multiple=True, help="Only this target (repeatable; default: all).")
@click.option(
    "--check", is_flag=True, help="Regenerate in memory; exit 1 listing the files that differ. Writes nothing."
)
@click.option("--diff", "show_diff", is_flag=True, help="Like --check, and print a unified diff.")
@click.option(
    "--force",
    is_flag=True,
    help="Also generate into folders holding files mcpgen did not write; those are never overwritten or deleted.",
)
def generate_cmd(names: tuple[str, ...], check: bool, show_diff: bool, force: bool) -> None:
    """Run the targets of [tool.mcpgen] in the nearest pyproject.toml (found from the current folder up).

    \b
    Examples:
      mcpgen generate
      mcpgen generate --target weather
      mcpgen generate --check
      mcpgen generate --diff
    """
    from dataclasses import replace

    from .config import load_project

    project, problems = load_project(Path.cwd())
    if problems or project is None:
        _fail(problems)
    known = {t.name for t in project.targets}
    unknown = [n for n in names if n not in known]
    if unknown:
        _fail(
            [
                Problem(str(project.pyproject), f"no target named {n!r} (known: {', '.join(sorted(known))})")
                for n in unknown
            ]
        )
    targets = [replace(t, force=t.force or force) for t in project.targets if not names or t.name in names]
    sys.exit(_run(targets, _mode(check, show_diff)))


def _run(targets: Sequence[Target], mode: Mode) -> int:
    """Every target, each reported on its own; exit 2 if any failed, else 1 if any differs."""
    from .pipeline import SettledSources, run_target

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
                click.echo(f"mcpgen: error: {label}{p}", err=True)
            continue
        _warn([Problem(f"{label}{w.where}", w.message, w.pointer, w.warning) for w in outcome.warnings])
        for line in outcome.messages:
            console.info(f"mcpgen: {label}{line}")
        shown = t.display or str(t.output)
        if mode is Mode.WRITE:
            console.info(
                f"{label}wrote {counted(outcome.written, 'file')} to {shown} ({counted(outcome.tools, 'tool')})"
            )
            continue
        if outcome.diff:
            click.echo(outcome.diff, nl=False)
        for ch in outcome.changes:
            # With --diff, stdout is the patch alone; the summary goes to stderr.
            click.echo(f"{label}{ch.status:8} {Path(shown) / ch.path}", err=mode is Mode.DIFF)
        if outcome.changes:
            differs = True
            n = len(outcome.changes)
            click.echo(
                f"mcpgen: {label}{shown} is out of date ({counted(n, 'file')} {verb(n, 'differs', 'differ')})",
                err=True,
            )
        else:
            console.info(f"{label}{shown} is up to date")
    return EXIT_BAD_INPUT if failed else EXIT_DIFFERENT if differs else 0


@cli.command("inspect", cls=LiveSourceCommand)
@_with_output_options
@click.argument("source", required=False)
@_with_source_options
@click.pass_context
def inspect_cmd(
    ctx: click.Context,
    source: str | None,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: str | None,
    connect_timeout: float,
) -> None:
    """Print the tools, prompts and resources of SOURCE (file), --url, --config/--server, or -- COMMAND ARGS...

    \b
    Examples:
      mcpgen inspect schemas/weather.yaml
      mcpgen inspect -- npx -y @modelcontextprotocol/server-everything
      mcpgen inspect --url http://127.0.0.1:8000/mcp
    """
    from .render.table import format_catalog

    spec = cli_source(
        [source] if source else [], ctx.obj.get("command", ()), url, headers, config, server, connect_timeout
    )
    catalog = load_source(spec)
    click.echo(format_catalog(catalog, spec.describe()), nl=False)


@cli.command("snapshot", cls=LiveSourceCommand)
@_with_output_options
@click.argument("source", required=False)
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), help="JSON file to write.")
@_with_source_options
@click.pass_context
def snapshot_cmd(
    ctx: click.Context,
    source: str | None,
    output: str,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: str | None,
    connect_timeout: float,
) -> None:
    """Save the whole catalog of SOURCE (usually a live server) as stable, sorted JSON.

    SOURCE is a file, --url, --config/--server, or -- COMMAND ARGS... (a stdio server to start).
    Targets can then point at the file: builds need no live server, and the file diffs well.

    \b
    Examples:
      mcpgen snapshot -o schemas/weather.snapshot.json -- python -m weather_server
      mcpgen snapshot -o schemas/remote.snapshot.json --url http://127.0.0.1:8000/mcp
    """
    from .catalog.snapshot import dumps_snapshot

    spec = cli_source(
        [source] if source else [], ctx.obj.get("command", ()), url, headers, config, server, connect_timeout
    )
    catalog = load_source(spec)
    try:
        _write_file(Path(output), dumps_snapshot(catalog))
    except OSError as exc:
        _fail([Problem(output, f"cannot write: {exc.strerror or exc}")])
    console.info(
        f"wrote {output} ({counted(len(catalog.tools), 'tool')}, {counted(len(catalog.prompts), 'prompt')}, "
        f"{counted(len(catalog.resources), 'resource')}, "
        f"{counted(len(catalog.resource_templates), 'resource template')})"
    )


def _write_file(path: Path, text: str) -> None:
    """Through a temp file beside it: a reader never sees half a snapshot."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@cli.command("diff")
@_with_output_options
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@click.option(
    "--header", "headers", multiple=True, metavar="NAME:VALUE", help="HTTP header for URL sources (repeatable)."
)
@click.option(
    "--connect-timeout", type=float, default=30.0, show_default=True, help="Seconds a live server gets to answer."
)
def diff_cmd(old: str, new: str, as_json: bool, headers: tuple[str, ...], connect_timeout: float) -> None:
    """Classify every change from OLD to NEW as breaking or compatible; exit 1 if any is breaking.

    OLD and NEW are each a schema file or snapshot, an http(s):// URL of a live server,
    or "stdio:COMMAND ARGS..." (a stdio server to start).

    \b
    Examples:
      mcpgen diff schemas/old.json schemas/new.json
      mcpgen diff schemas/weather.snapshot.json "stdio:python -m weather_server"
      mcpgen diff --json old.snapshot.json http://127.0.0.1:8000/mcp
    """
    import json

    from .catalog.diff import diff_tools, format_table, summary

    catalogs = [load_source(_diff_source(s, headers, connect_timeout)) for s in (old, new)]
    changes = diff_tools([t.raw for t in catalogs[0].tools], [t.raw for t in catalogs[1].tools])
    if as_json:
        click.echo(json.dumps(summary(changes), indent=2, sort_keys=True))
    else:
        click.echo(format_table(changes), nl=False)
    sys.exit(EXIT_DIFFERENT if any(c.breaking for c in changes) else 0)


def _diff_source(text: str, headers: Sequence[str], connect_timeout: float) -> SourceSpec:
    import shlex

    if text.startswith(("http://", "https://")):
        return cli_source([], [], text, headers, None, None, connect_timeout)
    if text.startswith("stdio:"):
        argv = shlex.split(text[len("stdio:") :])
        if not argv:
            _fail([Problem(text, "stdio: needs a command")])
        return cli_source([], argv, None, [], None, None, connect_timeout)
    return cli_source([text], [], None, [], None, None, connect_timeout)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point. Everything after the first `--` is a server command (kept out of click's hands)."""
    args = list(sys.argv[1:] if argv is None else argv)
    console.verbosity = Verbosity.NORMAL  # until --quiet or --verbose says otherwise
    command: tuple[str, ...] = ()
    if "--" in args:
        i = args.index("--")
        args, command = args[:i], tuple(args[i + 1 :])
    cli.main(args=args, prog_name="mcpgen", obj={"command": command})


def run_and_exit(argv: Sequence[str] | None = None) -> NoReturn:
    """`main` as a whole process. A failed run exits at once, once stdout, stderr and the logs are
    flushed: tearing down every imported module takes the interpreter a few tenths of a second
    (more on a busy machine), which a timeout or a Ctrl-C should not add."""
    try:
        main(argv)
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, int) and code != 0:
            import logging
            import os

            sys.stdout.flush()
            sys.stderr.flush()
            logging.shutdown()
            os._exit(code)
        raise
    sys.exit(0)


if __name__ == "__main__":
    run_and_exit()
