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
from .normal import canonical, sorted_by

SNAPSHOT_FORMAT = 1


def normalize(catalog: Catalog) -> Catalog:
    """The same catalog with tools, prompts and resources in their snapshot order (a catalog
    built by build_catalog already has all but the tools in it)."""
    return replace(
        catalog,
        tools=tuple(sorted(catalog.tools, key=lambda t: t.name)),
        prompts=sorted_by("name", catalog.prompts),
        resources=sorted_by("uri", catalog.resources),
        resource_templates=sorted_by("uriTemplate", catalog.resource_templates),
    )


def snapshot_document(catalog: Catalog) -> dict[str, Any]:
    cat = normalize(catalog)
    doc: dict[str, Any] = {
        "instructions": cat.instructions,
        "mcpgenSnapshot": SNAPSHOT_FORMAT,
        "prompts": list(cat.prompts),
        "protocolVersion": cat.protocol_version,
        "resourceTemplates": list(cat.resource_templates),
        "resources": list(cat.resources),
        "serverInfo": canonical(cat.server_info),
        "tools": [t.raw for t in cat.tools],  # verbatim (see the module docstring)
    }
    if cat.source_command:
        doc["source_command"] = list(cat.source_command)
    if cat.source_url:
        doc["source_url"] = cat.source_url
    if cat.extensions:  # the extensions the server declared (Skills: the client gets list_skills)
        doc["extensions"] = canonical(cat.extensions)
    if cat.failed_lists:  # what the live server failed to list (catalog/model.py, FailedList)
        doc["failedLists"] = [{"error": f.error, "method": f.method} for f in cat.failed_lists]
    return {k: doc[k] for k in sorted(doc)}


def dumps_snapshot(catalog: Catalog) -> str:
    """2-space indent, non-ASCII kept readable, one trailing newline: byte-stable for the same catalog."""
    return json.dumps(snapshot_document(catalog), indent=2, ensure_ascii=False) + "\n"


def catalog_digest(catalog: Catalog) -> str:
    """sha256 of the normalized catalog (a snapshot and the live server it came from agree)."""
    return hashlib.sha256(dumps_snapshot(catalog).encode("utf-8")).hexdigest()
