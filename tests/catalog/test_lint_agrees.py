"""Lint and tool_definitions agree, and every definition sent passes a checker written from each
API's documented request schema: over the recorded captures and the JSON Schema Test Suite.

The checkers (tests/llm_api_checkers.py) say what they cannot know: limits a provider enforces
but does not document, how a model handles a schema it accepts, and rules changed after the
documentation they were written from (docs/how-to/llm-tools.md links it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing.exceptions
from llm_api_checkers import CHECKERS, refusals

from mcpgen.catalog.portability import lint_tools
from mcpgen.runtime.client.llm_discovery import META_TOOLS, Discovery, _for_api, discovery_definitions
from mcpgen.runtime.client.llm_tools import AnthropicOptions, llm_definitions

LIVE = Path("/work/shared/fixtures/live")
JSTS = Path("/work/shared/jsts/tests")
# Each draft of the suite here, by the $schema its groups are declared in.
DRAFTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}


def _groups() -> list[tuple[str, dict[str, Any]]]:
    """(tool name, group) of every suite group, its schema declaring its draft (`$schema`)."""
    out = []
    for draft, uri in DRAFTS.items():
        prefix = "" if draft == "draft2020-12" else "d7."
        for path in sorted((JSTS / draft).glob("*.json")):
            for i, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                schema = group["schema"]
                if isinstance(schema, dict) and "$schema" not in schema:
                    schema = {"$schema": uri, **schema}
                out.append((f"{prefix}{path.stem}.{i}", {**group, "schema": schema}))
    return out


def _validator(schema: Any) -> Any:
    """The suite's own validator for the draft the schema declares."""
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)


def _tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for capture in sorted(LIVE.glob("*.raw.json")):
        listed = json.loads(capture.read_text(encoding="utf-8"))["tools"]
        tools += listed["tools"] if isinstance(listed, dict) else listed
    tools += [{"name": wire, "inputSchema": group["schema"]} for wire, group in _groups()]
    return tools


TOOLS = _tools()
PROVIDER = {"anthropic": "anthropic", "openai": "openai", "openai-responses": "openai", "gemini": "gemini"}


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_every_definition_sent_passes_the_documented_checker(format: Any) -> None:
    made = llm_definitions(TOOLS, format)
    assert refusals(made.tools, format) == []
    assert len(made.tools) > 100 and made.refused  # the suite has schemas every API refuses


def test_every_gemini_parameters_definition_passes_the_schema_object_checker() -> None:
    made = llm_definitions(TOOLS, "gemini", gemini_field="parameters")
    assert refusals(made.tools, "gemini", "parameters") == []
    assert len(made.tools) > 50 and len(made.refused) > len(llm_definitions(TOOLS, "gemini").refused)


def _example(group: dict[str, Any]) -> list[dict[str, Any]]:
    """An input example of a suite group: its first valid instance that is an object and that
    jsonschema, on its own, finds valid (a group whose refs leave the document gives none)."""
    for case in group["tests"]:
        if case["valid"] and isinstance(case["data"], dict):
            try:
                return [case["data"]] if _validator(group["schema"]).is_valid(case["data"]) else []
            except (referencing.exceptions.Unresolvable, re.error):  # another document; a \p pattern
                return []
    return []


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_a_rewritten_schema_accepts_exactly_the_arguments_the_original_does(format: Any) -> None:
    """Every suite instance that is an object (arguments always are): the schema sent and the
    server's own one agree on it, for every tool sent."""
    compared = 0
    for wire, group in _groups():
        made = llm_definitions([{"name": wire, "inputSchema": group["schema"]}], format).tools
        if not made:
            continue
        d = made[0]
        sent = (
            d.get("input_schema") or d.get("parameters") or d.get("parametersJsonSchema") or d["function"]["parameters"]
        )
        for case in group["tests"]:
            if not isinstance(case["data"], dict):
                continue
            try:
                original = _validator(group["schema"]).is_valid(case["data"])
                now = _validator(sent).is_valid(case["data"])
            except (referencing.exceptions.Unresolvable, re.error):  # another document; a \p pattern
                break
            assert now == original, (wire, case)
            compared += 1
    assert compared > 200


def test_every_anthropic_option_gives_definitions_the_api_accepts() -> None:
    examples = {wire: _example(group) for wire, group in _groups() if _example(group)}
    wires = [str(t["name"]) for t in TOOLS]
    for options in (
        AnthropicOptions(input_examples=examples, defer_loading=True, allowed_callers=["code_execution_20250825"]),
        AnthropicOptions(defer_loading=wires[::2], allowed_callers={w: ["direct"] for w in wires[1::2]}),
        AnthropicOptions(cache_control={"type": "ephemeral", "ttl": "1h"}),
        AnthropicOptions(cache_control=True),
    ):
        made = llm_definitions(TOOLS, "anthropic", anthropic=options).tools
        assert refusals(made, "anthropic") == [], options
        assert sum("cache_control" in d for d in made) == (1 if options.cache_control else 0)
    assert sum("input_examples" in d for d in llm_definitions(TOOLS, "anthropic", anthropic=options).tools) == 0
    assert len(examples) > 50


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_what_discovery_sends_passes_the_documented_checker(format: Any) -> None:
    """The meta-tools and loaded tools, in each API's shape (both Gemini fields), as sent."""
    for field in ("parametersJsonSchema", "parameters") if format == "gemini" else ("parametersJsonSchema",):
        metas = llm_definitions(_for_api(list(META_TOOLS.values()), format), format, gemini_field=field)  # type: ignore[arg-type]
        assert metas.refused == {} and refusals(metas.tools, format, field) == []
    catalog = _Catalog(TOOLS)
    discovery = Discovery()
    discovery.load([str(t["name"]) for t in TOOLS[:32]])
    all_tools = catalog.llm_definitions(format).tools
    sent = discovery_definitions(catalog, discovery, format, "parametersJsonSchema", all_tools)  # type: ignore[arg-type]
    assert len(sent) > 3 and refusals(sent, format) == []


class _Catalog:
    """What discovery reads of a client's catalog, over a list of tools."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        from mcpgen.runtime.client.llm_names import assign_names

        self.tools = tools
        self.names = assign_names(str(t["name"]) for t in tools)

    def llm_names(self) -> Any:
        return self.names

    def shared_tools(self) -> list[dict[str, Any]]:
        return self.tools

    def resolve(self, name: str) -> str | None:
        return self.names.to_wire.get(name)

    def llm_definitions(self, format: Any, anthropic: Any = None, gemini_field: Any = "parametersJsonSchema") -> Any:
        return llm_definitions(self.tools, format, self.names, anthropic, gemini_field)


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_lint_errors_are_exactly_the_tools_left_out(format: Any) -> None:
    refused = set(llm_definitions(TOOLS, format).refused)
    findings = lint_tools(TOOLS, [PROVIDER[format]])
    assert {f.tool for f in findings if f.rule.severity == "error"} == refused


def test_gemini_parameters_lint_matches_its_refusals() -> None:
    refused = set(llm_definitions(TOOLS, "gemini", gemini_field="parameters").refused)
    findings = lint_tools(TOOLS, ["gemini"], "parameters")
    assert {f.tool for f in findings if f.rule.severity == "error"} == refused
