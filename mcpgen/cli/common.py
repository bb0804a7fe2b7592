"""What every command of the CLI shares: exit codes, errors and warnings as one line each,
`-q`/`-v`, reading a source, and writing one file safely."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ..catalog.model import Problem
from ..console import Verbosity, console, echo

if TYPE_CHECKING:
    from ..catalog.model import Catalog
    from ..config import SourceSpec

EXIT_DIFFERENT = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def fail(problems: Sequence[Problem]) -> NoReturn:
    console.done()
    for p in problems:
        echo(f"mcpgen: error: {p}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def warn(problems: Sequence[Problem]) -> None:
    for p in problems:
        console.info(f"mcpgen: warning: {p}")


F = TypeVar("F", bound=Callable[..., Any])  # a click command's function, as decorators pass it on


def options_decorator(options: list[Any]) -> Callable[[F], F]:
    """One decorator applying a list of click options, in the order listed."""

    def apply(f: F) -> F:
        for opt in reversed(options):
            f = opt(f)
        return f

    return apply


def converting(params: list[Any], convert: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[F], F]:
    """A decorator adding `params` to a click command; `convert` turns the keywords click passes
    into the ones the command takes (it pops the values of `params` and adds what it makes of them)."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def converted(*args: Any, **kwargs: Any) -> Any:
            return f(*args, **convert(kwargs))

        # The command's own parameters (declared below this decorator) stay the command's.
        converted.__click_params__ = list(getattr(f, "__click_params__", []))  # type: ignore[attr-defined]
        return options_decorator(params)(converted)  # type: ignore[return-value]

    return decorate


def _set_verbosity(level: Verbosity) -> Callable[[click.Context, click.Parameter, bool], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if value:
            console.verbosity = level

    return callback


# Every command takes these (after its name: `mcpgen client ... --quiet`).
with_output_options = options_decorator(
    [
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
)


class LiveSourceCommand(click.Command):
    """A command that also takes a server to start after `--`: its usage line says so."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- COMMAND [ARGS]...]"]


def load_source(spec: SourceSpec) -> Catalog:
    """The catalog of `spec`, or exit 2 naming every problem."""
    from ..pipeline import load_catalog

    console.stage("reading", spec.describe())
    try:
        cat, problems = load_catalog(spec)
    finally:
        console.done()
    if problems or cat is None:
        fail(problems or [Problem(spec.describe(), "no catalog")])
    warn(cat.list_warnings())
    return cat


def write_file(path: Path, text: str) -> None:
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
