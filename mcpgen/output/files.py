"""In-memory file set -> black (in-process) -> atomic write / check / diff, with the manifest.

Nothing touches disk on failure: every file is generated and formatted in memory first.
Only files the manifest says mcpgen wrote are ever replaced or removed.
"""

from __future__ import annotations

import contextlib
import difflib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.model import Problem
from .manifest import MANIFEST_NAME, Manifest


@dataclass
class FileSet:
    files: dict[str, str] = field(default_factory=dict)  # posix relative path -> text
    verbatim: set[str] = field(default_factory=set)  # paths black must not touch (copied runtime)
    warnings: list[Problem] = field(default_factory=list)

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
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            done = dict(zip(order, pool.map(_format_one, [texts[i] for i in order])))
        results = [done[i] for i in range(len(texts))]
    else:
        results = [_format_one(text) for text in texts]
    problems: list[Problem] = []
    for path, (formatted, complaint) in zip(paths, results):
        if formatted is None:
            problems.append(Problem(path, f"generated code does not format: {complaint}"))
        else:
            fs.files[path] = formatted
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



# Never ours to list as foreign, never ours to write: interpreter caches.
_CACHE_DIR = "__pycache__"


@dataclass(frozen=True)
class FileChange:
    path: str  # posix, relative to the output folder
    status: str  # "added" | "removed" | "changed" (what regeneration would do)


def existing_files(target: Path) -> set[str]:
    """Every file under target (posix relative paths), caches left out."""
    if not target.is_dir():
        return set()
    return {
        p.relative_to(target).as_posix()
        for p in target.rglob("*")
        if p.is_file() and _CACHE_DIR not in p.relative_to(target).parts
    }


def refuse_dangerous(target: Path, cwd: Path) -> Problem | None:
    """Folders that must never be an output, whatever --force says."""
    t = target.resolve()
    here = cwd.resolve()
    home = Path.home().resolve()
    if t == here or t in here.parents:
        return Problem(str(target), "refusing to generate into the current directory or one above it")
    if t == home or t in home.parents or t == Path(t.anchor):
        return Problem(str(target), "refusing to generate into the home directory, the file system root or above")
    if (t / ".git").exists() or (t / "pyproject.toml").exists():
        return Problem(str(target), "refusing to generate into a repository or project root (it has .git or pyproject.toml)")
    return None


def foreign_files(target: Path, owned: set[str], allowed: set[str]) -> list[str]:
    """Files in target that mcpgen did not write (and that are not expected user files)."""
    return sorted(existing_files(target) - owned - allowed - {MANIFEST_NAME})


def compare(target: Path, files: Mapping[str, str], manifest: Manifest, old: Manifest | None) -> list[FileChange]:
    """What regeneration would change on disk; empty when the output is current."""
    changes: list[FileChange] = []
    for rel in sorted(files):
        path = target / rel
        if not path.is_file():
            changes.append(FileChange(rel, "added"))
        elif _read(path) != files[rel]:
            changes.append(FileChange(rel, "changed"))
    for rel in sorted(set(old.files if old else ()) - set(files)):
        if (target / rel).is_file():
            changes.append(FileChange(rel, "removed"))
    on_disk = _read(target / MANIFEST_NAME)
    if on_disk is None:
        changes.append(FileChange(MANIFEST_NAME, "added"))
    elif old is None or old.comparable(manifest).to_text() != manifest.to_text():
        changes.append(FileChange(MANIFEST_NAME, "changed"))
    return changes


def unified_diff(
    target: Path, changes: list[FileChange], files: Mapping[str, str], manifest: Manifest, label: str
) -> str:
    """A `git apply`-style diff from what is on disk to what mcpgen would write."""
    wanted = {**files, MANIFEST_NAME: manifest.to_text()}
    out: list[str] = []
    for ch in changes:
        now = (_read(target / ch.path) or "") if ch.status != "added" else ""
        new = wanted.get(ch.path, "") if ch.status != "removed" else ""
        name = f"{label}/{ch.path}" if label else ch.path
        out += difflib.unified_diff(
            now.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile="/dev/null" if ch.status == "added" else f"a/{name}",
            tofile="/dev/null" if ch.status == "removed" else f"b/{name}",
        )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_output(
    target: Path,
    files: Mapping[str, str],
    manifest: Manifest,
    old: Manifest | None,
    extra: Mapping[str, str] | None = None,
) -> None:
    """Write `files` (+ `extra`, e.g. a new handlers.py) and the manifest; remove stale files.

    A folder holding only mcpgen's files is rebuilt beside itself and swapped in whole
    (all or nothing). A folder shared with the user's files is updated file by file:
    every new file is staged inside it first, then each one is renamed into place, stale
    files (listed in the old manifest, no longer generated) are removed, and the manifest
    goes last. Files that no manifest lists are never touched.
    """
    target = target.resolve()
    everything = {**files, **(extra or {}), MANIFEST_NAME: manifest.to_text()}
    owned = set(old.files) if old else set()
    if not target.exists() or not (existing_files(target) - owned - {MANIFEST_NAME}):
        fs = FileSet()
        for rel, text in everything.items():
            fs.add(rel, text)
        write_atomic(fs, target)
        return
    stage = Path(tempfile.mkdtemp(prefix=".mcpgen-stage-", dir=target))
    try:
        for rel, text in sorted(everything.items()):
            staged = stage / rel
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_text(text, encoding="utf-8", newline="\n")
        for rel in sorted(everything, key=lambda r: r == MANIFEST_NAME):  # the manifest last
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / rel, dest)
        _remove_stale(target, owned - set(everything))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _remove_stale(target: Path, stale: set[str]) -> None:
    parents: set[Path] = set()
    for rel in sorted(stale):
        path = target / rel
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        parents.update(p for p in path.parents if target in p.parents)
    # Folders left empty (but for a bytecode cache) by the removal go too; others stay.
    for folder in sorted(parents, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and {c.name for c in folder.iterdir()} <= {_CACHE_DIR}:
            shutil.rmtree(folder, ignore_errors=True)

