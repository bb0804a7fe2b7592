"""The `mcpgen` command line, a module per job: `generating` (client, server, docs, generate),
`catalogs` (inspect, snapshot, diff, lint), `testing_kit` (mock, record), `auth` (login, logout,
auth status); `source_options` declares the source flags once, `common` holds what every
command shares. Problems become `mcpgen: error:` lines and exit code 2 here, nowhere below."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from .. import __version__
from ..console import Verbosity, console, echo, terminal_text
from . import auth, catalogs, generating, testing_kit
from .common import EXIT_BAD_INPUT, EXIT_INTERRUPTED

__all__ = ["cli", "main", "run_and_exit"]


class McpgenGroup(click.Group):
    """The command group. On failure stderr holds only `mcpgen: error:` lines: Ctrl-C and an
    unexpected exception each become one such line, not a traceback (MCPGEN_DEBUG=1 keeps it)."""

    def invoke(self, ctx: click.Context) -> Any:
        import os

        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            echo("mcpgen: error: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.exit(_stdout_gone())
        except click.exceptions.ClickException as exc:
            # click prints it itself: the same sanitiser as echo (`message` is Final in its stubs).
            object.__setattr__(exc, "message", terminal_text(exc.message))
            raise
        except (click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            if os.environ.get("MCPGEN_DEBUG"):
                raise
            what = " ".join(str(exc).split())[:300]
            echo(f"mcpgen: error: internal error: {type(exc).__name__}: {what} (MCPGEN_DEBUG=1 shows where)", err=True)
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


for _command in (*generating.COMMANDS, *catalogs.COMMANDS, *testing_kit.COMMANDS, *auth.COMMANDS):
    cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point. Everything after the first `--` is a server command (kept out of click's hands)."""
    args = list(sys.argv[1:] if argv is None else argv)
    console.verbosity = Verbosity.NORMAL  # until --quiet or --verbose says otherwise
    command: tuple[str, ...] = ()
    if "--" in args:
        i = args.index("--")
        args, command = args[:i], tuple(args[i + 1 :])
    cli.main(args=args, prog_name="mcpgen", obj={"command": command})


# 128 + SIGPIPE, as a shell reports a command whose reader went away (`mcpgen lint ... | head`).
EXIT_BROKEN_PIPE = 141


def _stdout_gone() -> int:
    """The reader of stdout went away: nothing more can be said there, and no traceback is
    due. stdout is pointed at /dev/null, so the interpreter's last flush cannot fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def _flush() -> int | None:
    """Flush stdout; EXIT_BROKEN_PIPE when its reader has gone (else None)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_gone()
    return None


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

            gone = _flush()
            sys.stderr.flush()
            logging.shutdown()
            os._exit(gone or code)
        raise
    sys.exit(_flush() or 0)
