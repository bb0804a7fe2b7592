"""The one rule that turns MCP tool names into names each LLM API accepts, and back.

MCP allows tool names an LLM API refuses (`weather.alert`, `files/read`, 120 characters). Each
API documents its own rule for a function's name:

- Anthropic Messages: `^[a-zA-Z0-9_-]{1,64}$`;
- OpenAI (Chat Completions and Responses): a-z, A-Z, 0-9, '_' and '-', at most 64 characters;
- Gemini: starts with a letter or '_'; then a-z, A-Z, 0-9, '_' and '-' (the declaration also
  allows '.' and ':', the function *call* the model sends back does not: names keep to both),
  at most 64 characters.

The mapping (`fit_names`), for one set of tools, each known by an identity (a single client's
tool: its wire name; a many-servers package's: its server and wire name) and named from a text
(the wire name; `server__tool`):

1. a text the API accepts is kept as it is, unless another tool's text is the same or the name
   is already held (another tool's wire name, a Python method name the client answers to);
2. else each character outside the API's set becomes '_' (a leading character Gemini refuses
   gets a '_' in front), and an empty result is `tool`;
3. a result longer than 64 characters, one another tool already holds, or one two tools' texts
   both come to, is cut to 55 characters and ends with '_' and the first 8 hex digits of the
   SHA-256 of the identity (a further digit of the hash for each further clash): no tool keeps a
   name two of them would share, so none depends on how punctuation sorts.

This module is the only place the rule lives: a single client's names (`assign_names`) and the
many-servers planner's `server__tool` names (mcpgen/plan/many.py, made with the rule of the
strictest API, `STRICTEST`, so every API keeps them as they are) both come from `fit_names`.

A name is held by one tool across every API and against every wire name and Python method name
the client also answers to, so `dispatch()` maps any name the model sends back to one tool
without being told which API the call came from. Standard library only (vendored too).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
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
# The rule whose names every API accepts as they are (Gemini's set is inside the others').
STRICTEST = "gemini"


def accepted(name: str, rule: str) -> bool:
    """Does `rule`'s API ("anthropic", "openai", "gemini") take `name` as it is?"""
    return NAME_PATTERNS[rule].fullmatch(name) is not None


def plain_name(text: str, rule: str) -> str:
    """Step 2: the text in the API's character set (not yet checked for length or clashes)."""
    name = _OUTSIDE.sub("_", text) or "tool"
    if rule == "gemini" and not re.match(r"[a-zA-Z_]", name):
        name = "_" + name
    return name


def _hashed(identity: str, base: str, digits: int) -> str:
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()
    return f"{base[: MAX_NAME - 1 - digits]}_{digest[:digits]}"


def fit_names(texts: Mapping[str, str], rule: str, held: dict[str, str]) -> dict[str, str]:
    """identity -> the name `rule`'s API gets for it, from `texts` (identity -> the text its name
    is made from), by the module's rule. `held` (name -> identity) is what is already taken; every
    name given is added to it. Deterministic: identities are taken in sorted order."""
    order = sorted(texts)
    seen = Counter(texts.values())
    out: dict[str, str] = {}
    for ident in order:  # kept names first: a valid name never moves for another's sake
        text = texts[ident]
        if accepted(text, rule) and seen[text] == 1 and held.get(text, ident) == ident:
            out[ident], held[text] = text, ident
    bases = {ident: plain_name(texts[ident], rule) for ident in order if ident not in out}
    shared = Counter(bases.values())
    for ident, base in bases.items():
        name, digits, ambiguous = base, HASH_DIGITS, shared[base] > 1
        while ambiguous or len(name) > MAX_NAME or held.get(name, ident) != ident:
            name, digits, ambiguous = _hashed(ident, base, digits), digits + 1, False
        out[ident], held[name] = name, ident
    return out


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
    texts = {w: w for w in wires}
    by_rule = {rule: fit_names(texts, rule, held) for rule in NAME_PATTERNS}
    return LlmNames(by_rule=by_rule, to_wire=dict(held))
