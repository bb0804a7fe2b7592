"""What each API refuses is left out with its reason, rewrites keep the accepted arguments,
`strict` is true exactly when OpenAI's strict mode takes the schema as it is, and the Anthropic
and Gemini options land where their APIs document them."""

from __future__ import annotations

from typing import Any

import pytest

from mcpgen.runtime.client.llm_tools import AnthropicOptions, llm_definitions

CLOSED: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "pattern": "^[A-Z]"}, "days": {"type": ["integer", "null"]}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


def _tool(name: str = "t", **schema: Any) -> dict[str, Any]:
    return {"name": name, "description": "d", "inputSchema": schema}


def _strict(schema: dict[str, Any]) -> bool:
    chat = llm_definitions([_tool(**schema)], "openai").tools[0]["function"]["strict"]
    responses = llm_definitions([_tool(**schema)], "openai-responses").tools[0]["strict"]
    assert chat == responses
    return bool(chat)


def test_a_closed_schema_with_every_property_required_is_strict() -> None:
    assert _strict(CLOSED)


@pytest.mark.parametrize(
    "change",
    [
        {"required": ["city"]},  # 'days' optional: never made nullable-required behind the user's back
        {"additionalProperties": True},
        {"properties": {**CLOSED["properties"], "city": {"type": "string", "format": "uri"}}},
        {"properties": {**CLOSED["properties"], "city": {"type": "string", "minLength": 1}}},
        {"properties": {**CLOSED["properties"], "days": {"type": "object", "properties": {}}}},
        {"properties": {**CLOSED["properties"], "days": {"allOf": [{"type": "integer"}]}}},
    ],
    ids=["optional", "open", "format", "minLength", "open-nested", "allOf"],
)
def test_a_schema_strict_mode_would_refuse_is_sent_without_strict(change: dict[str, Any]) -> None:
    assert not _strict({**CLOSED, **change})


@pytest.mark.parametrize(
    ("schema", "refused_by"),
    [
        ({"type": "object", "anyOf": [{"required": ["a"]}]}, {"anthropic", "openai", "openai-responses"}),
        ({"type": "object", "enum": [{}]}, {"openai", "openai-responses"}),
        ({"type": "array"}, {"anthropic", "openai", "openai-responses", "gemini"}),
    ],
)
def test_a_top_level_an_api_refuses_leaves_the_tool_out_with_a_reason(schema: Any, refused_by: set[str]) -> None:
    for format in ("anthropic", "openai", "openai-responses", "gemini"):
        made = llm_definitions([_tool("bad", **schema), _tool("good", type="object")], format)  # type: ignore[arg-type]
        assert len(made.tools) == (1 if format in refused_by else 2)
        if format in refused_by:
            assert list(made.refused) == ["bad"]
            assert "top level" in made.refused["bad"] or "top-level type" in made.refused["bad"]


def test_a_missing_top_level_type_becomes_object() -> None:
    # The arguments of a function call are always an object: the same ones are accepted.
    made = llm_definitions([_tool(properties={"a": {"type": "string"}})], "anthropic").tools[0]
    assert made["input_schema"] == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_anthropic_options_land_on_the_definitions() -> None:
    tools = [_tool("a", **CLOSED), _tool("b.c", type="object")]
    options = AnthropicOptions(
        input_examples={"a": [{"city": "Oslo", "days": None}]},
        defer_loading={"b.c"},
        allowed_callers={"a": ["code_execution_20250825"]},
        cache_control=True,
    )
    first, last = llm_definitions(tools, "anthropic", anthropic=options).tools
    assert first["input_examples"] == [{"city": "Oslo", "days": None}]
    assert first["allowed_callers"] == ["code_execution_20250825"]
    assert "defer_loading" not in first and "cache_control" not in first
    assert last == {
        "name": "b_c",
        "description": "d",
        "input_schema": {"type": "object"},
        "defer_loading": True,
        "cache_control": {"type": "ephemeral"},
    }


def test_an_input_example_the_schema_refuses_is_an_error() -> None:
    options = AnthropicOptions(input_examples={"a": [{"city": 3, "days": None}]})
    with pytest.raises(ValueError, match="input example for tool 'a' does not match its inputSchema: /city"):
        llm_definitions([_tool("a", **CLOSED)], "anthropic", anthropic=options)


def test_gemini_sends_json_schema_by_default_and_the_openapi_subset_when_asked() -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **CLOSED}
    default = llm_definitions([_tool(**schema)], "gemini").tools[0]
    assert default["parametersJsonSchema"] == schema
    subset = llm_definitions([_tool(**{k: v for k, v in schema.items() if k != "additionalProperties"})], "gemini",
                             gemini_field="parameters").tools[0]  # fmt: skip
    assert subset["parameters"]["properties"]["days"] == {"type": "INTEGER", "nullable": True}
    assert "$schema" not in subset["parameters"]
    refused = llm_definitions([_tool(**schema)], "gemini", gemini_field="parameters").refused
    assert refused == {
        "t": "'additionalProperties' is not supported at /additionalProperties (Gemini's `parameters` subset)"
    }
