"""tool_definitions(format=...) gives each LLM API's documented function-calling shape, the
schema passed on untouched, through a generated client (async and sync alike)."""

from __future__ import annotations

from typing import Any

import pytest
from generation import GenerateFn

from mcpgen.runtime.client.llm_tools import LLM_FORMATS, llm_tool

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "IANA city"}},
    "required": ["city"],
}
TOOL = {"name": "get-forecast", "title": "Forecast", "description": "Forecast for a city.", "inputSchema": SCHEMA}

# The request shapes each provider documents for one function tool.
DOCUMENTED = {
    # Anthropic Messages API: tools=[{"name", "description", "input_schema"}]
    "anthropic": {"name": "get-forecast", "description": "Forecast for a city.", "input_schema": SCHEMA},
    # OpenAI Chat Completions: tools=[{"type": "function", "function": {"name", "description", "parameters"}}]
    "openai": {
        "type": "function",
        "function": {
            "name": "get-forecast",
            "description": "Forecast for a city.",
            "parameters": SCHEMA,
            "strict": False,
        },
    },
    # OpenAI Responses API: tools=[{"type": "function", "name", "description", "parameters"}]
    "openai-responses": {
        "type": "function",
        "name": "get-forecast",
        "description": "Forecast for a city.",
        "parameters": SCHEMA,
        "strict": False,  # the object is open (no additionalProperties: false): not strict
    },
    # Gemini API: tools=[{"functionDeclarations": [{"name", "description", "parametersJsonSchema"}]}]
    "gemini": {"name": "get-forecast", "description": "Forecast for a city.", "parametersJsonSchema": SCHEMA},
}


@pytest.mark.parametrize("format", LLM_FORMATS)
def test_each_format_is_the_documented_shape(format: Any) -> None:
    assert llm_tool(TOOL, format) == DOCUMENTED[format]


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown format 'claude'"):
        llm_tool(TOOL, "claude")  # type: ignore[arg-type]


def test_title_stands_in_for_a_missing_description() -> None:
    bare = {"name": "t", "title": "Title only", "inputSchema": {"type": "object"}}
    assert llm_tool(bare, "openai")["function"]["description"] == "Title only"  # type: ignore[typeddict-item]


def test_generated_client_offers_every_format(generate: GenerateFn) -> None:
    pkg = generate({"tools": [TOOL]})
    client = pkg.AsyncClient.__new__(pkg.AsyncClient)
    assert client.tool_definitions() == [DOCUMENTED["anthropic"]]  # the default
    for format in LLM_FORMATS:
        assert client.tool_definitions(format) == [DOCUMENTED[format]]
        assert client.tool_definitions(format=format)[0] == DOCUMENTED[format]


@pytest.mark.parametrize("format", LLM_FORMATS)
def test_a_root_type_is_added_only_where_it_changes_nothing_else(format: Any) -> None:
    """`{"$ref": "#"}` applies the root to nested values: a type added there would refuse
    `{"foo": false}`, which the server's own schema accepts; such a schema is refused instead."""
    from mcpgen.runtime.client.llm_schemas import Refused

    by_pointer = {"properties": {"foo": {"$ref": "#/$defs/any"}}, "$defs": {"any": {}}}
    made: Any = llm_tool({"name": "t", "inputSchema": by_pointer}, format)
    sent = made.get("input_schema") or made.get("parametersJsonSchema") or made.get("parameters") or made["function"]
    assert sent.get("type", sent.get("parameters", {}).get("type")) == "object"
    for recursive in ({"properties": {"foo": {"$ref": "#"}}}, {"items": {"$dynamicRef": "#node"}}):
        with pytest.raises(Refused, match="refers to its own root: adding the type would change what it accepts"):
            llm_tool({"name": "t", "inputSchema": recursive}, format)
