"""`--check` without regenerating: when the manifest proves nothing that shapes the output changed.

Regenerating a package in memory costs as much as writing it (models, rendering, formatting). The
manifest already records what the output was made from: the source digest, the options (with
the user's templates' digest), the formatter, the mcpgen, formatter and datamodel-code-generator
versions, and each file's hash. When all of those still hold, and every listed file on disk still has its
hash, regeneration could only produce the same bytes. Anything else (a doubt included) falls
back to the full comparison, which names what differs; this module never reports a difference
itself.

A source checkout of mcpgen changes without changing its version, so there the fast path is off
unless MCPGEN_TRUST_MANIFEST=1 says the generator is the one that wrote the manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from .. import __version__
from .installed import dist_info, installed_version
from .manifest import MANIFEST_NAME, Manifest, dcg_version, formatter_version
from .ownership import walk

TRUST_ENV = "MCPGEN_TRUST_MANIFEST"


@cache
def _installed_release() -> bool:
    """mcpgen runs from an installed, non-editable distribution of this very version (one with a
    `.dist-info` folder: anything less usual is not trusted)."""
    folder = dist_info("mcpgen")
    if folder is None or installed_version("mcpgen") != __version__:
        return False
    try:
        direct = (folder / "direct_url.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True  # installed from an index
    except (OSError, UnicodeDecodeError):
        return False
    try:
        info = json.loads(direct)
    except ValueError:
        return False
    editable = isinstance(info, dict) and isinstance(info.get("dir_info"), dict) and info["dir_info"].get("editable")
    return not editable


def manifest_trusted() -> bool:
    """May a manifest written by this mcpgen version stand for this generator's output?"""
    setting = os.environ.get(TRUST_ENV)
    if setting in ("0", "1"):
        return setting == "1"
    return _installed_release()


def proven_current(
    target: Path, old: Manifest, kind: str, options: Mapping[str, Any], source_sha256: str, formatter: str
) -> bool:
    """True only when the output in `target` is exactly what regeneration would write with
    `formatter` (another formatter than the manifest's is a full comparison, which names the files)."""
    if (
        old.kind != kind
        or old.mcpgen_version != __version__
        or old.formatter != formatter
        or old.formatter_version != formatter_version(formatter)
        or old.dcg_version != dcg_version()
        or dict(old.options) != dict(options)
        or old.source_sha256 != source_sha256
    ):
        return False
    tree = walk(target)
    for rel in (MANIFEST_NAME, *old.files):
        if tree.files.get(rel) != "file" or tree.blocked(rel) is not None:
            return False
    # The manifest on disk must be in the form mcpgen writes, or the full check would rewrite it.
    if _read_bytes(target / MANIFEST_NAME) != old.to_text().encode("utf-8"):
        return False
    for rel, digest in old.files.items():
        data = _read_bytes(target / rel)
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            return False
    return True


def _read_bytes(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            return f.read()
    except OSError:
        return None
