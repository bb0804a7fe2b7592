"""The commands that read a catalog and generate no code: `inspect` (a table), `snapshot` (stable
JSON), `diff` (breaking and security changes between two) and `lint` (LLM providers' rules)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..catalog.model import Problem
from ..console import console, echo
from .common import EXIT_DIFFERENT, LiveSourceCommand, fail, load_source, with_output_options, write_file
from .source_options import TextSources, source_options, text_source_options

if TYPE_CHECKING:
    from ..config import SourceSpec


@click.command("inspect", cls=LiveSourceCommand)
@with_output_options
@source_options("source")
def inspect_cmd(source: SourceSpec) -> None:
    """Print the tools, prompts and resources of SOURCE (file), --url, --config/--server, or -- COMMAND ARGS...

    \b
    Examples:
      mcpgen inspect schemas/weather.yaml
      mcpgen inspect -- npx -y @modelcontextprotocol/server-everything
      mcpgen inspect --url http://127.0.0.1:8000/mcp
    """
    from ..render.table import format_catalog

    catalog = load_source(source)
    echo(format_catalog(catalog, source.describe()), nl=False)


@click.command("snapshot", cls=LiveSourceCommand)
@with_output_options
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), help="JSON file to write.")
@source_options("source")
def snapshot_cmd(source: SourceSpec, output: str) -> None:
    """Save the whole catalog of SOURCE (usually a live server) as stable, sorted JSON.

    SOURCE is a file, --url, --config/--server, or -- COMMAND ARGS... (a stdio server to start).
    Targets can then point at the file: builds need no live server, and the file diffs well.

    \b
    Examples:
      mcpgen snapshot -o schemas/weather.snapshot.json -- python -m weather_server
      mcpgen snapshot -o schemas/remote.snapshot.json --url http://127.0.0.1:8000/mcp
    """
    from ..catalog.snapshot import dumps_snapshot
    from ..wording import counted

    catalog = load_source(source)
    try:
        write_file(Path(output), dumps_snapshot(catalog))
    except OSError as exc:
        fail([Problem(output, f"cannot write: {exc.strerror or exc}")])
    console.info(
        f"wrote {output} ({counted(len(catalog.tools), 'tool')}, {counted(len(catalog.prompts), 'prompt')}, "
        f"{counted(len(catalog.resources), 'resource')}, "
        f"{counted(len(catalog.resource_templates), 'resource template')})"
    )


@click.command("diff")
@with_output_options
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@text_source_options
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(["breaking", "security", "any"]),
    help="Which changes exit 1 (repeatable): breaking (the default), security, or any change.",
)
def diff_cmd(old: str, new: str, as_json: bool, sources: TextSources, fail_on: tuple[str, ...]) -> None:
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

    from ..catalog.diff import diff_tools, fails, format_table, summary

    catalogs = [load_source(sources.spec(s)) for s in (old, new)]
    changes = diff_tools([t.raw for t in catalogs[0].tools], [t.raw for t in catalogs[1].tools])
    if as_json:
        echo(json.dumps(summary(changes), indent=2, sort_keys=True))
    else:
        echo(format_table(changes), nl=False)
    sys.exit(EXIT_DIFFERENT if fails(changes, fail_on or ("breaking",)) else 0)


@click.command("lint")
@with_output_options
@click.argument("source")
@click.option(
    "--provider",
    "providers",
    multiple=True,
    type=click.Choice(["openai", "anthropic", "gemini", "all"]),
    help="Whose tool calling to check against (repeatable; default all).",
)
@click.option(
    "--gemini-field",
    type=click.Choice(["parametersJsonSchema", "parameters"]),
    default="parametersJsonSchema",
    show_default=True,
    help="The Gemini field to check for (tool_definitions('gemini', gemini_field=...)).",
)
@click.option("--fix", "fix_path", type=click.Path(dir_okay=False), default=None, help="Write a portable tools JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@text_source_options
def lint_cmd(
    source: str,
    providers: tuple[str, ...],
    gemini_field: str,
    fix_path: str | None,
    as_json: bool,
    sources: TextSources,
) -> None:
    """Check the definitions tool_definitions() sends each LLM API; exit 1 on any error.

    SOURCE is a schema file or snapshot, an http(s):// URL or "stdio:COMMAND ARGS...". An error
    is a tool the API would refuse (tool_definitions leaves it out); warnings (a renamed tool,
    a schema sent without OpenAI's strict mode) print but exit 0. --fix writes the tools with
    schemas rewritten where the rewrite accepts exactly the same instances, and says what it refused.

    \b
    Examples:
      mcpgen lint schemas/
      mcpgen lint --provider gemini "stdio:python -m weather_server"
      mcpgen lint schemas/ --fix portable.json
    """
    import json

    from ..catalog.portability import PROVIDERS, NotPortable, lint_tools, portable
    from ..wording import counted

    chosen = PROVIDERS if not providers or "all" in providers else tuple(p for p in PROVIDERS if p in providers)
    tools = [t.raw for t in load_source(sources.spec(source)).tools]
    if fix_path is not None:
        fixed: list[Any] = []
        for tool in tools:
            try:
                fixed.append({**tool, "inputSchema": portable(tool.get("inputSchema"))})
            except NotPortable as e:
                echo(f"mcpgen: not fixed: {str(tool.get('name'))[:80]}: {e}", err=True)
                fixed.append(tool)
        write_file(Path(fix_path), json.dumps({"tools": fixed}, indent=2, ensure_ascii=False) + "\n")
        tools = fixed  # the findings below are the fixed tools' own
    findings = lint_tools(tools, chosen, gemini_field)
    if as_json:
        doc = [
            {"tool": f.tool, "pointer": f.pointer, "rule": f.rule.id, "provider": f.rule.provider,
             "field": f.rule.field, "severity": f.rule.severity, "detail": f.detail, "fix": f.rule.fix,
             "source": f.rule.source}
            for f in findings
        ]  # fmt: skip
        echo(json.dumps(doc, indent=2))
    else:
        for f in findings:
            echo(f.line())
        errors = sum(f.rule.severity == "error" for f in findings)
        echo(
            f"{counted(len(findings), 'finding')}: {counted(errors, 'error')}, "
            f"{counted(len(findings) - errors, 'warning')}"
        )
    sys.exit(EXIT_DIFFERENT if any(f.rule.severity == "error" for f in findings) else 0)


COMMANDS = (inspect_cmd, snapshot_cmd, diff_cmd, lint_cmd)
