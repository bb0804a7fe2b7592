"""The `mcpgen` command. Before anything heavy is imported, `generate --check` on an unchanged
project is settled by the manifests alone (quick_check.py); a command that generates code starts
its datamodel-code-generator worker (see models/dcg.py): it then loads alongside the CLI itself."""

from __future__ import annotations

import sys

_GENERATING = frozenset({"client", "server", "generate"})


def main() -> None:
    try:
        _run(sys.argv[1:])
    except KeyboardInterrupt:
        # Ctrl-C before the CLI took over (in an import, say) ends as it does inside a command.
        sys.stderr.write("mcpgen: error: interrupted\n")
        sys.exit(130)


def _run(args: list[str]) -> None:
    if args[:1] == ["generate"] and "--check" in args:
        from .quick_check import quick_check

        settled = quick_check(args)
        if settled is not None:
            sys.exit(settled)
    command = next((a for a in args if not a.startswith("-")), "")
    if command in _GENERATING and "--help" not in args:
        from .models import dcg

        dcg.start()
    from .cli import run_and_exit

    run_and_exit()
