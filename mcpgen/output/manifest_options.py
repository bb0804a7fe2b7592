"""What of a target its manifest records: its kind and the options that shape the output.

The pipeline writes these into every manifest; `--check` compares them (quick_check.py too,
before anything heavy loads), so this module imports nothing but the target's types.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..config import Target
from ..options import ClientOptions, DocsOptions, Layout, ServerOptions


def templates_digest(folder: Path | None) -> str | None:
    """Options name no absolute paths (the manifest must not depend on where the checkout lives)."""
    if folder is None:
        return None
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*.jinja")):
        h.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


def manifest_options(t: Target) -> dict[str, Any]:
    """The options that shape the output (a client's package name does not: its imports are relative)."""
    opts: dict[str, Any] = {"templates": templates_digest(t.templates)}
    if isinstance(t.generator, DocsOptions):
        return opts  # no Python in a docs folder: no runtime, no package name
    opts["runtime"] = t.generator.runtime.value
    if isinstance(t.generator, ServerOptions):
        opts["name"] = t.package
        return opts
    if t.generator.layout is not Layout.FLAT:
        # A code-mode package names itself in its SKILL.md and docstrings.
        opts["layout"] = t.generator.layout.value
        opts["name"] = t.package
    if not t.generator.sync:
        opts["sync"] = False  # recorded only when not the default, so existing manifests stand
    return opts


def target_kind(t: Target) -> str:
    if isinstance(t.generator, ClientOptions):
        return "client"
    return "server" if isinstance(t.generator, ServerOptions) else "docs"
