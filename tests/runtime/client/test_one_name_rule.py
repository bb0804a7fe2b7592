"""The one name rule, attacked: hostile tool and server names through both paths that name a
tool for an LLM, the many-servers planner (`TOOL_NAMES`) and the runtime (`tool_definitions()`),
give the same names, each one every API accepts, and `dispatch()` maps each back to its tool.

Both paths call `llm_names.fit_names`; these tests hold them to it from the outside, on a table
of the names that break naive rules and on generated ones.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.plan.many import ManyPlan, build_many_plan
from mcpgen.runtime.client.catalog import ToolCatalog
from mcpgen.runtime.client.llm_names import MAX_NAME, NAME_PATTERNS, RULE_OF_FORMAT, assign_names
from mcpgen.runtime.client.llm_tools import LLM_FORMATS, definition_name
from mcpgen.runtime.client.many import AsyncManyClientBase
from mcpgen.runtime.core.tables import ResultMode, ToolRow

LONG = "x" * 200
# Every kind of name a naive rule gets wrong, as {server: its tools' wire names}.
HOSTILE: dict[str, list[str]] = {
    "weather": [
        "wetter.überblick",  # unicode
        "天气",  # nothing left but '_' after cleaning
        "🌦️",
        "",  # empty
        LONG,  # too long
        "y" * 100 + "a",  # two long names sharing their first 55 characters
        "y" * 100 + "b",
        "a.b",  # three that all clean to the same name ...
        "a/b",
        "a b",
        "a_b",  # ... and the name they clean to, as another tool's own name
        "Get",  # differing only by case or punctuation
        "get",
        "get!",
        "get?",
        "class",  # reserved words of Python, of the client, of the discovery meta-tools
        "connect",
        "dispatch",
        "search_tools",
        "b__c",  # the separator inside a tool name ...
        "__",
        "-lead",  # a leading character Gemini refuses
        "9lives",
    ],
    "weather__b": ["c"],  # ... and in a server name: `weather__b__c` twice
    "3d": ["scan", "9lives"],  # a server name Gemini refuses at the start
    "-x": ["y"],
    "my.server": ["get weather/now"],
    "ü": ["ü"],
    "": ["tool"],  # an empty server name
    "a\0b": ["c"],  # a NUL where the pair's identity puts one
    "a": ["b\0c"],
}


def _catalog(wires: Sequence[str]) -> ToolCatalog:
    tools = tuple(json.dumps({"name": w, "inputSchema": {"type": "object"}}) for w in wires)
    table = {w: ToolRow("Args", None, ResultMode.CONTENT) for w in wires}
    return ToolCatalog(tools_json=tools, table=table, schema_hashes={}, method_names={})


class _Server:
    """What the many-servers client asks of a server's client: its catalog and dispatch."""

    def __init__(self, wires: Sequence[str], calls: list[tuple[str, str]], namespace: str) -> None:
        self._catalog = _catalog(wires)
        self._calls = calls
        self._namespace = namespace

    def _llm_catalog(self) -> ToolCatalog:
        return self._catalog

    async def dispatch(self, name: str, arguments: Any = None) -> str:
        self._calls.append((self._namespace, name))
        return "ran"


def _client(plan: ManyPlan, tools: Mapping[str, Sequence[str]], calls: list[tuple[str, str]]) -> AsyncManyClientBase:
    class Client(AsyncManyClientBase):
        _servers: ClassVar[Mapping[str, str]] = {s.namespace: s.server for s in plan.servers}
        _tool_names: ClassVar[Mapping[str, tuple[str, str]]] = {t.prefixed: (t.namespace, t.wire) for t in plan.tools}

    servers = {s.namespace: _Server(sorted(set(tools[s.server])), calls, s.namespace) for s in plan.servers}
    return Client(servers)  # type: ignore[arg-type]


def _check_both_paths(tools: Mapping[str, Sequence[str]]) -> None:
    plan = build_many_plan(tools)
    tool_names = {t.prefixed: (t.namespace, t.wire) for t in plan.tools}
    pairs = {(s, w) for s, ws in tools.items() for w in ws}
    assert len(tool_names) == len(plan.tools) == len(pairs)  # collision-free: one name a tool
    # Stable: the same names whatever order the servers and tools come in.
    assert build_many_plan({s: list(reversed(ws)) for s, ws in reversed(list(tools.items()))}) == plan
    calls: list[tuple[str, str]] = []
    client = _client(plan, tools, calls)
    for format in LLM_FORMATS:
        sent = [definition_name(d, format) for d in client.tool_definitions(format)]
        # The runtime sends exactly the planner's names, in TOOL_NAMES' order, under every API.
        assert sent == list(tool_names), format
        rule = NAME_PATTERNS[RULE_OF_FORMAT[format]]
        assert all(rule.fullmatch(n) and len(n) <= MAX_NAME for n in sent), format
        for name in sent:
            calls.clear()
            assert asyncio.run(client.dispatch(name, {})) == "ran"
            assert calls == [tool_names[name]], (format, name)


def test_hostile_names_get_one_name_on_both_paths_and_dispatch_back() -> None:
    _check_both_paths(HOSTILE)


def test_the_hostile_table_really_meets_every_case_of_the_rule() -> None:
    # The table is only a test if it reaches each branch: kept, cleaned, prefixed for Gemini,
    # hashed for length, for a shared cleaned name and for the separator's ambiguity.
    plan = build_many_plan(HOSTILE)
    server = {s.namespace: s.server for s in plan.servers}
    names = {(server[t.namespace], t.wire): t.prefixed for t in plan.tools}
    assert names[("weather", "a_b")] == "weather__a_b"  # valid: kept, the others yield
    cleaned_alike = {names[("weather", w)] for w in ("a.b", "a/b", "a b")}
    assert len(cleaned_alike) == 3 and all(re.fullmatch(r"weather__a_b_[0-9a-f]{8}", n) for n in cleaned_alike)
    assert names[("weather", "get")] == "weather__get" and names[("weather", "Get")] == "weather__Get"
    assert names[("weather", "get!")] != names[("weather", "get?")]
    assert names[("3d", "scan")] == "_3d__scan"
    assert len(names[("weather", LONG)]) == MAX_NAME
    separated = names[("weather", "b__c")], names[("weather__b", "c")]
    assert "weather__b__c" not in separated and separated[0] != separated[1]


# Names built from the characters and pieces that make the rule work hardest.
_pieces = st.sampled_from(["a", "A", "b", "_", "-", ".", "/", " ", "__", "ü", "9", "x" * 30, "\0", "天"])
_names = st.lists(_pieces, max_size=5).map("".join)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(tools=st.dictionaries(_names, st.lists(_names, max_size=5, unique=True), min_size=1, max_size=4))
def test_any_names_get_one_name_on_both_paths_and_dispatch_back(tools: dict[str, list[str]]) -> None:
    _check_both_paths(tools)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(wires=st.lists(_names, max_size=8, unique=True), methods=st.lists(_names, max_size=3))
def test_a_single_clients_names_are_accepted_unique_and_map_back(wires: list[str], methods: list[str]) -> None:
    reserved = {m: wires[i % len(wires)] for i, m in enumerate(methods)} if wires else {}
    names = assign_names(wires, reserved)
    for rule, mapped in names.by_rule.items():
        assert sorted(mapped) == sorted(wires)
        assert len(set(mapped.values())) == len(wires), rule  # one tool a name, under each API
        for wire, name in mapped.items():
            assert NAME_PATTERNS[rule].fullmatch(name), (rule, wire, name)
            assert names.to_wire[name] == wire, (rule, wire, name)  # dispatch maps it back
    assert assign_names(reversed(wires), reserved) == names
