"""The tool catalog a generated client carries: the tools verbatim, a row of models per tool,
the schema hashes drift is checked by, and where the client was generated from."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from ..core.tables import ToolRow
from .llm_names import LlmNames, assign_names
from .llm_tools import AnthropicOptions, GeminiField, LlmDefinitions, LlmFormat, llm_definitions


@dataclass
class ToolCatalog:
    """The tool catalog a client was generated from (the tools kept verbatim as JSON text)."""

    # One JSON text a tool, exactly as the server listed it (one a line in `_catalog.py`).
    tools_json: tuple[str, ...]
    # wire name -> its models and result mode
    table: dict[str, ToolRow]
    # wire name -> hash of its inputSchema + outputSchema; compared with the live server on connect
    schema_hashes: dict[str, str]
    # Python method name -> wire name (LLMs sometimes call a tool by its method name)
    method_names: dict[str, str]
    source_command: tuple[str, ...] | None = None  # `connect()` starts this again
    source_url: str | None = None  # or connects here (never the headers: tokens stay out of code)
    server_info: dict[str, Any] = field(default_factory=dict[str, Any])
    # or starts this entry of this servers config (its path relative to package_file's folder)
    source_config: tuple[str, str] | None = None
    package_file: str | None = None
    _parsed: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]], repr=False)
    _names: list[LlmNames] = field(default_factory=list[LlmNames], repr=False)

    def tools(self) -> list[dict[str, Any]]:
        """The original tool objects, exactly as the server listed them (a fresh copy)."""
        return copy.deepcopy(self.shared_tools())

    def shared_tools(self) -> list[dict[str, Any]]:
        """The same, parsed once and shared: for readers that never change them."""
        if not self._parsed:
            self._parsed.extend(json.loads("[" + ",".join(self.tools_json) + "]"))  # one parse for all
        return self._parsed

    def llm_names(self) -> LlmNames:
        """Every tool's name for each LLM API (llm_names.py), worked out once."""
        if not self._names:
            self._names.append(assign_names(self.table, self.method_names))
        return self._names[0]

    def llm_definitions(
        self,
        format: LlmFormat = "anthropic",
        anthropic: AnthropicOptions | None = None,
        gemini_field: GeminiField = "parametersJsonSchema",
    ) -> LlmDefinitions:
        """Function-calling definitions of every tool `format`'s API accepts (llm_tools.py)."""
        return llm_definitions(self.tools(), format, self.llm_names(), anthropic, gemini_field)

    def tool_definitions(self, format: LlmFormat = "anthropic") -> list[Any]:
        """The definitions alone, with no provider options."""
        return self.llm_definitions(format).tools

    def resolve(self, name: str) -> str | None:
        """The wire name for a wire name, a generated method name or a name given to an LLM
        API (llm_names.py); None if unknown."""
        if name in self.table:
            return name
        return self.method_names.get(name) or self.llm_names().to_wire.get(name)
