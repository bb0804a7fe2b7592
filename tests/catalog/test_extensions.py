"""The extensions a source declares travel with its catalog: a live server's
capabilities.extensions and a snapshot's `extensions` give the same catalog, the snapshot records
them (only when there are any: other snapshots keep their bytes and digests), and a client
generated from a source declaring Skills has the Skills methods while others have none."""

from __future__ import annotations

import json
from typing import Any

from generation import GenerateFn, tool

from mcpgen.catalog.snapshot import dumps_snapshot
from mcpgen.sources.files import catalog_from_document

SKILLS = "io.modelcontextprotocol/skills"


def catalog_of(doc: dict[str, Any]) -> Any:
    cat, problems = catalog_from_document(doc, "inline")
    assert not problems and cat is not None
    return cat


def test_a_snapshot_records_the_declared_extensions_and_reads_them_back() -> None:
    cat = catalog_of({"tools": [tool("echo")], "extensions": {SKILLS: {"directoryRead": True}, "": {}}})
    assert cat.extensions == (SKILLS,)  # the names (an empty one is none): what generation needs
    text = dumps_snapshot(cat)
    assert json.loads(text)["extensions"] == [SKILLS]
    assert catalog_of(json.loads(text)) == cat


def test_a_snapshot_without_extensions_has_no_extensions_key() -> None:
    assert "extensions" not in json.loads(dumps_snapshot(catalog_of({"tools": [tool("echo")]})))


def test_only_a_client_whose_source_declares_skills_has_the_skills_methods(generate: GenerateFn) -> None:
    declared = generate({"tools": [tool("echo"), tool("list_skills")], "extensions": {SKILLS: {}}})
    plain = generate({"tools": [tool("echo")]})
    for name in ("list_skills", "get_skill", "read_skill_file"):
        assert callable(getattr(declared.AsyncClient, name)) and callable(getattr(declared.Client, name))
        assert not hasattr(plain.AsyncClient, name) and not hasattr(plain.Client, name)
    # A tool named like a Skills method keeps its own method, renamed (the naming rule's members).
    assert hasattr(declared.AsyncClient, "list_skills_")
