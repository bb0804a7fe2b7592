"""`--check` and `--diff`: what regeneration would change on disk, without writing anything."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .manifest import MANIFEST_NAME, Manifest


@dataclass(frozen=True)
class FileChange:
    path: str  # posix, relative to the output folder
    status: str  # "added" | "removed" | "changed" (what regeneration would do)


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
