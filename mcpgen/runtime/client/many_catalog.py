"""The many-servers client's tools as one catalog, so it meets an LLM as one server's client does.

Every server's tools are listed under their `server__tool` names (plan/many.py made them, unique
across servers and in every API's character set), verbatim otherwise. On that one catalog the
single-server machinery runs unchanged: `tool_definitions` with every provider option and
`refused_tools` (llm_host.py), progressive discovery (llm_discovery.py) and the way back from a
name the model sends (`ToolCatalog.resolve`). So a tool has one name per API by one rule: its
prefixed name, made by llm_names.fit_names under the strictest API's rule, so every API keeps
it as it is (server `3d`'s `scan` is `_3d__scan` in TOOL_NAMES and for every API), and the meta-tools
search, describe and load the tools of every server at once. Provider options that name tools
(`input_examples`, `defer_loading`, `allowed_callers`) name them by their prefixed names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..core.tables import ToolRow
from .catalog import ToolCatalog


def merged_catalog(catalogs: Mapping[str, ToolCatalog], tool_names: Mapping[str, tuple[str, str]]) -> ToolCatalog:
    """One catalog of the tools `tool_names` lists (prefixed name -> (namespace, wire name)), each
    under its prefixed name, in that table's order; a name no server's catalog holds is skipped."""
    tools: list[str] = []
    table: dict[str, ToolRow] = {}
    by_wire = {ns: {str(t["name"]): t for t in c.shared_tools()} for ns, c in catalogs.items()}
    for prefixed, (ns, wire) in tool_names.items():
        tool = by_wire.get(ns, {}).get(wire)
        if tool is None:
            continue
        tools.append(json.dumps({**tool, "name": prefixed}, sort_keys=True))
        table[prefixed] = catalogs[ns].table[wire]
    return ToolCatalog(tools_json=tuple(tools), table=table, schema_hashes={}, method_names={})
