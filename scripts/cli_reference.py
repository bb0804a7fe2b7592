"""Writes docs/reference/cli.md from the click commands themselves: each command's --help text.

Run it after changing a command, an option or a help text; tests/docs/test_site.py fails while
the page differs from what this script writes (`--check`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mcpgen.cli import cli

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "cli.md"
HEADER = """# Command line

Every command and option of `mcpgen`, as `mcpgen COMMAND --help` prints them. This page is
generated from the commands by `scripts/cli_reference.py`; a test keeps it current.
"""


def _commands(group: click.Group, ctx: click.Context, prefix: str) -> list[tuple[str, click.Context]]:
    """(full name, context) of every command below `group`, depth first, in name order."""
    found = []
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = click.Context(command, info_name=name, parent=ctx, terminal_width=100, max_content_width=100)
        found.append((f"{prefix} {name}", sub))
        if isinstance(command, click.Group):
            found += _commands(command, sub, f"{prefix} {name}")
    return found


def render() -> str:
    root = click.Context(cli, info_name="mcpgen", terminal_width=100, max_content_width=100)
    parts = [HEADER, "## mcpgen\n", "```text\n" + cli.get_help(root) + "\n```\n"]
    for name, ctx in _commands(cli, root, "mcpgen"):
        parts += [f"## {name}\n", "```text\n" + ctx.command.get_help(ctx) + "\n```\n"]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if argv == ["--check"]:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is stale: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
