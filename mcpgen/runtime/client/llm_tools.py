"""A client's tools in the shapes LLM APIs take as function-calling definitions.

Each shape is what that provider documents for its request's `tools` list:

- "anthropic": Anthropic Messages API, `tools=[{"name", "description", "input_schema"}]`, with
  the optional `input_examples`, `defer_loading`, `allowed_callers` and `cache_control`;
- "openai": OpenAI Chat Completions, `tools=[{"type": "function", "function": {"name",
  "description", "parameters", "strict"}}]`;
- "openai-responses": OpenAI Responses API, `tools=[{"type": "function", "name",
  "description", "parameters", "strict"}]`;
- "gemini": Gemini API function declarations, `tools=[{"functionDeclarations": [...]}]`, each
  `{"name", "description", "parametersJsonSchema"}` (JSON Schema; or `parameters`, its
  OpenAPI subset, when asked for).

Every definition is one the API accepts as it is: names follow `llm_names` (dispatch maps them
back), a schema is rewritten only where the rewrite accepts the same arguments, and a tool the
API would refuse is left out with a one-line reason (`LlmDefinitions.refused`). `strict` is true
exactly when the schema qualifies for OpenAI's strict mode as it is: optional properties are
never turned into required nullable ones (that is another contract). `dispatch` checks the
model's arguments against the server's own schema exactly, whatever the provider enforced.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Union

from .llm_names import RULE_OF_FORMAT, LlmNames, assign_names
from .llm_schemas import Refused, gemini_parameters, object_root, strict_problem

LlmFormat = Literal["anthropic", "openai", "openai-responses", "gemini"]
LLM_FORMATS: tuple[LlmFormat, ...] = ("anthropic", "openai", "openai-responses", "gemini")
GeminiField = Literal["parametersJsonSchema", "parameters"]


class _AnthropicToolBase(TypedDict):
    name: str
    description: str
    input_schema: dict[str, Any]


class AnthropicTool(_AnthropicToolBase, total=False):
    input_examples: list[dict[str, Any]]
    defer_loading: bool
    allowed_callers: list[str]
    cache_control: dict[str, Any]


class OpenAIFunction(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class OpenAITool(TypedDict):
    type: Literal["function"]
    function: OpenAIFunction


class OpenAIResponsesTool(TypedDict):
    type: Literal["function"]
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class _GeminiBase(TypedDict):
    name: str
    description: str


class GeminiFunctionDeclaration(_GeminiBase, total=False):
    parametersJsonSchema: dict[str, Any]
    parameters: dict[str, Any]


LlmTool = Union[AnthropicTool, OpenAITool, OpenAIResponsesTool, GeminiFunctionDeclaration]


@dataclass(frozen=True)
class AnthropicOptions:
    """What `tool_definitions("anthropic", ...)` adds to the definitions (wire names as keys).

    `defer_loading`: True for every tool, or the tools to defer (found through Anthropic's tool
    search); `allowed_callers`: for every tool (a list) or per tool (a mapping);
    `cache_control`: the breakpoint put on the last definition (True: `{"type": "ephemeral"}`).
    """

    input_examples: Mapping[str, Sequence[Mapping[str, Any]]] = field(
        default_factory=dict[str, Sequence[Mapping[str, Any]]]
    )
    defer_loading: bool | Collection[str] = False
    allowed_callers: Sequence[str] | Mapping[str, Sequence[str]] | None = None
    cache_control: bool | Mapping[str, Any] = False


@dataclass(frozen=True)
class LlmDefinitions:
    """The definitions one API accepts, and why the others were left out (wire name -> reason)."""

    tools: list[Any]
    refused: dict[str, str]


def llm_definitions(
    tools: Sequence[Mapping[str, Any]],
    format: LlmFormat,
    names: LlmNames | None = None,
    anthropic: AnthropicOptions | None = None,
    gemini_field: GeminiField = "parametersJsonSchema",
) -> LlmDefinitions:
    """Every tool the API accepts, in `format`'s shape, named by `names` (default: these tools' own)."""
    _known(format)
    names = names or assign_names(str(t["name"]) for t in tools)
    out: list[Any] = []
    refused: dict[str, str] = {}
    for tool in tools:
        wire = str(tool["name"])
        try:
            out.append(_definition(tool, format, names.name(wire, format), anthropic, gemini_field))
        except Refused as exc:
            refused[wire] = str(exc)
    if format == "anthropic" and anthropic is not None and anthropic.cache_control and out:
        given = anthropic.cache_control
        out[-1]["cache_control"] = dict(given) if isinstance(given, Mapping) else {"type": "ephemeral"}
    return LlmDefinitions(out, refused)


def llm_tool(tool: Mapping[str, Any], format: LlmFormat, name: str | None = None) -> LlmTool:
    """One MCP tool definition in `format`'s shape (Refused if the API would refuse it)."""
    _known(format)
    return _definition(tool, format, name or assign_names([str(tool["name"])]).name(str(tool["name"]), format))


def definition_name(definition: Mapping[str, Any], format: LlmFormat) -> str:
    """The name a definition of `format`'s shape gives its tool."""
    return str(definition["function"]["name"] if format == "openai" else definition["name"])


def renamed(definition: Mapping[str, Any], format: LlmFormat, name: str) -> dict[str, Any]:
    """The same definition under another name (one the API accepts)."""
    if format == "openai":
        return {**definition, "function": {**definition["function"], "name": name}}
    return {**definition, "name": name}


def _known(format: str) -> None:
    if format not in LLM_FORMATS:
        raise ValueError(f"unknown format {format!r}: expected one of {', '.join(LLM_FORMATS)}")


def _definition(
    tool: Mapping[str, Any],
    format: LlmFormat,
    name: str,
    anthropic: AnthropicOptions | None = None,
    gemini_field: GeminiField = "parametersJsonSchema",
) -> LlmTool:
    description = str(tool.get("description") or tool.get("title") or "")
    parameters = dict(object_root(tool.get("inputSchema"), RULE_OF_FORMAT[format]))
    if format == "anthropic":
        made = AnthropicTool(name=name, description=description, input_schema=parameters)
        return _with_anthropic_options(made, str(tool["name"]), anthropic) if anthropic else made
    if format == "openai":
        function = OpenAIFunction(
            name=name, description=description, parameters=parameters, strict=strict_problem(parameters) is None
        )
        return OpenAITool(type="function", function=function)
    if format == "openai-responses":
        strict = strict_problem(parameters) is None
        return OpenAIResponsesTool(
            type="function", name=name, description=description, parameters=parameters, strict=strict
        )
    if gemini_field == "parameters":
        return GeminiFunctionDeclaration(name=name, description=description, parameters=gemini_parameters(parameters))
    return GeminiFunctionDeclaration(name=name, description=description, parametersJsonSchema=parameters)


def _with_anthropic_options(made: AnthropicTool, wire: str, options: AnthropicOptions) -> AnthropicTool:
    examples = options.input_examples.get(wire)
    if examples:
        made["input_examples"] = [_checked_example(dict(e), made["input_schema"], wire) for e in examples]
    deferred = options.defer_loading
    if deferred is True or (not isinstance(deferred, bool) and wire in deferred):
        made["defer_loading"] = True
    callers = options.allowed_callers
    if isinstance(callers, Mapping):
        callers = callers.get(wire)
    if callers is not None:
        made["allowed_callers"] = list(callers)
    return made


def _checked_example(example: dict[str, Any], schema: dict[str, Any], wire: str) -> dict[str, Any]:
    """An input example the tool's schema accepts (Anthropic refuses a request with one it does not)."""
    from ..core.validation import compile_problems

    problems = compile_problems(schema)(example)
    if problems:
        raise ValueError(f"input example for tool {wire!r} does not match its inputSchema: {problems[0]}")
    return example
