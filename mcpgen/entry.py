"""The `mcpgen` command. Before anything heavy is imported, a command that generates code starts
its datamodel-code-generator worker (see models/dcg.py): it then loads alongside the CLI itself."""

from __future__ import annotations

import sys

_GENERATING = frozenset({"client", "server", "generate"})


def main() -> None:
    args = sys.argv[1:]
    command = next((a for a in args if not a.startswith("-")), "")
    if command in _GENERATING and "--help" not in args:
        from .models import dcg

        dcg.start()
    from .cli import run_and_exit

    run_and_exit()
