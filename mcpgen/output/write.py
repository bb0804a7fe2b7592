"""Writing a generated package: all or nothing where the folder is mcpgen's alone, file by file
(staged inside it first) where it is shared with the user's files; stale files removed only when
the old manifest lists them."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .files import FileSet
from .manifest import MANIFEST_NAME, Manifest
from .ownership import CACHE_DIR, existing_files


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
        if folder.is_dir() and {c.name for c in folder.iterdir()} <= {CACHE_DIR}:
            shutil.rmtree(folder, ignore_errors=True)
