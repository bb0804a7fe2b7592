"""Where a command's catalog comes from, declared once.

`@source_options(...)` gives a command the SOURCE argument (or SOURCES...), `--url`, `--header`,
`--config`, `--server`, `--connect-timeout` and the server command after `--`, checks that they
name exactly one source, and hands the command one frozen `SourceSpec` as its `source` keyword.
`@text_source_options` is the form of `diff` and `lint`, whose sources are words (a path, a URL
or `stdio:COMMAND`): it hands them a `TextSources` that turns each word into a SourceSpec.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from ..catalog.model import Problem
from .common import F, converting, fail

if TYPE_CHECKING:
    from ..config import SourceSpec


CONNECT_TIMEOUT = 30.0
# The help of each source flag; a command may say more about one (`record`'s --header is never recorded).
HELP = {
    "url": "A Streamable HTTP (or HTTP+SSE) server.",
    "header": "HTTP header for --url (repeatable).",
    "config": "mcpServers JSON file (with --server).",
    "server": "Server name inside --config (`client` takes it repeated, or none: a package for many servers).",
    "connect-timeout": "Seconds a live server gets to answer.",
    "strict-lists": "Exit 2 when a live server fails its prompts or resources list (default: warn, generate the rest).",
}


def _header(help: str) -> Callable[[F], F]:
    return click.option("--header", "headers", multiple=True, metavar="NAME:VALUE", help=help)


def _strict_lists() -> Callable[[F], F]:
    return click.option("--strict-lists", "strict_lists", is_flag=True, help=HELP["strict-lists"])


def _connect_timeout(help: str) -> Callable[[F], F]:
    return click.option("--connect-timeout", type=float, default=CONNECT_TIMEOUT, show_default=True, help=help)


def source_options(
    argument: Literal["source", "sources"] | None = "source",
    *,
    many: bool = False,
    optional: bool = False,
    config: bool = True,
    help: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """Add the source parameters to a click command; it receives `source=SourceSpec`.

    `argument`: a SOURCE (one file), SOURCES... (files and folders) or no positional source;
    `many`: --config may name several servers, or none (a package for many servers);
    `optional`: no source at all is allowed (the command receives `source=None`);
    `config`: the command takes --config and --server; `help`: other help for some flags.
    """
    said = {**HELP, **(help or {})}
    params: list[Callable[[Any], Any]] = []
    if argument == "source":
        params.append(click.argument("source", required=False))
    elif argument == "sources":
        params.append(click.argument("sources", nargs=-1))
    params += [
        click.option("--url", "url", type=str, default=None, help=said["url"]),
        _header(said["header"]),
    ]
    if config:
        params += [
            click.option("--config", "config", type=str, default=None, help=said["config"]),
            click.option("--server", "server", type=str, multiple=True, help=said["server"]),
        ]
    params += [_connect_timeout(said["connect-timeout"]), _strict_lists()]

    def convert(kwargs: dict[str, Any]) -> dict[str, Any]:
        given = kwargs.pop(argument) if argument else None
        files = (given,) if isinstance(given, str) else tuple(given or ())
        url, headers = kwargs.pop("url"), kwargs.pop("headers")
        config_file, servers = kwargs.pop("config", None), kwargs.pop("server", ())
        timeout, strict = kwargs.pop("connect_timeout"), kwargs.pop("strict_lists")
        command = tuple((click.get_current_context().obj or {}).get("command", ()))
        spec: SourceSpec | None = None
        if not optional or files or command or url or config_file:
            spec = source_spec(
                files, command, url, headers, config_file, servers, timeout, many=many, strict_lists=strict
            )
        return {**kwargs, "source": spec}

    return converting(params, convert)


def source_spec(
    files: Sequence[str],
    command: Sequence[str],
    url: str | None,
    headers: Sequence[str],
    config: str | None,
    server: Sequence[str],
    connect_timeout: float,
    *,
    many: bool = False,
    strict_lists: bool = False,
) -> SourceSpec:
    """Exactly one of: file(s), --url, --config F --server N, or a command after `--`; else exit 2.

    `many`: the command also takes --config without --server (every server) or with several."""
    from ..config import SourceSpec

    server = tuple(server)
    given = sum(bool(x) for x in (files, command, url, config))
    if given != 1:
        fail(
            [
                Problem(
                    "usage",
                    "give exactly one source: FILE, --url URL, --config FILE --server NAME, or -- COMMAND ARGS...",
                )
            ]
        )
    if server and not config:
        fail([Problem("usage", "--server needs --config FILE")])
    if config and len(server) != 1 and not many:
        fail([Problem("usage", "--config needs exactly one --server NAME")])
    pairs: list[tuple[str, str]] = []
    for h in headers:
        key, sep, value = h.partition(":")
        if not sep or not key.strip():
            fail([Problem("--header", f"{h!r} is not NAME:VALUE")])
        pairs.append((key.strip(), value.strip()))
    if pairs and not url:
        fail([Problem("--header", "headers only apply to --url")])
    return SourceSpec(
        files=tuple(Path(f) for f in files),
        url=url,
        headers=tuple(pairs),
        command=tuple(command),
        config=Path(config) if config else None,
        server=server[0] if len(server) == 1 else None,
        servers=server if len(server) != 1 else (),
        connect_timeout=connect_timeout,
        strict_lists=strict_lists,
    )


@dataclass(frozen=True)
class TextSources:
    """`diff` and `lint`'s sources: each a schema file or snapshot, an http(s):// URL of a live
    server (the --header flags go to it) or "stdio:COMMAND ARGS..." (a stdio server to start)."""

    headers: tuple[str, ...]
    connect_timeout: float
    strict_lists: bool = False

    def spec(self, text: str) -> SourceSpec:
        strict = self.strict_lists
        if text.startswith(("http://", "https://")):
            return source_spec([], [], text, self.headers, None, (), self.connect_timeout, strict_lists=strict)
        if text.startswith("stdio:"):
            argv = shlex.split(text[len("stdio:") :])
            if not argv:
                fail([Problem(text, "stdio: needs a command")])
            return source_spec([], argv, None, [], None, (), self.connect_timeout, strict_lists=strict)
        return source_spec([text], [], None, [], None, (), self.connect_timeout)


def _text_sources(kwargs: dict[str, Any]) -> dict[str, Any]:
    sources = TextSources(tuple(kwargs.pop("headers")), kwargs.pop("connect_timeout"), kwargs.pop("strict_lists"))
    return {**kwargs, "sources": sources}


# `diff` and `lint`: --header, --connect-timeout and --strict-lists, handed to the command as
# `sources=TextSources`.
text_source_options = converting(
    [_header("HTTP header for URL sources (repeatable)."), _connect_timeout(HELP["connect-timeout"]), _strict_lists()],
    _text_sources,
)
