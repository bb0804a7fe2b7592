"""Tool definitions in the function-calling shapes of LLM APIs, read as MCP tools.

The same contract (a name, a description, a JSON Schema of the arguments) under other keys: the
shapes mcpgen's own `tool_definitions()` emits (runtime/client/llm_tools.py) and people keep in
files. Each is turned into an MCP tool object, the rest of the object's keys dropped:

- OpenAI Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`
- OpenAI Responses:        `{"type": "function", "name", "description", "parameters"}`
- Anthropic Messages:      `{"name", "description", "input_schema"}`
- Gemini:                  `{"functionDeclarations": [{"name", "description", "parametersJsonSchema"
                           or "parameters"}]}` (a declaration on its own too)

A missing schema (OpenAI allows a function without parameters) is the empty object schema. A
Gemini `parameters` is its OpenAPI subset: read as JSON Schema, so its upper-case types
(`"STRING"`) are refused by the schema check like any other invalid schema.
"""

from __future__ import annotations

from typing import Any

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def _mcp_tool(name: Any, description: Any, schema: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name}
    if description is not None:
        tool["description"] = description
    tool["inputSchema"] = NO_ARGUMENTS if schema is None else schema
    return tool


def foreign_shape(raw: Any) -> str | None:
    """Which LLM API's shape `raw` is in (None: an MCP tool, or nothing known)."""
    if not isinstance(raw, dict) or "inputSchema" in raw:
        return None
    if raw.get("type") == "function" and isinstance(raw.get("function"), dict):
        return "openai"
    if raw.get("type") == "function" and "name" in raw:
        return "openai-responses"
    if "input_schema" in raw and "name" in raw:
        return "anthropic"
    if isinstance(raw.get("functionDeclarations"), list):
        return "gemini-tool"
    if "name" in raw and ("parametersJsonSchema" in raw or "parameters" in raw):
        return "gemini"
    return None


def as_mcp_tools(raw: Any) -> list[Any]:
    """`raw` as MCP tool objects: itself when it is not in a foreign shape (a Gemini tool object
    holds several declarations)."""
    shape = foreign_shape(raw)
    if shape is None:
        return [raw]
    if shape == "openai":
        fn = raw["function"]
        return [_mcp_tool(fn.get("name"), fn.get("description"), fn.get("parameters"))]
    if shape == "openai-responses":
        return [_mcp_tool(raw["name"], raw.get("description"), raw.get("parameters"))]
    if shape == "anthropic":
        return [_mcp_tool(raw["name"], raw.get("description"), raw["input_schema"])]
    if shape == "gemini-tool":
        return [tool for declaration in raw["functionDeclarations"] for tool in as_mcp_tools(declaration)]
    schema = raw.get("parametersJsonSchema", raw.get("parameters"))
    return [_mcp_tool(raw["name"], raw.get("description"), schema)]


def read_tools(items: list[Any]) -> list[Any]:
    """Every item of a tools list, foreign shapes read as MCP tools."""
    return [tool for item in items for tool in as_mcp_tools(item)]
