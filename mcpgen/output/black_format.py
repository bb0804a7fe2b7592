"""`--formatter black`: black itself over the generated files, in this process.

Ruff's formatter is black's style and agrees with black on nearly all code; a team whose CI runs
`black --check` over the repository (generated code included) still fails wherever the two
differ, so it may have black write the files. The mode is exactly `black --line-length 100`
with nothing else set: what that command checks, whatever the team's own black configuration
says about its other code. black is pinned exactly (the `black` extra), like ruff, because
another release may format differently.
"""

from __future__ import annotations

from ..catalog.model import Problem
from ..options import Formatter
from ..render.files import FileSet

FORMATTER = Formatter.BLACK.value
LINE_LENGTH = 100  # mcpgen's line length, as ruff's run has it


def black_files(fs: FileSet, paths: list[str]) -> list[Problem]:
    """Format `paths` of `fs` with black; every file black cannot parse is reported, and a
    formatting black itself would change on a second pass is refused (--check must be stable)."""
    try:
        import black
        from black.parsing import InvalidInput
    except ImportError:
        return [Problem(FORMATTER, "the black formatter is not installed (pip install 'mcpgen[black]')")]
    mode = black.Mode(line_length=LINE_LENGTH)
    problems: list[Problem] = []
    formatted: dict[str, str] = {}
    for path in paths:
        try:
            once = black.format_str(fs.files[path], mode=mode)
            if black.format_str(once, mode=mode) != once:
                problems.append(Problem(path, "black formats this generated file differently on a second pass"))
                continue
        except InvalidInput as exc:
            first = str(exc).splitlines()[0] if str(exc) else "cannot parse"
            problems.append(Problem(path, f"generated code does not format: {first}"))
            continue
        formatted[path] = once
    if problems:
        return problems
    fs.files.update(formatted)
    return []
