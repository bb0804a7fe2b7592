"""A client's tools in the shapes LLM APIs take as function-calling definitions.

Each shape is what that provider documents for its request's `tools` list:

- "anthropic": Anthropic Messages API, `tools=[{"name", "description", "input_schema"}]`;
- "openai": OpenAI Chat Completions, `tools=[{"type": "function", "function": {"name",
  "description", "parameters"}}]`;
- "openai-responses": OpenAI Responses API, `tools=[{"type": "function", "name",
  "description", "parameters"}]`;
- "gemini": Gemini API function declarations, `tools=[{"functionDeclarations": [...]}]`, each
  `{"name", "description", "parametersJsonSchema"}` (the JSON Schema field, so no conversion to
  Gemini's OpenAPI subset is needed).

The input schema is passed on as the server declared it; `dispatch` checks the model's
arguments against it exactly, whatever the provider enforced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

LlmFormat = Literal["anthropic", "openai", "openai-responses", "gemini"]
LLM_FORMATS: tuple[LlmFormat, ...] = ("anthropic", "openai", "openai-responses", "gemini")


class AnthropicTool(TypedDict):
    name: str
    description: str
    input_schema: dict[str, Any]


class OpenAIFunction(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]


class OpenAITool(TypedDict):
    type: Literal["function"]
    function: OpenAIFunction


class OpenAIResponsesTool(TypedDict):
    type: Literal["function"]
    name: str
    description: str
    parameters: dict[str, Any]


GeminiFunctionDeclaration = TypedDict(
    "GeminiFunctionDeclaration", {"name": str, "description": str, "parametersJsonSchema": dict[str, Any]}
)

LlmTool = AnthropicTool | OpenAITool | OpenAIResponsesTool | GeminiFunctionDeclaration


def llm_tool(tool: Mapping[str, Any], format: LlmFormat) -> LlmTool:
    """One MCP tool definition in `format`'s shape."""
    name = str(tool["name"])
    description = str(tool.get("description") or tool.get("title") or "")
    schema = tool.get("inputSchema")
    parameters: dict[str, Any] = dict(schema) if isinstance(schema, Mapping) else {"type": "object"}
    if format == "anthropic":
        return AnthropicTool(name=name, description=description, input_schema=parameters)
    if format == "openai":
        return OpenAITool(
            type="function", function=OpenAIFunction(name=name, description=description, parameters=parameters)
        )
    if format == "openai-responses":
        return OpenAIResponsesTool(type="function", name=name, description=description, parameters=parameters)
    if format == "gemini":
        return GeminiFunctionDeclaration(name=name, description=description, parametersJsonSchema=parameters)
    raise ValueError(f"unknown format {format!r}: expected one of {', '.join(LLM_FORMATS)}")
