"""Progressive discovery: three meta-tools that let a model find and load a big catalog's tools.

`tool_definitions(format, discovery=True)` hands a model the meta-tools below and the tools it
has loaded so far, instead of every definition; `dispatch()` answers the meta-tools:

- `search_tools {"query"}`: the matching tools, `[{"name", "summary"}]` (tool_search.py: the
  same search as code mode's `search_tools()`), names as this API knows them;
- `describe_tool {"name"}`: the tool's definition in this API's shape;
- `load_tools {"names"}`: those tools join the next `tool_definitions(..., discovery=True)`.

The state (which API the host asked for last, which tools are loaded) is one `Discovery` per
client, bounded: at most MAX_LOADED tools stay loaded, the least recently loaded goes first.
The meta-tools' names keep to every API's name rule; one a tool of the catalog already answers
to gets a '_' in front until it is free, so a name still means one tool. What the model sends
is untrusted: names are looked up, never evaluated; lists and queries are cut to their bounds.
"""

from __future__ import annotations

import difflib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.jsonrpc import is_array, is_object
from ..core.results import ToolResult
from .llm_tools import GeminiField, LlmFormat, definition_name, llm_definitions
from .tool_search import rank, summary_of

if TYPE_CHECKING:
    from .catalog import ToolCatalog

MAX_LOADED = 32  # tools a host keeps loaded at once
MAX_LOAD_AT_ONCE = 10  # names one load_tools call may carry

SEARCH, DESCRIBE, LOAD = "search_tools", "describe_tool", "load_tools"


def _meta_tool(name: str, description: str, argument: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A meta-tool as an MCP tool definition: one required argument, nothing else, read-only."""
    input_schema = {
        "type": "object",
        "properties": {argument: schema},
        "required": [argument],
        "additionalProperties": False,
    }
    return {
        "name": name,
        "description": description,
        "inputSchema": input_schema,
        "annotations": {"readOnlyHint": True},
    }


# The meta-tools as MCP tool definitions: they go through the same shaping as every tool, so
# each API gets them in its own shape (and OpenAI's strict mode: every property is required).
META_TOOLS: Mapping[str, dict[str, Any]] = {
    SEARCH: _meta_tool(
        SEARCH,
        "Search this host's tools by a few keywords; answers the matching tools' names and one-line "
        "summaries. Call load_tools with the names you need, then call them.",
        "query",
        {"type": "string", "description": "keywords, e.g. 'weather forecast'"},
    ),
    DESCRIBE: _meta_tool(
        DESCRIBE,
        "The full definition of one tool (its description and argument schema), by the name search_tools gave.",
        "name",
        {"type": "string", "description": "a tool name from search_tools"},
    ),
    LOAD: _meta_tool(
        LOAD,
        f"Make tools callable: from your next turn they are in your tool list (at most {MAX_LOAD_AT_ONCE} "
        f"at once; {MAX_LOADED} stay loaded, the oldest go first).",
        "names",
        {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LOAD_AT_ONCE, "description": "tool names"},
    ),
}


def meta_names(taken: Callable[[str], bool]) -> dict[str, str]:
    """Meta-tool -> the name it is sent as: its own, or with '_' in front until no tool holds it."""
    out: dict[str, str] = {}
    for meta in META_TOOLS:
        name = meta
        while taken(name):
            name = "_" + name
        out[meta] = name[:64]
    return out


@dataclass
class Discovery:
    """One host's discovery state: the API it asked for last and the tools it loaded (bounded)."""

    format: LlmFormat = "anthropic"
    gemini_field: GeminiField = "parametersJsonSchema"
    loaded: OrderedDict[str, None] = field(default_factory=OrderedDict[str, None])  # wire names, oldest first

    def load(self, wires: list[str]) -> None:
        for wire in wires:
            self.loaded.pop(wire, None)
            self.loaded[wire] = None
        while len(self.loaded) > MAX_LOADED:
            self.loaded.popitem(last=False)

    def meta_definitions(self, catalog: ToolCatalog) -> list[Any]:
        """The three meta-tools in this API's shape, under the names `meta_names` gives them."""
        names = meta_names(lambda name: catalog.resolve(name) is not None)
        tools = [{**tool, "name": names[meta]} for meta, tool in META_TOOLS.items()]
        return llm_definitions(_for_api(tools, self.format), self.format, gemini_field=self.gemini_field).tools

    def meta_of(self, catalog: ToolCatalog, name: str) -> str | None:
        """Which meta-tool `name` calls (None: not a meta-tool)."""
        names = meta_names(lambda n: catalog.resolve(n) is not None)
        return next((meta for meta, sent in names.items() if sent == name), None)

    def answer(self, catalog: ToolCatalog, meta: str, arguments: Mapping[str, Any]) -> str:
        """What a meta-tool call answers the model (JSON text); ValueError: a call to word back."""
        if meta == SEARCH:
            return json.dumps(self._search(catalog, _text_argument(arguments, "query")))
        if meta == DESCRIBE:
            wire = self._known(catalog, _text_argument(arguments, "name"))
            return json.dumps(self._definitions(catalog, [wire])[0])
        names = arguments.get("names")
        if not is_array(names) or not all(isinstance(n, str) for n in names):
            raise ValueError("'names' must be a list of tool names")
        if len(names) > MAX_LOAD_AT_ONCE:
            raise ValueError(f"at most {MAX_LOAD_AT_ONCE} names at once")
        wires = [self._known(catalog, n) for n in names]
        self.load(wires)
        shown = [self._name(catalog, w) for w in wires]
        return json.dumps({"loaded": shown, "note": "callable from your next turn"})

    def _name(self, catalog: ToolCatalog, wire: str) -> str:
        return catalog.llm_names().name(wire, self.format)

    def _definitions(self, catalog: ToolCatalog, wires: list[str]) -> list[Any]:
        tools = [t for t in catalog.shared_tools() if t.get("name") in wires]
        return llm_definitions(tools, self.format, catalog.llm_names(), gemini_field=self.gemini_field).tools

    def _offered(self, catalog: ToolCatalog) -> dict[str, Mapping[str, Any]]:
        """The tools this API accepts, by the name it knows them by (the refused ones are not offered)."""
        refused = catalog.llm_definitions(self.format, None, self.gemini_field).refused
        return {self._name(catalog, str(t["name"])): t for t in catalog.shared_tools() if t["name"] not in refused}

    def _search(self, catalog: ToolCatalog, query: str) -> list[dict[str, str]]:
        offered = self._offered(catalog)
        entries = (
            (name, f"{name} {t['name']} {t.get('title') or ''}", str(t.get("description") or ""), name)
            for name, t in offered.items()
        )
        found = rank(query, entries)
        return [{"name": n, "summary": summary_of(str(offered[n].get("description") or ""))} for n in found]

    def _known(self, catalog: ToolCatalog, name: str) -> str:
        """The wire name of an offered tool the model named (by this API's name or the wire name)."""
        offered = self._offered(catalog)
        wire = catalog.resolve(name)
        if wire is not None and self._name(catalog, wire) in offered:
            return wire
        close = difflib.get_close_matches(name[:200], list(offered), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; search_tools lists them"
        raise ValueError(f"no tool named {name[:80]!r}{hint}")


def _for_api(tools: list[dict[str, Any]], format: LlmFormat) -> list[dict[str, Any]]:
    """The meta-tools as `format` takes them: `additionalProperties: false` is what OpenAI's strict
    mode needs and what Gemini's `parameters` subset refuses; a meta-tool reads only its own
    arguments, so for Gemini it is left out (what the model may send is the same to dispatch)."""
    if format != "gemini":
        return tools
    return [
        {**t, "inputSchema": {k: v for k, v in t["inputSchema"].items() if k != "additionalProperties"}} for t in tools
    ]


def _text_argument(arguments: Mapping[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def meta_call(
    discovery: Discovery, catalog: ToolCatalog, name: str, arguments: Mapping[str, Any] | str | None
) -> ToolResult | None:
    """What `dispatch(name, arguments)` answers when `name` is a meta-tool's (None: it is not
    one): the answer, or the problem with the call, as a result the model reads."""
    meta = discovery.meta_of(catalog, name)
    if meta is None:
        return None
    try:
        given = json.loads(arguments or "{}") if isinstance(arguments, str) else dict(arguments or {})
        if not is_object(given):
            raise ValueError("arguments must be a JSON object")
        return ToolResult.of([{"type": "text", "text": discovery.answer(catalog, meta, given)}])
    except ValueError as exc:
        return ToolResult.error(f"Bad call of {meta}: {exc}")


def discovery_definitions(
    catalog: ToolCatalog, discovery: Discovery, format: LlmFormat, gemini_field: GeminiField, all_tools: list[Any]
) -> list[Any]:
    """What `tool_definitions(format, discovery=True)` hands the model: the meta-tools, then the
    loaded tools (from `all_tools`, the full result with its options); for Anthropic, the tools
    `defer_loading` marked stay in, deferred (the API's own tool search finds them)."""
    discovery.format, discovery.gemini_field = format, gemini_field
    loaded = {catalog.llm_names().name(w, format) for w in discovery.loaded}
    kept = [
        d
        for d in all_tools
        if definition_name(d, format) in loaded or (format == "anthropic" and d.get("defer_loading"))
    ]
    cache = next((d.pop("cache_control") for d in all_tools if "cache_control" in d), None)
    for definition in kept:  # a tool the model loaded is never deferred
        if format == "anthropic" and definition_name(definition, format) in loaded:
            definition.pop("defer_loading", None)
    out = [*discovery.meta_definitions(catalog), *kept]
    if cache is not None:  # the breakpoint stays on the last definition sent
        out[-1]["cache_control"] = cache
    return out
