"""Command line: parses flags, calls the stages, maps problems to exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from . import __version__
from .catalog.model import Catalog, Problem
from .config import SourceSpec, Target, package_for
from .console import Verbosity, console
from .options import ClientOptions, DocsOptions, GeneratorOptions, Layout, Mode, Runtime, ServerOptions
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
    server: str | Sequence[str] | None,
    connect_timeout: float,
    *,
    many: bool = False,
) -> SourceSpec:
    """Exactly one of: file(s), --url, --config F --server N, or a command after `--`.

    `many`: the command also takes --config without --server (every server) or with several."""
    server = (server,) if isinstance(server, str) else tuple(server or ())
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
    if server and not config:
        _fail([Problem("usage", "--server needs --config FILE")])
    if config and len(server) != 1 and not many:
        _fail([Problem("usage", "--config needs exactly one --server NAME")])
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
        server=server[0] if len(server) == 1 else None,
        servers=tuple(server) if len(server) != 1 else (),
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
    click.option(
        "--server",
        "server",
        type=str,
        multiple=True,
        help="Server name inside --config (`client` takes it repeated, or none: a package for many servers).",
    ),
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


@dataclass(frozen=True)
class _SourceArgs:
    """The options every generating command shares: where the source is, and how to run."""

    url: str | None
    headers: tuple[str, ...]
    config: str | None
    server: tuple[str, ...]
    connect_timeout: float
    check: bool
    show_diff: bool
    force: bool


def _generate_one(
    ctx: click.Context,
    files: Sequence[str],
    output: str,
    generator: GeneratorOptions,
    args: _SourceArgs,
    *,
    name: str | None = None,
    templates: str | None,
    skip_invalid: bool,
    many: bool = False,
) -> NoReturn:
    """`mcpgen client|server|docs`: one Target from the command line, through the pipeline."""
    spec = cli_source(
        files,
        ctx.obj.get("command", ()),
        args.url,
        args.headers,
        args.config,
        args.server,
        args.connect_timeout,
        many=many,
    )
    out = Path(output)
    package = ""  # a docs folder holds no Python
    if not isinstance(generator, DocsOptions):
        package, problems = package_for(out, name, "--name")
        if problems:
            _fail(problems)
    target = Target(
        name="",
        source=spec,
        output=out,
        package=package,
        generator=generator,
        templates=Path(templates) if templates else None,
        force=args.force,
        skip_invalid=skip_invalid,
        display=output,
    )
    sys.exit(_run([target], _mode(args.check, args.show_diff)))


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
@click.option(
    "--layout",
    type=click.Choice([layout.value for layout in Layout]),
    default=Layout.FLAT.value,
    show_default=True,
    help="flat: one client.py; code-mode: also one module per tool, a searchable index and a SKILL.md for agents.",
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
    layout: str,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: tuple[str, ...],
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
    _generate_one(
        ctx,
        [source] if source else [],
        output,
        ClientOptions(runtime=Runtime(runtime), sync=sync, layout=Layout(layout)),
        _SourceArgs(url, headers, config, server, connect_timeout, check, show_diff, force),
        name=name,
        templates=templates,
        skip_invalid=skip_invalid,
        many=True,
    )


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
    server: tuple[str, ...],
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
    _generate_one(
        ctx,
        sources,
        output,
        ServerOptions(runtime=Runtime(runtime), add_missing=add_missing),
        _SourceArgs(url, headers, config, server, connect_timeout, check, show_diff, force),
        name=name,
        templates=templates,
        skip_invalid=skip_invalid,
    )


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
    server: tuple[str, ...],
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
    _generate_one(
        ctx,
        sources,
        output,
        DocsOptions(),
        _SourceArgs(url, headers, config, server, connect_timeout, check, show_diff, force),
        templates=templates,
        skip_invalid=skip_invalid,
    )


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
    server: tuple[str, ...],
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
    server: tuple[str, ...],
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
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(["breaking", "security", "any"]),
    help="Which changes exit 1 (repeatable): breaking (the default), security, or any change.",
)
def diff_cmd(
    old: str, new: str, as_json: bool, headers: tuple[str, ...], connect_timeout: float, fail_on: tuple[str, ...]
) -> None:
    """Classify every change from OLD to NEW as breaking or compatible, and flag security changes;
    exit 1 if any change is in a --fail-on class (default: breaking).

    OLD and NEW are each a schema file or snapshot, an http(s):// URL of a live server,
    or "stdio:COMMAND ARGS..." (a stdio server to start).

    \b
    Examples:
      mcpgen diff schemas/old.json schemas/new.json
      mcpgen diff schemas/weather.snapshot.json "stdio:python -m weather_server"
      mcpgen diff --json old.snapshot.json http://127.0.0.1:8000/mcp
    """
    import json

    from .catalog.diff import diff_tools, fails, format_table, summary

    catalogs = [load_source(_diff_source(s, headers, connect_timeout)) for s in (old, new)]
    changes = diff_tools([t.raw for t in catalogs[0].tools], [t.raw for t in catalogs[1].tools])
    if as_json:
        click.echo(json.dumps(summary(changes), indent=2, sort_keys=True))
    else:
        click.echo(format_table(changes), nl=False)
    sys.exit(EXIT_DIFFERENT if fails(changes, fail_on or ("breaking",)) else 0)


@cli.command("lint")
@_with_output_options
@click.argument("source")
@click.option(
    "--provider",
    "providers",
    multiple=True,
    type=click.Choice(["openai", "anthropic", "gemini", "all"]),
    help="Whose tool calling to check against (repeatable; default all).",
)
@click.option("--fix", "fix_path", type=click.Path(dir_okay=False), default=None, help="Write a portable tools JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--header", "headers", multiple=True, metavar="NAME:VALUE", help="HTTP header for URL sources (repeatable)."
)
@click.option(
    "--connect-timeout", type=float, default=30.0, show_default=True, help="Seconds a live server gets to answer."
)
def lint_cmd(
    source: str,
    providers: tuple[str, ...],
    fix_path: str | None,
    as_json: bool,
    headers: tuple[str, ...],
    connect_timeout: float,
) -> None:
    """Check tool schemas against what LLM providers' tool calling accepts; exit 1 on any error.

    SOURCE is a schema file or snapshot, an http(s):// URL or "stdio:COMMAND ARGS...". Warnings
    (rules of a provider's optional strict mode) print but exit 0. --fix writes the tools with
    schemas rewritten where the rewrite accepts exactly the same instances, and says what it refused.

    \b
    Examples:
      mcpgen lint schemas/
      mcpgen lint --provider gemini "stdio:python -m weather_server"
      mcpgen lint schemas/ --fix portable.json
    """
    import json

    from .catalog.portability import PROVIDERS, NotPortable, lint_tools, portable

    chosen = PROVIDERS if not providers or "all" in providers else tuple(p for p in PROVIDERS if p in providers)
    tools = [t.raw for t in load_source(_diff_source(source, headers, connect_timeout)).tools]
    if fix_path is not None:
        fixed: list[Any] = []
        for tool in tools:
            try:
                fixed.append({**tool, "inputSchema": portable(tool.get("inputSchema"))})
            except NotPortable as e:
                click.echo(f"mcpgen: not fixed: {str(tool.get('name'))[:80]}: {e}", err=True)
                fixed.append(tool)
        _write_file(Path(fix_path), json.dumps({"tools": fixed}, indent=2, ensure_ascii=False) + "\n")
        tools = fixed  # the findings below are the fixed tools' own
    findings = lint_tools(tools, chosen)
    if as_json:
        doc = [
            {"tool": f.tool, "pointer": f.pointer, "rule": f.rule.id, "provider": f.rule.provider,
             "severity": f.rule.severity, "detail": f.detail, "fix": f.rule.fix, "source": f.rule.source}
            for f in findings
        ]  # fmt: skip
        click.echo(json.dumps(doc, indent=2))
    else:
        for f in findings:
            click.echo(f.line())
        errors = sum(f.rule.severity == "error" for f in findings)
        click.echo(
            f"{counted(len(findings), 'finding')}: {counted(errors, 'error')}, "
            f"{counted(len(findings) - errors, 'warning')}"
        )
    sys.exit(EXIT_DIFFERENT if any(f.rule.severity == "error" for f in findings) else 0)


def _diff_source(text: str, headers: Sequence[str], connect_timeout: float) -> SourceSpec:
    import shlex

    if text.startswith(("http://", "https://")):
        return cli_source([], [], text, headers, None, (), connect_timeout)
    if text.startswith("stdio:"):
        argv = shlex.split(text[len("stdio:") :])
        if not argv:
            _fail([Problem(text, "stdio: needs a command")])
        return cli_source([], argv, None, [], None, (), connect_timeout)
    return cli_source([text], [], None, [], None, (), connect_timeout)


@cli.command("mock", cls=LiveSourceCommand)
@_with_output_options
@click.argument("source", required=False)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same calls: same results.")
@click.option(
    "--overrides",
    "overrides_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="JSON/YAML file: canned results, scripted errors, latency, faults per tool.",
)
@click.option(
    "--replay",
    "cassette",
    type=click.Path(dir_okay=False),
    default=None,
    help="Serve a cassette from `mcpgen record` (SOURCE optional: checked against it when given).",
)
@click.option("--http", "http", is_flag=True, help="Serve Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address.")
@click.option("--port", type=int, default=8000, show_default=True, help="HTTP port.")
@click.option("--path", "http_path", default="/mcp", show_default=True, help="HTTP endpoint path.")
@_with_source_options
@click.pass_context
def mock_cmd(
    ctx: click.Context,
    source: str | None,
    seed: int,
    overrides_file: str | None,
    cassette: str | None,
    http: bool,
    host: str,
    port: int,
    http_path: str,
    url: str | None,
    headers: tuple[str, ...],
    config: str | None,
    server: tuple[str, ...],
    connect_timeout: float,
) -> None:
    """Serve a fake of SOURCE: its tools, prompts and resources verbatim, results drawn from
    each outputSchema (or scripted by --overrides), or a recorded session (--replay).

    \b
    Examples:
      mcpgen mock weather.snapshot.json --seed 1
      mcpgen mock schemas/ --overrides overrides.yaml --http --port 8765
      mcpgen mock --replay session.jsonl
      mcpgen client -o everything_client -- mcpgen mock everything.snapshot.json
    """
    from .testing.serve import MockRequest, serve_mock

    catalog: Catalog | None = None
    if source or url or config or ctx.obj.get("command"):
        spec = cli_source(
            [source] if source else [], ctx.obj.get("command", ()), url, headers, config, server, connect_timeout
        )
        catalog = load_source(spec)
    elif cassette is None:
        _fail([Problem("usage", "give a SOURCE (or --replay CASSETTE)")])
    problems = serve_mock(
        MockRequest(
            catalog=catalog,
            seed=seed,
            overrides=Path(overrides_file) if overrides_file else None,
            cassette=Path(cassette) if cassette else None,
            http=http,
            host=host,
            port=port,
            path=http_path,
        )
    )
    if problems:
        _fail(problems)


@cli.command("record", cls=LiveSourceCommand)
@_with_output_options
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), help="Cassette to write.")
@click.option("--url", "url", type=str, default=None, help="Record a Streamable HTTP server instead of a command.")
@click.option(
    "--header", "headers", multiple=True, metavar="NAME:VALUE", help="HTTP header for --url (never recorded)."
)
@click.option(
    "--redact",
    "redact",
    multiple=True,
    metavar="FIELD",
    help="Field whose values never reach the cassette (repeatable).",
)
@click.option("--connect-timeout", type=float, default=30.0, show_default=True, help="Seconds the server gets.")
@click.pass_context
def record_cmd(
    ctx: click.Context,
    output: str,
    url: str | None,
    headers: tuple[str, ...],
    redact: tuple[str, ...],
    connect_timeout: float,
) -> None:
    """Serve stdio as a proxy to the real server (-- COMMAND ARGS... or --url), writing the
    session to a cassette that `mcpgen mock --replay` serves back.

    \b
    Examples:
      mcpgen record -o session.jsonl -- npx -y @modelcontextprotocol/server-everything
      mcpgen record -o session.jsonl --url http://127.0.0.1:8000/mcp --header "Authorization: Bearer $TOKEN"
      mcpgen record -o session.jsonl --redact api_key -- python -m weather_server
    """
    from .testing.record import RecordRequest, run_record

    spec = cli_source([], ctx.obj.get("command", ()), url, headers, None, None, connect_timeout)
    problems = run_record(
        RecordRequest(
            output=Path(output),
            command=spec.command,
            url=spec.url,
            headers=spec.headers,
            redact_fields=redact,
            connect_timeout=connect_timeout,
        )
    )
    if problems:
        _fail(problems)


from .cli_auth import register as _register_auth  # noqa: E402 (after cli exists)

_register_auth(cli)


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
