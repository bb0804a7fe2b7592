"""The files a kind hands to its user: written once when absent, then the user's.

A server scaffold has two (render/files.py names them): handlers.py, which `--add-missing` may
extend with the stubs of handlers it lacks (`handlers_file.py`), and its contract test file.
mcpgen never rewrites them, never compares them (`--check`), never removes them; the manifest
lists them as the user's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..catalog.model import Problem
from .handlers_file import Stubs, extend_handlers
from .ownership import Tree


@dataclass(frozen=True)
class UserFile:
    path: str  # posix, relative to the output folder
    text: str | None  # written when nothing is at `path`; None: never written, the user's all the same
    note: str = ""  # what to do with it once written ("fill in the handlers")
    stubs: Stubs | None = None  # handlers.py: the stubs its class may lack


def plan_user_file(user: UserFile, out: Path, tree: Tree) -> tuple[dict[str, str], list[str], list[Problem]]:
    """What to write at `user.path`, if anything: ({path: text}, messages for the user, problems).

    Created only when nothing (no file of the user's, no link, no folder) is at its path; after
    that only handlers.py's stubs may be appended to it."""
    kind = tree.kind(user.path)
    if kind is None:
        if user.text is None:
            return {}, [], []
        return {user.path: user.text}, [f"wrote {out / user.path}: {user.note}"], []
    if user.stubs is None:
        return {}, [], []
    text, messages, problems = extend_handlers(out / user.path, kind, user.stubs)
    return ({user.path: text} if text is not None else {}), messages, problems
