"""`tool_definitions()` and `refused_tools()`: one typed surface for the async and the sync client.

Both generated clients inherit this mixin; each says where its catalog is (`_llm_catalog`).
The overloads give each format its own definition type and its own options: Anthropic's
`input_examples`, `defer_loading`, `allowed_callers` and `cache_control`, Gemini's
`gemini_field`; and `discovery` for each (progressive discovery, llm_discovery.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from .llm_discovery import Discovery, discovery_definitions
from .llm_tools import (
    AnthropicOptions,
    AnthropicTool,
    GeminiField,
    GeminiFunctionDeclaration,
    LlmFormat,
    OpenAIResponsesTool,
    OpenAITool,
)

if TYPE_CHECKING:
    from .catalog import ToolCatalog


class LlmToolsMixin:
    """Function-calling definitions of a client's tools, for each LLM API."""

    def _llm_catalog(self) -> ToolCatalog:
        raise NotImplementedError

    def _llm_discovery(self) -> Discovery:
        """This host's progressive-discovery state (one per client, shared by its option views)."""
        raise NotImplementedError

    # A sync client reads its async client's catalog and discovery state, a multi-server client
    # each server client's: through these, declared here, so pyright's reportPrivateUsage (a
    # protected member is for its class and subclasses) holds without a public member a tool
    # method could collide with.
    @staticmethod
    def _llm_catalog_of(host: LlmToolsMixin) -> ToolCatalog:
        return host._llm_catalog()

    @staticmethod
    def _llm_discovery_of(host: LlmToolsMixin) -> Discovery:
        return host._llm_discovery()

    @overload
    def tool_definitions(
        self,
        format: Literal["anthropic"] = ...,
        *,
        input_examples: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
        defer_loading: bool | Collection[str] = False,
        allowed_callers: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        cache_control: bool | Mapping[str, Any] = False,
        discovery: bool = False,
    ) -> list[AnthropicTool]: ...
    @overload
    def tool_definitions(self, format: Literal["openai"], *, discovery: bool = False) -> list[OpenAITool]: ...
    @overload
    def tool_definitions(
        self, format: Literal["openai-responses"], *, discovery: bool = False
    ) -> list[OpenAIResponsesTool]: ...
    @overload
    def tool_definitions(
        self,
        format: Literal["gemini"],
        *,
        gemini_field: GeminiField = "parametersJsonSchema",
        discovery: bool = False,
    ) -> list[GeminiFunctionDeclaration]: ...
    def tool_definitions(
        self,
        format: LlmFormat = "anthropic",
        *,
        input_examples: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
        defer_loading: bool | Collection[str] = False,
        allowed_callers: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        cache_control: bool | Mapping[str, Any] = False,
        gemini_field: GeminiField = "parametersJsonSchema",
        discovery: bool = False,
    ) -> list[Any]:
        """The tools as function-calling definitions an LLM API accepts: "anthropic" (Messages
        API, the default), "openai" (Chat Completions), "openai-responses" (Responses API) or
        "gemini" (function declarations). Names are mapped to ones the API allows (`dispatch`
        maps them back); a tool the API would refuse is left out (`refused_tools` says why).

        Anthropic only: `input_examples` (wire name -> example arguments, each checked against
        the tool's schema), `defer_loading` (True, or the wire names to defer), `allowed_callers`
        (for every tool, or wire name -> callers), `cache_control` (a breakpoint on the last
        definition: True for `{"type": "ephemeral"}`, or the object to send). Gemini only:
        `gemini_field`, "parametersJsonSchema" (JSON Schema, the default) or "parameters"
        (the OpenAPI subset; tools outside it are refused).

        `discovery=True` (progressive discovery, llm_discovery.py): the search_tools,
        describe_tool and load_tools meta-tools, which `dispatch` answers, and only the tools
        the model loaded through them (for Anthropic, plus the `defer_loading` ones, deferred)."""
        anthropic = None
        if format == "anthropic":
            anthropic = AnthropicOptions(
                input_examples=input_examples or {},
                defer_loading=defer_loading,
                allowed_callers=allowed_callers,
                cache_control=cache_control,
            )
        tools = self._llm_catalog().llm_definitions(format, anthropic, gemini_field).tools
        if not discovery:
            return tools
        return discovery_definitions(self._llm_catalog(), self._llm_discovery(), format, gemini_field, tools)

    def refused_tools(
        self, format: LlmFormat = "anthropic", *, gemini_field: GeminiField = "parametersJsonSchema"
    ) -> dict[str, str]:
        """The tools `tool_definitions(format)` leaves out, each with why the API would refuse it."""
        return self._llm_catalog().llm_definitions(format, None, gemini_field).refused
