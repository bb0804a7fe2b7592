"""The formatter over a generated package in memory (render/files.py's FileSet).

Nothing touches disk on failure: every file is generated and formatted in memory first;
`emit.py` then writes, checks or diffs it. The default formatter is the `ruff` binary (black's
style, in a fraction of black's time), run once over a private temporary copy of the files: the
output folder is not touched before everything is formatted. `--formatter black` hands the same
files to black instead (black_format.py), for teams whose CI runs `black --check` over them.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from ..catalog.model import Problem
from ..options import Formatter
from ..render.files import FileSet

FORMATTER = Formatter.RUFF.value  # how problems of the ruff run are placed

# The style every generated file has (black's, as black's Mode had it): the user's own ruff
# configuration never applies (--isolated), nor does ruff's cache (--no-cache: it would be
# written where ruff runs).
RUFF_FORMAT_ARGS = (
    "format",
    "--isolated",
    "--no-cache",
    "--line-length=100",
    "--target-version=py310",
    "--config=format.line-ending='lf'",
)

# ruff formats hundreds of files in well under a second; a run this long is a hung binary.
FORMAT_TIMEOUT_S = 120.0


def ruff_binary() -> str | Problem:
    """The path of the ruff executable that the installed `ruff` package ships, or why not."""
    try:
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]  # (no type hints shipped)
    except ImportError:
        return Problem(FORMATTER, "the ruff formatter is not installed (pip install mcpgen installs it)")
    try:
        return str(find_ruff_bin())
    except FileNotFoundError:
        return Problem(FORMATTER, "the ruff package is installed without its ruff executable")


def _ruff_env() -> dict[str, str]:
    """This process's environment without RUFF_* settings (a cache dir, an output format...)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RUFF_")}


# ruff names a file it cannot parse on stderr: "error: Failed to parse 00003.py:1:5: Expected ...".
_UNPARSED = re.compile(r"(\d{5,})\.py:(.*)")


def format_files(fs: FileSet, formatter: Formatter = Formatter.RUFF) -> list[Problem]:
    """Format every generated .py file (not the copied runtime's); a file the formatter cannot
    parse is a generator bug, reported."""
    paths = [p for p in sorted(fs.files) if p.endswith(".py") and p not in fs.verbatim]
    if not paths:
        return []
    if formatter is Formatter.BLACK:
        from .black_format import black_files

        return black_files(fs, paths)
    return _ruff_files(fs, paths)


def _ruff_files(fs: FileSet, paths: list[str]) -> list[Problem]:
    """The files go to a private temporary folder under numbered names (no generated path reaches
    the file system, and ruff's default exclusions such as `build/` or `dist/` cannot apply);
    one ruff process formats them all, on every core."""
    ruff = ruff_binary()
    if isinstance(ruff, Problem):
        return [ruff]
    with tempfile.TemporaryDirectory(prefix="mcpgen-format-") as tmp:
        folder = Path(tmp)
        names = [f"{i:05d}.py" for i in range(len(paths))]
        for name, path in zip(names, paths, strict=True):
            (folder / name).write_bytes(fs.files[path].encode("utf-8"))
        try:
            done = subprocess.run(
                [ruff, *RUFF_FORMAT_ARGS, "--", *names],
                cwd=folder,
                env=_ruff_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=FORMAT_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return [Problem(FORMATTER, f"ruff format did not finish in {FORMAT_TIMEOUT_S:g} s")]
        except OSError as exc:
            return [Problem(FORMATTER, f"cannot run {ruff}: {exc.strerror or exc}")]
        if done.returncode != 0:
            return _complaints(done.stderr.decode("utf-8", "replace"), paths, done.returncode)
        for name, path in zip(names, paths, strict=True):
            fs.files[path] = (folder / name).read_bytes().decode("utf-8")
    return []


def _complaints(stderr: str, paths: list[str], returncode: int) -> list[Problem]:
    """One problem per file ruff could not format, else one for the run (its first line)."""
    problems: list[Problem] = []
    for line in stderr.splitlines():
        found = _UNPARSED.search(line)
        if found is not None and int(found.group(1)) < len(paths):
            reason = found.group(2).strip()
            problems.append(Problem(paths[int(found.group(1))], f"generated code does not format: {reason}"))
    if problems:
        return problems
    first = next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit status {returncode}")
    return [Problem(FORMATTER, f"ruff format failed: {first}")]
