"""`.mcpgen-manifest.json`: what mcpgen wrote into an output folder, and from what.

It is how regeneration knows which files it may replace or remove (only those listed),
and what `--check` compares. No timestamps, no absolute paths: same input, same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..catalog.model import Problem
from .installed import installed_version

MANIFEST_NAME = ".mcpgen-manifest.json"
MANIFEST_FORMAT = 1


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def templates_digest(folder: Path | None) -> str | None:
    """The user's templates as a manifest option records them: a digest of their names and
    bytes, never a path (the manifest must not depend on where the checkout lives)."""
    if folder is None:
        return None
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*.jinja")):
        h.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


# Generated Python is a formatter's output (formatter.py): ruff's unless the target chose black.
# Both are pinned exactly; the manifest names the one used and its version.
FORMATTER = "ruff"


def formatter_version(formatter: str = FORMATTER) -> str:
    """Another formatter release may format differently: its version goes in the manifest."""
    return installed_version(formatter)


def dcg_version() -> str:
    """datamodel-code-generator writes models.py: another release may write other models."""
    return installed_version("datamodel-code-generator")


@dataclass(frozen=True)
class Manifest:
    kind: str  # "client" | "server" | "docs"
    options: Mapping[str, Any]
    source_sha256: str
    files: Mapping[str, str]  # posix path -> sha256 of the text mcpgen wrote
    user_files: tuple[str, ...] = ()  # written once by mcpgen, then the user's (never checked, never removed)
    renames: tuple[tuple[str, str], ...] = ()  # (wire, Python) names not given by the plain rule
    mcpgen_version: str = __version__
    formatter: str = FORMATTER
    formatter_version: str = field(default_factory=formatter_version)
    dcg_version: str = field(default_factory=dcg_version)

    def to_text(self) -> str:
        doc = {
            "datamodel_code_generator_version": self.dcg_version,
            "files": dict(sorted(self.files.items())),
            "format": MANIFEST_FORMAT,
            "formatter": self.formatter,
            "formatter_version": self.formatter_version,
            "generator": "mcpgen",
            "kind": self.kind,
            "mcpgen_version": self.mcpgen_version,
            "options": dict(self.options),
            "renames": [{"python": python, "wire": wire} for wire, python in self.renames],
            "source_sha256": self.source_sha256,
            "user_files": sorted(self.user_files),
        }
        return json.dumps(doc, indent=2, sort_keys=True) + "\n"

    def comparable(self, current: Manifest) -> Manifest:
        """This manifest with tool versions that do not decide the output taken from `current`.

        Another release of the formatter or of datamodel-code-generator with identical output is
        not a difference worth failing CI for; the files themselves are compared byte for byte
        anyway. Another formatter is: the manifest names it.
        """
        return replace(self, formatter_version=current.formatter_version, dcg_version=current.dcg_version)


def build_manifest(
    kind: str,
    options: Mapping[str, Any],
    source_sha256: str,
    files: Mapping[str, str],
    user_files: tuple[str, ...] = (),
    renames: Sequence[tuple[str, str]] = (),
    formatter: str = FORMATTER,
) -> Manifest:
    return Manifest(
        formatter=formatter,
        formatter_version=formatter_version(formatter),
        renames=tuple(renames),
        kind=kind,
        options=options,
        source_sha256=source_sha256,
        files={path: sha256_text(text) for path, text in files.items()},
        user_files=user_files,
    )


def parse_manifest(text: str, where: str) -> tuple[Manifest | None, list[Problem]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Problem(where, f"unreadable manifest: {exc.msg} at line {exc.lineno}")]
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("generator") != "mcpgen" or not isinstance(files, dict):
        return None, [Problem(where, "not an mcpgen manifest")]
    if not all(isinstance(k, str) and isinstance(v, str) and _safe_relpath(k) for k, v in files.items()):
        return None, [Problem(where, "manifest lists a file outside the output folder or a bad hash")]
    users = doc.get("user_files", [])
    renames = doc.get("renames", [])
    options = doc.get("options", {})
    return (
        Manifest(
            kind=str(doc.get("kind", "")),
            options=options if isinstance(options, dict) else {},
            source_sha256=str(doc.get("source_sha256", "")),
            files=files,
            user_files=tuple(u for u in users if isinstance(u, str)) if isinstance(users, list) else (),
            renames=_renames(renames),
            mcpgen_version=str(doc.get("mcpgen_version", "")),
            formatter=str(doc.get("formatter", "")),
            formatter_version=str(doc.get("formatter_version", "")),
            dcg_version=str(doc.get("datamodel_code_generator_version", "")),
        ),
        [],
    )


def _renames(doc: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(doc, list):
        return ()
    pairs = [(r.get("wire"), r.get("python")) for r in doc if isinstance(r, dict)]
    return tuple((w, p) for w, p in pairs if isinstance(w, str) and isinstance(p, str))


def read_manifest(folder: Path) -> tuple[Manifest | None, list[Problem]]:
    """(None, []) when there is no manifest; a problem when there is one mcpgen cannot trust."""
    path = folder / MANIFEST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(str(path), f"cannot read manifest: {exc}")]
    return parse_manifest(text, str(path))


def _safe_relpath(rel: str) -> bool:
    """A stale-file list must never reach outside the output folder (the manifest is a file on disk)."""
    parts = rel.split("/")
    return (
        bool(rel)
        and not rel.startswith("/")
        and not any(c in rel for c in "\\\0:")
        and all(p not in ("", ".", "..") for p in parts)
    )
