"""A catalog as a stable, diff-friendly JSON document (`mcpgen snapshot`), and its digest.

Everything is sorted (keys, and lists by name / uri) except the tool objects themselves:
those are kept exactly as the server sent them, because key order inside a schema is
meaningful to the generator (argument order of the typed methods, what an LLM reads).
The file loader (sources/files.py) reads this shape back into the same Catalog.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from .model import Catalog

SNAPSHOT_FORMAT = 1


def _sorted(value: Any) -> Any:
    """A copy with every object's keys in sorted order (lists keep their order)."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _by(key: str, items: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: (str(item.get(key, "")), json.dumps(item, sort_keys=True)))


def normalize(catalog: Catalog) -> Catalog:
    """The same catalog with tools, prompts and resources in their snapshot order."""
    return replace(
        catalog,
        tools=tuple(sorted(catalog.tools, key=lambda t: t.name)),
        prompts=tuple(_by("name", catalog.prompts)),
        resources=tuple(_by("uri", catalog.resources)),
        resource_templates=tuple(_by("uriTemplate", catalog.resource_templates)),
    )


def snapshot_document(catalog: Catalog) -> dict[str, Any]:
    cat = normalize(catalog)
    doc: dict[str, Any] = {
        "instructions": cat.instructions,
        "mcpgenSnapshot": SNAPSHOT_FORMAT,
        "prompts": _sorted(list(cat.prompts)),
        "protocolVersion": cat.protocol_version,
        "resourceTemplates": _sorted(list(cat.resource_templates)),
        "resources": _sorted(list(cat.resources)),
        "serverInfo": _sorted(cat.server_info),
        "tools": [t.raw for t in cat.tools],  # verbatim (see the module docstring)
    }
    if cat.source_command:
        doc["source_command"] = list(cat.source_command)
    return {k: doc[k] for k in sorted(doc)}


def dumps_snapshot(catalog: Catalog) -> str:
    """2-space indent, non-ASCII kept readable, one trailing newline: byte-stable for the same catalog."""
    return json.dumps(snapshot_document(catalog), indent=2, ensure_ascii=False) + "\n"


def catalog_digest(catalog: Catalog) -> str:
    """sha256 of the normalized catalog (a snapshot and the live server it came from agree)."""
    return hashlib.sha256(dumps_snapshot(catalog).encode("utf-8")).hexdigest()
