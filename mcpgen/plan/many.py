"""Names for a package that serves many servers: a Python namespace per server, an LLM-safe
prefixed name per tool, and a report of every collision and how it was resolved.

Every rule sorts by server name (then wire name) first, so the result never depends on the
order servers were listed or discovered, and regenerating gives the same names.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .naming import RESERVED_SNAKE, allocate, snake

# What a multi-server client defines itself (a namespace must never shadow it).
MANY_MEMBERS = frozenset({"connect", "tool_definitions", "dispatch", "servers"})

# Tool names every LLM provider accepts: letters, digits, `_` and `-`, at most 64 characters.
NAME_MAX = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LEN = 8


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


def _hashed(text: str, server: str, wire: str) -> str:
    digest = hashlib.sha256(f"{server}\0{wire}".encode()).hexdigest()[:_HASH_LEN]
    return f"{text[: NAME_MAX - _HASH_LEN - 1]}_{digest}"


def prefixed_names(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """`server__tool` for each (server, wire) pair, safe for every LLM provider and unique.

    Unsafe characters become `_`; a name that is too long, or that two pairs would share after
    that, keeps a prefix and gets `_<hash of server and wire>` (the same pair, the same name).
    """
    plain = {pair: _UNSAFE.sub("_", f"{pair[0]}{SEPARATOR}{pair[1]}") for pair in pairs}
    counts: dict[str, int] = {}
    for name in plain.values():
        counts[name] = counts.get(name, 0) + 1
    out: dict[tuple[str, str], str] = {}
    for pair in sorted(plain):
        name = plain[pair]
        out[pair] = _hashed(name, *pair) if len(name) > NAME_MAX or counts[name] > 1 else name
    if len(set(out.values())) != len(out):  # a hash equal to a plain name: vanishingly rare, never silent
        raise ValueError("prefixed tool names collide even after hashing")
    return out


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
        plain = _UNSAFE.sub("_", f"{s}{SEPARATOR}{wire}")
        if prefixed[(s, wire)] != plain:
            collisions.append(f"tool {wire!r} of server {s!r} is {prefixed[(s, wire)]!r} for LLMs")
    return ManyPlan(
        servers=tuple(ServerNames(s, namespaces[s]) for s in names),
        tools=tuple(PrefixedTool(prefixed[(s, w)], namespaces[s], w) for s, w in pairs),
        collisions=tuple(collisions),
    )
