"""Names for a package that serves many servers: a Python namespace per server, an LLM-safe
prefixed name per tool, and a report of every collision and how it was resolved.

Every rule sorts by server name (then wire name) first, so the result never depends on the
order servers were listed or discovered, and regenerating gives the same names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The name rule lives in the runtime (the generator may import it; it imports nothing above):
# one function names a single client's tools and these, so TOOL_NAMES and tool_definitions() agree.
from ..runtime.client.llm_names import MAX_NAME, STRICTEST, fit_names, plain_name
from .naming import RESERVED_SNAKE, allocate, snake

# What a multi-server client defines itself (a namespace must never shadow it).
MANY_MEMBERS = frozenset({"connect", "tool_definitions", "dispatch", "servers"})

NAME_MAX = MAX_NAME
SEPARATOR = "__"


@dataclass(frozen=True)
class ServerNames:
    server: str  # the name in the config
    namespace: str  # the attribute on the client and the subpackage folder


@dataclass(frozen=True)
class PrefixedTool:
    prefixed: str  # what an LLM calls: `server__tool`
    namespace: str
    wire: str


@dataclass(frozen=True)
class ManyPlan:
    servers: tuple[ServerNames, ...]  # sorted by server name
    tools: tuple[PrefixedTool, ...]  # sorted by (server name, wire name)
    collisions: tuple[str, ...]  # one sentence each, in a stable order


def _joined(server: str, wire: str) -> str:
    return f"{server}{SEPARATOR}{wire}"


def _identity(server: str, wire: str) -> str:
    """One text per pair, what its hash is taken of: `server NUL wire`, or (a server name with a
    NUL in it, which would make that ambiguous) the pair as JSON, which holds no NUL."""
    return json.dumps([server, wire]) if "\0" in server else f"{server}\0{wire}"


def prefixed_names(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """`server__tool` for each (server, wire) pair, by the runtime's one name rule
    (llm_names.fit_names) under the strictest API's rule, so every API keeps it as it is.

    A pair is known by `_identity`, never by its joined text, so two pairs whose joined texts
    meet (`a__b` + `c`, `a` + `b__c`) stay two tools: neither keeps the shared name.
    """
    ident = {pair: _identity(*pair) for pair in pairs}
    names = fit_names({ident[p]: _joined(*p) for p in pairs}, STRICTEST, {})
    return {pair: names[ident[pair]] for pair in sorted(ident)}


def build_many_plan(tools_by_server: Mapping[str, Sequence[str]]) -> ManyPlan:
    """Namespaces and prefixed names for {server name: its tools' wire names}."""
    names = sorted(tools_by_server)
    base = {s: snake(s, empty="server") for s in names}
    namespaces = allocate(names, base, RESERVED_SNAKE | MANY_MEMBERS)
    collisions: list[str] = []
    for s in names:
        if namespaces[s] != base[s]:
            collisions.append(f"server {s!r} is `{namespaces[s]}` ({base[s]!r} is taken or reserved)")
    owners: dict[str, list[str]] = {}
    for s in names:
        for wire in tools_by_server[s]:
            owners.setdefault(wire, []).append(s)
    for wire in sorted(owners):
        if len(owners[wire]) > 1:
            where = ", ".join(f"`{namespaces[s]}.{wire}`" for s in owners[wire])
            collisions.append(f"tool {wire!r} is offered by {len(owners[wire])} servers: kept apart as {where}")
    pairs = [(s, wire) for s in names for wire in sorted(set(tools_by_server[s]))]
    prefixed = prefixed_names(pairs)
    for s, wire in pairs:
        if prefixed[(s, wire)] != plain_name(_joined(s, wire), STRICTEST):
            collisions.append(f"tool {wire!r} of server {s!r} is {prefixed[(s, wire)]!r} for LLMs")
    return ManyPlan(
        servers=tuple(ServerNames(s, namespaces[s]) for s in names),
        tools=tuple(PrefixedTool(prefixed[(s, w)], namespaces[s], w) for s, w in pairs),
        collisions=tuple(collisions),
    )
