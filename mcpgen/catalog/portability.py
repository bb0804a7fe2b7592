"""Portability lint: what each LLM API would refuse in the definitions `tool_definitions` sends.

Lint asks the runtime's own rules (runtime/client/llm_names.py, llm_schemas.py), per provider
and per field, so it reports exactly what the client's default definitions would meet:

- "error": the API refuses the definition, so `tool_definitions` leaves the tool out;
- "warning": sent, but not as the tool says: a renamed tool (dispatch maps the name back), or a
  schema OpenAI's strict mode refuses (sent with `strict: false`).

Gemini is checked for the field it is sent in: `parametersJsonSchema` (JSON Schema, the
default) or, when asked, `parameters` (the OpenAPI subset). Each rule names the documentation it
comes from. `portable()` is `mcpgen lint --fix`: it rewrites a schema only where the rewrite
accepts exactly what the original accepts (local `$ref`s inlined, `$defs` dropped,
non-validating keys removed), and refuses, with the reason, what it cannot rewrite.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..runtime.client.llm_names import LlmNames, assign_names
from ..runtime.client.llm_schemas import (
    Refused,
    gemini_parameters_problems,
    object_root,
    strict_problems,
    subschemas,
)

PROVIDERS = ("openai", "anthropic", "gemini")
GEMINI_FIELDS = ("parametersJsonSchema", "parameters")

OPENAI_FUNCTION_DOCS = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools"
OPENAI_STRICT_DOCS = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
ANTHROPIC_DOCS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
GEMINI_DECLARATION_DOCS = "https://ai.google.dev/api/caching#FunctionDeclaration"
GEMINI_SCHEMA_DOCS = "https://ai.google.dev/api/caching#Schema"

_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# Keys that document or identify and never decide what validates (safe to drop once refs are inlined).
_NON_VALIDATING = ("$schema", "$id", "$comment", "$anchor")
_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly"})
_MAX_DEPTH = 64
# Inlining copies a definition at every ref to it: definitions that ref each other twice over
# grow exponentially ("billion laughs"). Past this many nodes the rewrite is refused.
MAX_INLINED_NODES = 50_000


@dataclass(frozen=True)
class Rule:
    id: str
    provider: str
    field: str  # the part of the definition it is about: name, input_schema, parameters, ...
    severity: str  # "error": the tool is left out for that API; "warning": sent, not as the tool says
    source: str  # the documentation the rule comes from
    summary: str
    fix: str


@dataclass(frozen=True)
class Finding:
    tool: str
    pointer: str  # JSON pointer inside the tool
    rule: Rule
    detail: str

    def line(self) -> str:
        where = f"{self.tool}{self.pointer}"
        rule = self.rule
        return f"{rule.severity}: {rule.provider} {rule.field}: {where}: {self.detail} (fix: {rule.fix}; {rule.source})"


_RENAMED = "renamed to a name the API takes (dispatch maps it back)"
RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("openai-name", "openai", "name", "warning", OPENAI_FUNCTION_DOCS,
             "function names are a-z, A-Z, 0-9, '_' and '-', at most 64 characters", _RENAMED),
        Rule("openai-root-object", "openai", "parameters", "error", OPENAI_FUNCTION_DOCS,
             "parameters must be an object schema without anyOf/oneOf/allOf/enum/not at the top level",
             "make the top level an object; move alternatives into a property"),
        Rule("openai-strict", "openai", "parameters (strict)", "warning", OPENAI_STRICT_DOCS,
             "strict mode takes closed objects, every property required and a subset of keywords",
             "sent with strict: false; close the objects and require every property for strict: true"),
        Rule("anthropic-name", "anthropic", "name", "warning", ANTHROPIC_DOCS,
             "tool names match ^[a-zA-Z0-9_-]{1,64}$", _RENAMED),
        Rule("anthropic-root-object", "anthropic", "input_schema", "error", ANTHROPIC_DOCS,
             "input_schema is an object schema; oneOf, allOf or anyOf at the top level is rejected",
             "make the top level an object; move alternatives into a property"),
        Rule("gemini-name", "gemini", "name", "warning", GEMINI_DECLARATION_DOCS,
             "function names start with a letter or '_' and use a-z, A-Z, 0-9, '_' and '-', at most 64",
             _RENAMED),
        Rule("gemini-root-object", "gemini", "parametersJsonSchema", "error", GEMINI_DECLARATION_DOCS,
             "parametersJsonSchema must describe an object", "make the top level an object"),
        Rule("gemini-parameters-root-object", "gemini", "parameters", "error", GEMINI_DECLARATION_DOCS,
             "parameters must describe an object", "make the top level an object"),
        Rule("gemini-keyword", "gemini", "parameters", "error", GEMINI_SCHEMA_DOCS,
             "parameters take a subset of OpenAPI 3.0 Schema; other keywords are rejected",
             "--fix inlines $ref/$defs; else send parametersJsonSchema (the default)"),
        Rule("gemini-type-list", "gemini", "parameters", "error", GEMINI_SCHEMA_DOCS,
             "type is one name, not a list", "one type per schema (nullable: true for null)"),
        Rule("gemini-enum", "gemini", "parameters", "error", GEMINI_SCHEMA_DOCS,
             "enum values are strings", "send parametersJsonSchema (the default)"),
        Rule("gemini-subschema-object", "gemini", "parameters", "error", GEMINI_SCHEMA_DOCS,
             "every subschema is one Schema object: not true, false or a list of items",
             "send parametersJsonSchema (the default)"),
    )
}  # fmt: skip
_ROOT_RULES = {"openai": "openai-root-object", "anthropic": "anthropic-root-object", "gemini": "gemini-root-object"}


def lint_tools(
    tools: Sequence[Mapping[str, Any]],
    providers: Sequence[str] = PROVIDERS,
    gemini_field: str = "parametersJsonSchema",
) -> list[Finding]:
    """Every finding for the tools' definitions, for the given providers, in a stable order."""
    names = assign_names(str(t.get("name")) for t in tools)
    out: list[Finding] = []
    for tool in tools:
        for provider in providers:
            out += _lint_one(provider, tool, names, gemini_field)
    return out


def _finding(tool: str, pointer: str, rule_id: str, detail: str) -> Finding:
    return Finding(tool, pointer, RULES[rule_id], detail)


def _lint_one(provider: str, tool: Mapping[str, Any], names: LlmNames, gemini_field: str) -> list[Finding]:
    wire = str(tool.get("name"))
    out: list[Finding] = []
    sent = names.by_rule[provider][wire]
    if sent != wire:
        out.append(_finding(wire, "/name", f"{provider}-name", f"name {wire[:80]!r} is sent as {sent!r}"))
    parameters_field = provider == "gemini" and gemini_field == "parameters"
    try:
        schema = object_root(tool.get("inputSchema"), provider)
    except Refused as exc:
        rule = "gemini-parameters-root-object" if parameters_field else _ROOT_RULES[provider]
        return [*out, _finding(wire, f"/inputSchema{exc.pointer}", rule, str(exc))]
    base = "/inputSchema"
    if provider == "openai":
        out += [_finding(wire, base + p, "openai-strict", why) for p, why in strict_problems(schema)]
    if parameters_field:
        _rewritten, problems = gemini_parameters_problems(schema)
        rule_of = {
            "keyword": "gemini-keyword",
            "type": "gemini-type-list",
            "enum": "gemini-enum",
            "boolean": "gemini-subschema-object",
        }
        out += [_finding(wire, base + p, rule_of[kind], why) for p, kind, why in problems]
    return out


class NotPortable(Exception):
    """The schema cannot be rewritten without changing what it accepts; the message says why."""


def portable(schema: Any) -> Any:
    """The schema with local `$ref`s inlined, `$defs`/`definitions` dropped and non-validating keys
    removed: the same instances accepted. Raises NotPortable for recursive or non-local refs and
    for refs beside other keywords in drafts where siblings are ignored (they would start to count)."""
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    if any("$id" in node for pointer, _depth, node in subschemas(schema) if pointer):
        raise NotPortable("a nested $id changes what its refs point at; not rewritten")
    draft = str(schema.get("$schema", ""))
    siblings_ignored = any(d in draft for d in ("draft-04", "draft-06", "draft-07"))
    return _Inliner(schema, siblings_ignored).inline(schema, (), 0)


class _Inliner:
    def __init__(self, root: dict[str, Any], siblings_ignored: bool) -> None:
        self.root = root
        self.siblings_ignored = siblings_ignored
        self.nodes = 0

    def inline(self, node: Any, trail: tuple[str, ...], depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_INLINED_NODES:
            raise NotPortable(f"inlining its refs would grow the schema past {MAX_INLINED_NODES} nodes")
        return _inline(node, self.root, trail, self.siblings_ignored, depth, self)


def _inline(
    node: Any, root: dict[str, Any], trail: tuple[str, ...], siblings_ignored: bool, depth: int, inliner: _Inliner
) -> Any:
    if depth > _MAX_DEPTH:
        raise NotPortable("nested too deeply to rewrite")
    if isinstance(node, list):
        return [inliner.inline(v, trail, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    ref = node.get("$ref")
    if ref is not None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise NotPortable(f"$ref {str(ref)[:80]!r} leaves the document")
        if ref in trail:
            raise NotPortable(f"$ref {ref!r} is recursive: inlining it never ends")
        target = inliner.inline(_resolve(root, ref), (*trail, ref), depth + 1)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if siblings_ignored:
            return target  # draft 4-7: keywords beside $ref are ignored, so dropping them changes nothing
        rest = inliner.inline(rest, trail, depth + 1)
        if not rest:
            return target
        if set(rest) <= _ANNOTATIONS and isinstance(target, dict):
            return {**target, **rest}  # prose beside a ref validates nothing: merged, no allOf needed
        # 2019-09+: $ref applies beside its siblings; allOf keeps both exactly.
        return {**rest, "allOf": [*rest.get("allOf", []), target]}
    for key, value in node.items():
        if key in _NON_VALIDATING or key in ("$defs", "definitions"):
            continue
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {k: inliner.inline(v, trail, depth + 1) for k, v in value.items()}
        elif key in ("enum", "const", "default", "examples", "example", "required"):
            out[key] = copy.deepcopy(value)  # data, not schemas
        else:
            out[key] = inliner.inline(value, trail, depth + 1)
    return out


def _resolve(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise NotPortable(f"$ref {ref!r} does not resolve")
    return node
