"""`check_schemas=False` leaves out only the schemas' meta-validation (for tools checked once
already, or a catalog only digested); the envelope is checked either way."""

from __future__ import annotations

import json
from pathlib import Path

from mcpgen.catalog.build import build_catalog
from mcpgen.catalog.snapshot import catalog_digest
from mcpgen.sources.files import load_file, load_many

GOOD = {"name": "good", "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}
BAD_SCHEMA = {"name": "bad", "inputSchema": {"type": "object", "properties": {"x": {"minimum": "0"}}}}
NO_SCHEMA = {"name": "none"}


def test_meta_validation_is_what_is_left_out() -> None:
    checked, problems = build_catalog([GOOD, BAD_SCHEMA, NO_SCHEMA])
    assert [t.name for t in checked.tools] == ["good"] and len(problems) == 2
    unchecked, problems = build_catalog([GOOD, BAD_SCHEMA, NO_SCHEMA], check_schemas=False)
    assert [t.name for t in unchecked.tools] == ["good", "bad"]
    assert [p.message for p in problems] == ["tool has no inputSchema"]


def test_a_valid_source_has_the_same_digest_checked_or_not(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"tools": [GOOD]}))
    (tmp_path / "b.json").write_text(json.dumps([dict(GOOD, name="other")]))
    for load in (lambda **kw: load_file(tmp_path / "a.json", **kw), lambda **kw: load_many([tmp_path], **kw)):
        checked, problems = load()
        unchecked, unchecked_problems = load(check_schemas=False)
        assert checked is not None and unchecked is not None and problems == unchecked_problems == []
        assert catalog_digest(checked) == catalog_digest(unchecked)


def test_a_folder_still_refuses_a_bad_schema_once(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps([GOOD, BAD_SCHEMA]))
    catalog, problems = load_many([tmp_path])
    assert catalog is None and len(problems) == 1 and "minimum" in str(problems[0])
