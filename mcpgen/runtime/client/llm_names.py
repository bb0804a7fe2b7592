"""The one rule that turns MCP tool names into names each LLM API accepts, and back.

MCP allows tool names an LLM API refuses (`weather.alert`, `files/read`, 120 characters). Each
API documents its own rule for a function's name:

- Anthropic Messages: `^[a-zA-Z0-9_-]{1,64}$`;
- OpenAI (Chat Completions and Responses): a-z, A-Z, 0-9, '_' and '-', at most 64 characters;
- Gemini: starts with a letter or '_'; then a-z, A-Z, 0-9, '_' and '-' (the declaration also
  allows '.' and ':', the function *call* the model sends back does not: names keep to both),
  at most 64 characters.

The mapping, for one set of tools:

1. a name the API accepts is kept as it is;
2. else each character outside the API's set becomes '_' (a leading character Gemini refuses
   gets a '_' in front), and an empty result is `tool`;
3. a result longer than 64 characters, or one another tool already holds, is cut to 55
   characters and ends with '_' and the first 8 hex digits of the SHA-256 of the wire name (a
   further digit of the hash for each further clash).

A name is held by one tool across every API and against every wire name and Python method name
the client also answers to, so `dispatch()` maps any name the model sends back to one tool
without being told which API the call came from. Standard library only (vendored too).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_NAME = 64
HASH_DIGITS = 8

_OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")
NAME_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "openai": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "gemini": re.compile(r"[a-zA-Z_][a-zA-Z0-9_-]{0,63}"),
}
# Which name rule each definition shape uses (both OpenAI APIs share one).
RULE_OF_FORMAT: Mapping[str, str] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "openai-responses": "openai",
    "gemini": "gemini",
}


def accepted(name: str, rule: str) -> bool:
    """Does `rule`'s API ("anthropic", "openai", "gemini") take `name` as it is?"""
    return NAME_PATTERNS[rule].fullmatch(name) is not None


def _plain(wire: str, rule: str) -> str:
    """Step 2: the wire name in the API's character set (not yet checked for length or clashes)."""
    name = _OUTSIDE.sub("_", wire) or "tool"
    if rule == "gemini" and not re.match(r"[a-zA-Z_]", name):
        name = "_" + name
    return name


def _hashed(wire: str, base: str, digits: int) -> str:
    digest = hashlib.sha256(wire.encode("utf-8")).hexdigest()
    return f"{base[: MAX_NAME - 1 - digits]}_{digest[:digits]}"


@dataclass(frozen=True)
class LlmNames:
    """Every tool's name for every API, and the way back."""

    # rule -> wire name -> the name sent to that API
    by_rule: Mapping[str, Mapping[str, str]]
    # every name a model may send back (any API) -> wire name
    to_wire: Mapping[str, str]

    def name(self, wire: str, format: str) -> str:
        return self.by_rule[RULE_OF_FORMAT[format]][wire]


def assign_names(wires: Iterable[str], reserved: Mapping[str, str] | None = None) -> LlmNames:
    """The names of these tools for every API (deterministic for one set of wire names).

    `reserved` maps other names the client answers to (its Python method names) to their wire
    names: no API name of another tool takes one of them.
    """
    wires = sorted(set(wires))
    held: dict[str, str] = {w: w for w in wires}  # a wire name always means its own tool
    for other, wire in (reserved or {}).items():
        held.setdefault(other, wire)
    by_rule: dict[str, dict[str, str]] = {rule: {} for rule in NAME_PATTERNS}
    for rule in NAME_PATTERNS:  # kept names first: a valid name never moves for another's sake
        for wire in wires:
            if accepted(wire, rule):
                by_rule[rule][wire] = wire
        for wire in wires:
            if wire in by_rule[rule]:
                continue
            base = _plain(wire, rule)
            name, digits = base, HASH_DIGITS
            while len(name) > MAX_NAME or held.get(name, wire) != wire:
                name, digits = _hashed(wire, base, digits), digits + 1
            held[name] = wire
            by_rule[rule][wire] = name
    return LlmNames(by_rule=by_rule, to_wire=dict(held))
