"""In-memory file set -> black (in-process) -> atomic write. Nothing touches disk on failure."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import Problem


@dataclass
class FileSet:
    files: dict[str, str] = field(default_factory=dict)  # posix relative path -> text
    verbatim: set[str] = field(default_factory=set)  # paths black must not touch (copied runtime)
    warnings: list[Problem] = field(default_factory=list)

    def add(self, path: str, text: str, *, format: bool = True) -> None:
        self.files[path] = text
        if not format:
            self.verbatim.add(path)


def format_files(fs: FileSet) -> list[Problem]:
    """Run black over every .py file; a file black cannot parse is a generator bug, reported."""
    import black  # heavy import; only the formatting stage needs it

    from black.mode import Mode, TargetVersion

    mode = Mode(target_versions={TargetVersion.PY310}, line_length=100)
    problems: list[Problem] = []
    for path in sorted(fs.files):
        if not path.endswith(".py") or path in fs.verbatim:
            continue
        try:
            fs.files[path] = black.format_str(fs.files[path], mode=mode)
        except Exception as exc:  # black raises InvalidInput and friends
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            problems.append(Problem(path, f"generated code does not format: {first}"))
    return problems


def write_atomic(fs: FileSet, target: Path) -> None:
    """Write every file into a temp dir beside `target`, then swap it into place.

    The previous directory (if any) is moved aside and removed only after the swap.
    """
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.mcpgen-", dir=target.parent))
    try:
        for rel, text in sorted(fs.files.items()):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8", newline="\n")
        old: Path | None = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.rename(target, old / "d")
        os.rename(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def replace_files(target: Path, fs: FileSet, extra: dict[str, str] | None = None) -> None:
    """Update some files inside a folder the user also owns (a server skeleton).

    Each subdirectory of `fs` (e.g. `_generated/`) is rebuilt beside the target and
    swapped in whole, so files no longer generated disappear with it; each top-level
    file is replaced on its own through a temp file. Other files are left untouched.
    """
    target = target.resolve()
    target.mkdir(parents=True, exist_ok=True)
    files = {**fs.files, **(extra or {})}
    subdirs = sorted({rel.split("/", 1)[0] for rel in files if "/" in rel})
    for sub in subdirs:
        tmp = Path(tempfile.mkdtemp(prefix=f".{sub}.mcpgen-", dir=target))
        try:
            for rel, text in sorted(files.items()):
                if rel.startswith(sub + "/"):
                    p = tmp / rel[len(sub) + 1 :]
                    p.parent.mkdir(parents=True, exist_ok=True)
                    p.write_text(text, encoding="utf-8", newline="\n")
            dest = target / sub
            old: Path | None = None
            if dest.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{sub}.old-", dir=target))
                os.rename(dest, old / "d")
            os.rename(tmp, dest)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    for rel, text in sorted(files.items()):
        if "/" in rel:
            continue
        fd, tmp_name = tempfile.mkstemp(prefix=f".{rel}.", dir=target)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            os.replace(tmp_name, target / rel)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
