"""Checkers of function-calling definitions, written from each LLM API's request documentation
(not from mcpgen's code), for every test that says "this API accepts what mcpgen sends".

Each checker is a JSON Schema of one entry of the request's `tools` list:

- Anthropic Messages `tools[]`: name, description, input_schema, and the documented optional
  fields input_examples, defer_loading, allowed_callers, cache_control
  (https://docs.anthropic.com/en/api/messages, .../tool-use/implement-tool-use,
  .../tool-use/tool-reference, .../build-with-claude/prompt-caching);
- OpenAI Chat Completions `tools[]` and Responses `tools[]` of type function
  (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools,
  .../responses/create), and strict mode's supported schemas
  (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas);
- Gemini `FunctionDeclaration`, with `parametersJsonSchema` or with `parameters`, the OpenAPI
  subset `Schema` object (https://ai.google.dev/api/caching#FunctionDeclaration, #Schema).

What the checkers cannot know (no real API call is made): limits a provider enforces but does not
document (schema size, nesting, total definition size), how a model handles a schema it accepts,
and rules changed after the documentation these were written from (docs/how-to/llm-tools.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import jsonschema

NAME = r"^[a-zA-Z0-9_-]{1,64}$"
OBJECT_ROOT = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"const": "object"}},
}
ANTHROPIC_TOOL = {
    "type": "object",
    "required": ["name", "input_schema"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": NAME},
        "description": {"type": "string"},
        "input_schema": {**OBJECT_ROOT, "not": {"anyOf": [{"required": [k]} for k in ("oneOf", "allOf", "anyOf")]}},
        # The optional fields of a custom tool (tool reference; prompt caching).
        "input_examples": {"type": "array", "items": {"type": "object"}},
        "defer_loading": {"type": "boolean"},
        "allowed_callers": {"type": "array", "items": {"type": "string"}},
        "cache_control": {
            "type": "object",
            "required": ["type"],
            "additionalProperties": False,
            "properties": {"type": {"const": "ephemeral"}, "ttl": {"enum": ["5m", "1h"]}},
        },
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
# The declaration allows '.' and ':' too; the FunctionCall a model sends back does not.
GEMINI_NAME = {"type": "string", "pattern": r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"}
GEMINI_DECLARATION = {
    "type": "object",
    "required": ["name", "parametersJsonSchema"],
    "additionalProperties": False,
    "properties": {"name": GEMINI_NAME, "description": {"type": "string"}, "parametersJsonSchema": OBJECT_ROOT},
}
_INT64 = {"type": ["integer", "string"]}  # int64 fields: a JSON number or its decimal string
_SCHEMA_LIST = {"type": "array", "items": {"$ref": "#/$defs/schema"}}
_STRINGS = {"type": "array", "items": {"type": "string"}}
# Gemini's `Schema` object, field by field as its reference lists them.
GEMINI_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "type": {"enum": ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]},
        "format": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "nullable": {"type": "boolean"},
        "enum": _STRINGS,
        "maxItems": _INT64,
        "minItems": _INT64,
        "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/schema"}},
        "required": _STRINGS,
        "minProperties": _INT64,
        "maxProperties": _INT64,
        "minLength": _INT64,
        "maxLength": _INT64,
        "pattern": {"type": "string"},
        "example": {},
        "anyOf": _SCHEMA_LIST,
        "propertyOrdering": _STRINGS,
        "default": {},
        "items": {"$ref": "#/$defs/schema"},
        "minimum": {"type": "number"},
        "maximum": {"type": "number"},
    },
}
GEMINI_PARAMETERS_DECLARATION = {
    "$defs": {"schema": GEMINI_SCHEMA},
    "type": "object",
    "required": ["name", "parameters"],
    "additionalProperties": False,
    "properties": {
        "name": GEMINI_NAME,
        "description": {"type": "string"},
        "parameters": {
            "allOf": [{"$ref": "#/$defs/schema"}, {"required": ["type"], "properties": {"type": {"const": "OBJECT"}}}]
        },
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
# A name the model sends back in a function call: Gemini's FunctionCall takes no '.' or ':'.
CALL_NAME = {"anthropic": NAME, "openai": NAME, "openai-responses": NAME, "gemini": r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$"}


def strict_ok(node: Any) -> bool:
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
    return all(strict_ok(s) for s in subs)


def _checker(format: str, gemini_field: str) -> jsonschema.Draft202012Validator:
    schema = GEMINI_PARAMETERS_DECLARATION if format == "gemini" and gemini_field == "parameters" else CHECKERS[format]
    return jsonschema.Draft202012Validator(schema)


def refusals(
    definitions: Iterable[Any], format: str, gemini_field: str = "parametersJsonSchema"
) -> list[tuple[str, str]]:
    """(name, why) for every definition `format`'s API would refuse, or whose `strict` is not
    what strict mode's rules say; empty when the API accepts every one as it is."""
    checker = _checker(format, gemini_field)
    out: list[tuple[str, str]] = []
    for d in definitions:
        function = d.get("function", d) if isinstance(d, dict) else {}
        name = str(function.get("name"))
        error = next(iter(checker.iter_errors(d)), None)
        if error is not None:
            out.append((name, f"{error.json_path}: {error.message[:200]}"))
        elif "strict" in function and function["strict"] != strict_ok(function["parameters"]):
            out.append((name, f"strict is {function['strict']}, not what strict mode's rules say"))
        elif not re.fullmatch(CALL_NAME[format], name):
            out.append((name, "a name the model cannot call back"))
    return out
