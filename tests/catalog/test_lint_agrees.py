"""Lint and tool_definitions agree, and every definition sent passes a checker written from each
API's documented request schema: over the recorded captures and the JSON Schema Test Suite.

What the checker cannot know: limits a provider enforces but does not document (schema size,
nesting, total definition size), how a model handles a schema it accepts, and rules changed
after the documentation these were written from (docs/how-to/llm-tools.md links it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen.catalog.portability import lint_tools
from mcpgen.runtime.client.llm_tools import llm_definitions

LIVE = Path("/work/shared/fixtures/live")
JSTS = Path("/work/shared/jsts/tests/draft2020-12")
NAME = r"^[a-zA-Z0-9_-]{1,64}$"
OBJECT_ROOT = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"const": "object"}},
}
# Written from the providers' request documentation (not from mcpgen's code).
ANTHROPIC_TOOL = {
    "type": "object",
    "required": ["name", "input_schema"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": NAME},
        "description": {"type": "string"},
        "input_schema": {**OBJECT_ROOT, "not": {"anyOf": [{"required": [k]} for k in ("oneOf", "allOf", "anyOf")]}},
    },
}
OPENAI_PARAMETERS = {
    **OBJECT_ROOT,
    "not": {"anyOf": [{"required": [k]} for k in ("oneOf", "anyOf", "allOf", "enum", "not")]},
}
OPENAI_FUNCTION = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": NAME},
        "description": {"type": "string"},
        "parameters": OPENAI_PARAMETERS,
        "strict": {"type": "boolean"},
    },
}
OPENAI_CHAT_TOOL = {
    "type": "object",
    "required": ["type", "function"],
    "additionalProperties": False,
    "properties": {"type": {"const": "function"}, "function": {**OPENAI_FUNCTION, "additionalProperties": False}},
}
OPENAI_RESPONSES_TOOL = {
    **OPENAI_FUNCTION,
    "required": ["type", "name", "parameters", "strict"],
    "additionalProperties": False,
    "properties": {**OPENAI_FUNCTION["properties"], "type": {"const": "function"}},
}
GEMINI_DECLARATION = {
    "type": "object",
    "required": ["name", "parametersJsonSchema"],
    "additionalProperties": False,
    "properties": {
        # The declaration allows '.' and ':' too; the FunctionCall a model sends back does not.
        "name": {"type": "string", "pattern": r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"},
        "description": {"type": "string"},
        "parametersJsonSchema": OBJECT_ROOT,
    },
}
CHECKERS = {
    "anthropic": ANTHROPIC_TOOL,
    "openai": OPENAI_CHAT_TOOL,
    "openai-responses": OPENAI_RESPONSES_TOOL,
    "gemini": GEMINI_DECLARATION,
}
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
    "definitions", "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum",
    "minimum", "exclusiveMinimum", "minItems", "maxItems",
}  # fmt: skip


def _strict_ok(node: Any) -> bool:
    """OpenAI's Supported schemas: closed objects, all required, the supported keywords only."""
    if not isinstance(node, dict) or set(node) - STRICT_KEYWORDS:
        return False
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties", {})
        if node.get("additionalProperties") is not False or set(props) != set(node.get("required", [])):
            return False
    subs = [*node.get("properties", {}).values(), *node.get("$defs", {}).values(), *node.get("anyOf", [])]
    if "items" in node:
        subs.append(node["items"])
    return all(_strict_ok(s) for s in subs)


def _tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for capture in sorted(LIVE.glob("*.raw.json")):
        listed = json.loads(capture.read_text(encoding="utf-8"))["tools"]
        tools += listed["tools"] if isinstance(listed, dict) else listed
    for path in sorted(JSTS.glob("*.json")):
        for i, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            tools.append({"name": f"{path.stem}.{i}", "inputSchema": group["schema"]})
    return tools


TOOLS = _tools()
PROVIDER = {"anthropic": "anthropic", "openai": "openai", "openai-responses": "openai", "gemini": "gemini"}


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_every_definition_sent_passes_the_documented_checker(format: Any) -> None:
    made = llm_definitions(TOOLS, format)
    checker = jsonschema.Draft202012Validator(CHECKERS[format])
    bad = [d for d in made.tools if not checker.is_valid(d)]
    assert not bad, bad[:2]
    assert len(made.tools) > 100 and made.refused  # the suite has schemas every API refuses
    for d in made.tools:
        function = d.get("function", d)
        if "strict" in function:
            assert function["strict"] == _strict_ok(function["parameters"]), function
        if format != "gemini":
            assert re.fullmatch(NAME, function["name"])


@pytest.mark.parametrize("format", sorted(CHECKERS))
def test_lint_errors_are_exactly_the_tools_left_out(format: Any) -> None:
    refused = set(llm_definitions(TOOLS, format).refused)
    findings = lint_tools(TOOLS, [PROVIDER[format]])
    assert {f.tool for f in findings if f.rule.severity == "error"} == refused


def test_gemini_parameters_lint_matches_its_refusals() -> None:
    refused = set(llm_definitions(TOOLS, "gemini", gemini_field="parameters").refused)
    findings = lint_tools(TOOLS, ["gemini"], "parameters")
    assert {f.tool for f in findings if f.rule.severity == "error"} == refused
