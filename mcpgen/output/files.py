"""The generated package in memory (a FileSet), and black over it.

Nothing touches disk on failure: every file is generated and formatted in memory first;
`write.py` writes, `compare.py` checks and diffs, `ownership.py` says what mcpgen may touch.
Black runs in this process, or in a pool of forked processes for a big package.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..catalog.model import Problem


@dataclass
class FileSet:
    files: dict[str, str] = field(default_factory=dict)  # posix relative path -> text
    verbatim: set[str] = field(default_factory=set)  # paths black must not touch (copied runtime)
    warnings: list[Problem] = field(default_factory=list)
    # (wire name, Python name) of every name not given by the plain rule (plan/renames.py).
    renames: list[tuple[str, str]] = field(default_factory=list)

    def add(self, path: str, text: str, *, format: bool = True) -> None:
        self.files[path] = text
        if not format:
            self.verbatim.add(path)


# Below this many characters in all, one process formats everything faster than two.
_PARALLEL_FROM = 100_000


def _black(text: str) -> str:
    import black  # heavy import; only the formatting stage needs it
    from black.mode import Mode, TargetVersion

    mode = Mode(target_versions={TargetVersion.PY310}, line_length=100)
    # black.format_str formats twice whenever the input was not already black's output (a
    # workaround for rare trailing-comma cases), so it costs two passes on every generated file.
    # One pass is half of generation time; the golden tests check its output is black-stable.
    once = getattr(black, "_format_str_once", None)
    if once is not None:
        return str(once(text, mode=mode))
    return black.format_str(text, mode=mode)


def warm_formatter() -> None:
    """Import black now (a tenth of a second), while something else keeps the other core busy."""
    import black  # noqa: F401
    import black.mode  # noqa: F401


def _format_one(text: str) -> tuple[str | None, str]:
    """(formatted text, "") or (None, the first line of black's complaint)."""
    try:
        return _black(text), ""
    except Exception as exc:  # black raises InvalidInput and friends
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def format_files(fs: FileSet) -> list[Problem]:
    """Run black over every .py file; a file black cannot parse is a generator bug, reported.

    A big package's files are formatted by a pool of forked processes, one file each:
    black is most of a large generation's time, and the output is the same either way.
    """
    paths = [p for p in sorted(fs.files) if p.endswith(".py") and p not in fs.verbatim]
    texts = [fs.files[p] for p in paths]
    workers = min(os.cpu_count() or 1, len(paths))
    if workers > 1 and sum(map(len, texts)) >= _PARALLEL_FROM and "fork" in multiprocessing.get_all_start_methods():
        import black  # noqa: F401  (imported once here, inherited by every forked worker)

        # Largest first, so the long files start at once.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        from ..models.dcg import die_with_parent

        # Each worker dies with this process, however it ends (a SIGKILL included).
        with ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        ) as pool:
            done = dict(zip(order, pool.map(_format_one, [texts[i] for i in order]), strict=True))
        results = [done[i] for i in range(len(texts))]
    else:
        results = [_format_one(text) for text in texts]
    problems: list[Problem] = []
    for path, (formatted, complaint) in zip(paths, results, strict=True):
        if formatted is None:
            problems.append(Problem(path, f"generated code does not format: {complaint}"))
        else:
            fs.files[path] = formatted
    return problems
