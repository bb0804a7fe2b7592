"""`--check` and `--diff`: what regeneration would change on disk, without writing anything."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .manifest import MANIFEST_NAME, Manifest
from .ownership import walk


@dataclass(frozen=True)
class FileChange:
    path: str  # posix, relative to the output folder
    status: str  # "added" | "removed" | "changed" (what regeneration would do)


def compare(target: Path, files: Mapping[str, str], manifest: Manifest, old: Manifest | None) -> list[FileChange]:
    """What regeneration would change on disk; empty when the output is current."""
    changes: list[FileChange] = []
    tree = walk(target)  # no link inside the folder is followed: what it points to is not the output

    def plain(rel: str) -> bool:
        return tree.files.get(rel) == "file" and tree.blocked(rel) is None

    for rel in sorted(files):
        if not plain(rel):
            changes.append(FileChange(rel, "added"))
        elif _read(target / rel) != files[rel]:
            changes.append(FileChange(rel, "changed"))
    for rel in sorted(set(old.files if old else ()) - set(files)):
        if plain(rel):
            changes.append(FileChange(rel, "removed"))
    on_disk = _read(target / MANIFEST_NAME) if plain(MANIFEST_NAME) else None
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
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None
