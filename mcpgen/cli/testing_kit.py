"""The testing kit's commands: `mock` (a fake server from a catalog, or a recorded session served
back) and `record` (a proxy in front of the real server, writing that session)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..catalog.model import Problem
from .common import LiveSourceCommand, fail, load_source, with_output_options
from .source_options import source_options

if TYPE_CHECKING:
    from ..catalog.model import Catalog
    from ..config import SourceSpec

# record serves the real server to one client: its source flags say so.
RECORD_HELP = {
    "url": "Record a Streamable HTTP server instead of a command.",
    "header": "HTTP header for --url (never recorded).",
    "connect-timeout": "Seconds the server gets.",
}


@click.command("mock", cls=LiveSourceCommand)
@with_output_options
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
@source_options("source", optional=True)
def mock_cmd(
    source: SourceSpec | None,
    seed: int,
    overrides_file: str | None,
    cassette: str | None,
    http: bool,
    host: str,
    port: int,
    http_path: str,
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
    from ..testing.serve import MockRequest, serve_mock

    catalog: Catalog | None = None
    if source is not None:
        catalog = load_source(source)
    elif cassette is None:
        fail([Problem("usage", "give a SOURCE (or --replay CASSETTE)")])
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
        fail(problems)


@click.command("record", cls=LiveSourceCommand)
@with_output_options
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), help="Cassette to write.")
@click.option(
    "--redact",
    "redact",
    multiple=True,
    metavar="FIELD",
    help="Field whose values never reach the cassette (repeatable).",
)
@source_options(None, config=False, help=RECORD_HELP)
def record_cmd(source: SourceSpec, output: str, redact: tuple[str, ...]) -> None:
    """Serve stdio as a proxy to the real server (-- COMMAND ARGS... or --url), writing the
    session to a cassette that `mcpgen mock --replay` serves back.

    \b
    Examples:
      mcpgen record -o session.jsonl -- npx -y @modelcontextprotocol/server-everything
      mcpgen record -o session.jsonl --url http://127.0.0.1:8000/mcp --header "Authorization: Bearer $TOKEN"
      mcpgen record -o session.jsonl --redact api_key -- python -m weather_server
    """
    from ..testing.record import RecordRequest, run_record

    problems = run_record(
        RecordRequest(
            output=Path(output),
            command=source.command,
            url=source.url,
            headers=source.headers,
            redact_fields=redact,
            connect_timeout=source.connect_timeout,
            strict_lists=source.strict_lists,
        )
    )
    if problems:
        fail(problems)


COMMANDS = (mock_cmd, record_cmd)
