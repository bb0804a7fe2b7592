"""Tools files in LLM APIs' function-calling shapes (issue 35, item 5) read as the same MCP tools:
the shapes mcpgen's own `tool_definitions()` emits (runtime llm_tool) for every format, as a
list or a `{"tools": [...]}` document, Gemini's `functionDeclarations` wrapper too, and a file
in OpenAI's shape generates a client through the real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime.client.llm_tools import LLM_FORMATS, llm_tool
from mcpgen.sources.files import catalog_from_document, load_file

REPO = Path(__file__).resolve().parents[2]
EVERYTHING_CAPTURE = REPO / "tests/golden/inputs/everything.raw.json"


def _source_tools() -> list[dict[str, Any]]:
    catalog, problems = load_file(EVERYTHING_CAPTURE)
    assert catalog is not None and not problems
    return [t.raw for t in catalog.tools]


def _documents(fmt: str, defs: list[Any]) -> list[Any]:
    docs: list[Any] = [defs, {"tools": defs}]
    if fmt == "gemini":
        docs += [[{"functionDeclarations": defs}], {"functionDeclarations": defs}]
    return docs


@pytest.mark.parametrize("fmt", LLM_FORMATS)
def test_every_shape_tool_definitions_emits_is_read_as_the_same_tools(fmt: str) -> None:
    source = _source_tools()
    assert len(source) > 5
    defs = [llm_tool(t, fmt) for t in source]
    for doc in _documents(fmt, defs):
        catalog, problems = catalog_from_document(json.loads(json.dumps(doc)), "tools.json")
        assert problems == [] and catalog is not None, problems
        read = {t.name: t for t in catalog.tools}
        assert sorted(read) == sorted(t["name"] for t in source)
        for t in source:
            assert read[t["name"]].input_schema == t["inputSchema"]
            assert read[t["name"]].description == (t.get("description") or t.get("title") or "")


def test_an_openai_function_without_parameters_takes_no_arguments() -> None:
    doc = {"type": "function", "function": {"name": "now", "description": "The time."}}
    catalog, problems = catalog_from_document(doc, "one.json")
    assert problems == [] and catalog is not None
    assert catalog.tools[0].raw == {
        "name": "now",
        "description": "The time.",
        "inputSchema": {"type": "object", "properties": {}},
    }


def test_an_unknown_shape_still_says_what_is_missing() -> None:
    catalog, problems = catalog_from_document([{"type": "bash_20250124", "name": "bash"}], "tools.json")
    assert [p.message for p in problems] == ["tool has no inputSchema"]


def test_a_file_in_openai_shape_generates_a_client(tmp_path: Path) -> None:
    defs = [llm_tool(t, "openai") for t in _source_tools()]
    (tmp_path / "openai_tools.json").write_text(json.dumps(defs), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", "openai_tools.json", "-o", "oa_client"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"({len(defs)} tools)" in done.stderr
