"""`--runtime vendor`: the runtime's own sources, copied verbatim into a generated package.

The runtime imports only itself (relatively) and its declared dependencies, so the copy works
as `PKG/_runtime/` with no mcpgen installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"


def runtime_files() -> Iterator[tuple[str, str]]:
    """(posix path relative to the runtime package, text) for every module of it, sorted."""
    for src in sorted(RUNTIME_DIR.rglob("*.py")):
        yield src.relative_to(RUNTIME_DIR).as_posix(), src.read_text(encoding="utf-8")
