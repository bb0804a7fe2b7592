"""Installed distributions' versions, read from their `.dist-info` folders on sys.path.

The manifest records the formatter's and datamodel-code-generator's versions, and `--check`
compares them on every run; importlib.metadata would cost that run more than everything else it
does (it imports email, zipfile and csv). This reads the same folders importlib.metadata reads
first, in sys.path order, and leaves anything unusual (eggs, zip imports) to it.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@cache
def _listing(entry: str) -> tuple[str, ...]:
    try:
        return tuple(os.listdir(entry or "."))
    except OSError:
        return ()


def dist_info(distribution: str) -> Path | None:
    """The first `<name>-<version>.dist-info` folder of `distribution` on sys.path, if any."""
    wanted = _normalized(distribution)
    for entry in sys.path:
        for name in _listing(entry):
            if name.endswith(".dist-info") and _normalized(name[: -len(".dist-info")].rsplit("-", 1)[0]) == wanted:
                return Path(entry or ".") / name
    return None


def _metadata_version(folder: Path) -> str | None:
    try:
        with open(folder / "METADATA", encoding="utf-8") as f:
            for line in f:
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
                if not line.strip():
                    return None  # the headers ended without one
    except (OSError, UnicodeDecodeError):
        return None
    return None


@cache  # the installed distributions do not change while mcpgen runs
def installed_version(distribution: str) -> str:
    """The installed version of `distribution`, or "unknown"."""
    folder = dist_info(distribution)
    found = _metadata_version(folder) if folder is not None else None
    if found:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"
