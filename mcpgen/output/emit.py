"""Stage 6's one door: a target's generated files written, checked or diffed, with its manifest,
under the ownership rule, for every kind of target alike.

`open_folder` looks at the output folder before anything is generated (is it safe to write
into, what does its manifest say, does that manifest already prove the output current);
`emit` then does the rest with what a kind generated (an `Emission`): build the manifest,
compare with disk (CHECK, DIFF), or decide what mcpgen may write and remove and write the whole
tree at once (WRITE), creating the user's files when absent. The modules behind it each hold one
part: `ownership.py` (the rule), `user_files.py` and `handlers_file.py` (files written once and
then the user's), `manifest.py`, `compare.py`, `unchanged.py` and `write.py`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog.model import Problem
from ..console import console
from ..options import Mode
from ..wording import counted
from .compare import FileChange, compare, unified_diff
from .handlers_file import Stubs
from .manifest import FORMATTER, MANIFEST_NAME, Manifest, build_manifest, read_manifest, templates_digest
from .ownership import (
    Tree,
    check_ownership,
    legacy_client_files,
    legacy_server,
    legacy_server_files,
    owned_files,
    refuse_dangerous,
    walk,
)
from .unchanged import manifest_trusted, proven_current
from .user_files import UserFile, plan_user_file
from .write import write_tree

__all__ = [
    "MANIFEST_NAME",
    "Destination",
    "EmitResult",
    "Emission",
    "FileChange",
    "Folder",
    "Ownership",
    "Stubs",
    "UserFile",
    "emit",
    "open_folder",
    "templates_digest",
]


@dataclass(frozen=True)
class Destination:
    """Where a target's output goes, and how messages name it."""

    folder: Path
    display: str  # the folder as the user gave it
    force: bool = False  # also generate next to files mcpgen did not write (never over them)


class Ownership(enum.Enum):
    """How one kind of output folder divides between mcpgen and its user (ownership.py's rule
    holds for all; they differ in what a folder from before manifests is, and whose files beside
    the generated ones are expected)."""

    # Every file is mcpgen's (a client package); a folder from before manifests is known by the
    # header of its __init__.py, and the user's files beside the generated ones need --force.
    PACKAGE = "package"
    # Every file is mcpgen's (a docs folder, which is newer than manifests).
    DOCS = "docs"
    # Generated files beside the user's own modules (a server package): once mcpgen made the
    # package, those are its normal state; a skeleton from before manifests is known by
    # _generated/__init__.py.
    SCAFFOLD = "scaffold"


@dataclass(frozen=True)
class Emission:
    """What a kind generated for one target, and what its manifest records about it."""

    kind: str  # "client" | "server" | "docs"
    options: Mapping[str, Any]  # the options that shape the output (the manifest's "options")
    source_sha256: str
    files: Mapping[str, str]  # every generated file, posix relative path -> text
    ownership: Ownership
    renames: Sequence[tuple[str, str]] = ()
    user_files: Sequence[UserFile] = ()  # in the order their messages are told
    formatter: str = FORMATTER  # whose style its Python has (the manifest names it)


@dataclass
class EmitResult:
    problems: list[Problem] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)  # CHECK, DIFF: what writing would change
    diff: str = ""  # DIFF: from disk to what mcpgen would write
    written: int = 0  # WRITE: files written (the manifest not counted)
    messages: list[str] = field(default_factory=list)  # WRITE: about the user's files


@dataclass(frozen=True)
class Folder:
    """An output folder as a run found it, before generating anything."""

    destination: Destination
    old: Manifest | None  # the manifest in it, if any

    @property
    def may_settle(self) -> bool:
        """The manifest may prove the output current without regenerating (unchanged.py)."""
        return self.old is not None and manifest_trusted()

    def proven_current(self, kind: str, options: Mapping[str, Any], source_sha256: str, formatter: str) -> bool:
        """Regeneration from a source of this digest with these options would write what is there."""
        if self.old is None:
            return False
        return proven_current(self.destination.folder, self.old, kind, options, source_sha256, formatter)


def open_folder(destination: Destination, cwd: Path) -> tuple[Folder | None, list[Problem]]:
    """The output folder, or why mcpgen will not generate into it (a dangerous place, a file,
    a manifest it cannot trust)."""
    out = destination.folder
    danger = refuse_dangerous(out, cwd)
    if danger:
        return None, [danger]
    if out.exists() and not out.is_dir():
        return None, [Problem(str(out), "output path exists and is not a directory")]
    old, problems = read_manifest(out)
    if problems:
        return None, problems
    return Folder(destination, old), []


def emit(folder: Folder, emission: Emission, mode: Mode) -> EmitResult:
    """Write the emission (Mode.WRITE) or compare it with disk (CHECK, DIFF); the user's files
    are never part of a comparison."""
    out, old = folder.destination.folder, folder.old
    users = tuple(u.path for u in emission.user_files)
    manifest = build_manifest(
        emission.kind,
        emission.options,
        emission.source_sha256,
        emission.files,
        users,
        emission.renames,
        emission.formatter,
    )
    if mode is not Mode.WRITE:
        changes = compare(out, emission.files, manifest, old)
        label = folder.destination.display
        diff = unified_diff(out, changes, emission.files, manifest, label) if mode is Mode.DIFF else ""
        return EmitResult(changes=changes, diff=diff)
    tree = walk(out)
    owned, others_expected = _owned(emission, out, tree, old, set(users))
    extra: dict[str, str] = {}
    messages: list[str] = []
    for user in emission.user_files:
        planned, said, problems = plan_user_file(user, out, tree)
        if problems:
            return EmitResult(problems=problems)
        extra.update(planned)
        messages += said
    files = {**emission.files, **extra}
    problems = _write(folder.destination, tree, files, manifest, owned, set(users), others_expected)
    if problems:
        return EmitResult(problems=problems)
    return EmitResult(written=len(files), messages=messages)


def _owned(emission: Emission, out: Path, tree: Tree, old: Manifest | None, users: set[str]) -> tuple[set[str], bool]:
    """The files on disk that are mcpgen's, and whether other files beside them are expected."""
    generated = set(emission.files)
    scaffold = emission.ownership is Ownership.SCAFFOLD
    if old is not None:
        return owned_files(out, tree, old, users), scaffold
    if emission.ownership is Ownership.PACKAGE:
        return legacy_client_files(out, tree, generated), False
    if scaffold:
        return legacy_server_files(out, tree, generated, users), legacy_server(out, tree)
    return set(), False


def _write(
    destination: Destination,
    tree: Tree,
    files: dict[str, str],
    manifest: Manifest,
    owned: set[str],
    user_files: set[str],
    others_expected: bool,
) -> list[Problem]:
    """The one ownership rule (ownership.py), then the whole tree written at once (write.py)."""
    display = destination.display
    everything = {**files, MANIFEST_NAME: manifest.to_text()}
    console.stage("writing", f"{counted(len(files), 'file')} to {display}")
    if MANIFEST_NAME in tree.files and tree.files[MANIFEST_NAME] == "file":
        owned = owned | {MANIFEST_NAME}
    problems = check_ownership(
        display, tree, set(everything), owned, user_files, expected_others=others_expected, force=destination.force
    )
    if problems:
        return problems
    try:
        # Stale: mcpgen's files that it no longer generates. Nothing else is ever dropped.
        write_tree(destination.folder, everything, tree, owned - set(everything) - user_files)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        where = f" ({exc.filename})" if exc.filename else ""
        return [Problem(display, f"cannot write the output: {reason}{where}; the folder is as it was")]
    return []
