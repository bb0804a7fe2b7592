"""Portability lint: the tool-schema features an LLM provider's tool calling rejects or ignores.

Each rule names its provider, whether the provider rejects the tool by default ("error") or only
in an optional strict mode ("warning"), and the documentation it comes from. `portable()` is
`mcpgen lint --fix`: it rewrites a schema only where the rewrite accepts exactly what the original
accepts (local `$ref`s inlined, `$defs` dropped, non-validating keys removed), and refuses, with
the reason, what it cannot rewrite without changing what is accepted.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PROVIDERS = ("openai", "anthropic", "gemini")

OPENAI_FUNCTION_DOCS = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools"
OPENAI_STRICT_DOCS = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
ANTHROPIC_DOCS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
GEMINI_DECLARATION_DOCS = "https://ai.google.dev/api/caching#FunctionDeclaration"
GEMINI_SCHEMA_DOCS = "https://ai.google.dev/api/caching#Schema"

# Gemini's `parameters` take "a select subset of an OpenAPI 3.0 schema object": these fields.
# (FunctionDeclaration.parametersJsonSchema takes full JSON Schema instead.)
GEMINI_SCHEMA_FIELDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
        "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
        "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
    }
)  # fmt: skip
_COMBINATORS = ("anyOf", "oneOf", "allOf")
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
    severity: str  # "error": rejected by default; "warning": only in the provider's optional strict mode
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
        return f"{rule.severity}: {rule.provider}: {where}: {self.detail} (fix: {rule.fix}; {rule.source})"


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("openai-name", "openai", "error", OPENAI_FUNCTION_DOCS,
             "function names are a-z, A-Z, 0-9, '_' and '-', at most 64 characters", "rename the tool"),
        Rule("openai-root-object", "openai", "error", OPENAI_FUNCTION_DOCS,
             "parameters must be an object schema without anyOf/oneOf/allOf/enum/not at the top level",
             "make the top level an object; move alternatives into a property"),
        Rule("openai-strict-closed", "openai", "warning", OPENAI_STRICT_DOCS,
             "strict mode needs additionalProperties: false on every object",
             "close the object, or call without strict"),
        Rule("openai-strict-required", "openai", "warning", OPENAI_STRICT_DOCS,
             "strict mode needs every property listed in required", "require it and allow null instead"),
        Rule("anthropic-name", "anthropic", "error", ANTHROPIC_DOCS,
             "tool names match ^[a-zA-Z0-9_-]{1,64}$", "rename the tool"),
        Rule("anthropic-root-object", "anthropic", "error", ANTHROPIC_DOCS,
             "input_schema is an object schema; oneOf, allOf or anyOf at the top level is rejected",
             "make the top level an object; move alternatives into a property"),
        Rule("gemini-name", "gemini", "error", GEMINI_DECLARATION_DOCS,
             "function names start with a letter or '_' and use a-z, A-Z, 0-9, '_', '.', ':' and '-', at most 64",
             "rename the tool"),
        Rule("gemini-keyword", "gemini", "error", GEMINI_SCHEMA_DOCS,
             "parameters take a subset of OpenAPI 3.0 Schema; other keywords are rejected",
             "--fix inlines $ref/$defs and drops $schema/$id/$comment; else send parametersJsonSchema"),
        Rule("gemini-type-list", "gemini", "error", GEMINI_SCHEMA_DOCS,
             "type is one name, not a list", "one type per schema (nullable: true for null)"),
    )
}  # fmt: skip
_NAME_PATTERNS = {
    "openai-name": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "anthropic-name": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "gemini-name": re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}"),
}


def lint_tools(tools: Sequence[Mapping[str, Any]], providers: Sequence[str] = PROVIDERS) -> list[Finding]:
    """Every finding for the tools' input schemas, for the given providers, in a stable order."""
    out: list[Finding] = []
    for tool in tools:
        name = str(tool.get("name"))
        schema = tool.get("inputSchema")
        for provider in providers:
            out += _lint_one(provider, name, schema)
    return out


def _finding(tool: str, pointer: str, rule_id: str, detail: str) -> Finding:
    return Finding(tool, pointer, RULES[rule_id], detail)


def _lint_one(provider: str, name: str, schema: Any) -> list[Finding]:
    out: list[Finding] = []
    name_rule = f"{provider}-name"
    if not _NAME_PATTERNS[name_rule].fullmatch(name):
        out.append(_finding(name, "/name", name_rule, f"name {name[:80]!r} is not allowed"))
    if not isinstance(schema, dict):
        return out
    base = "/inputSchema"
    if provider in ("openai", "anthropic"):
        rule = f"{provider}-root-object"
        top = [k for k in (*_COMBINATORS, *(("enum", "not") if provider == "openai" else ())) if k in schema]
        if schema.get("type") != "object":
            out.append(_finding(name, f"{base}/type", rule, f"top-level type is {schema.get('type')!r}, not 'object'"))
        for key in top:
            out.append(_finding(name, f"{base}/{key}", rule, f"'{key}' at the top level"))
    for pointer, node in _subschemas(schema, base):
        if provider == "openai" and _is_object(node):
            if node.get("additionalProperties") is not False:
                out.append(
                    _finding(name, pointer, "openai-strict-closed", "object without additionalProperties: false")
                )
            props = node.get("properties")
            required = set(node.get("required", [])) if isinstance(node.get("required"), list) else set()
            if isinstance(props, dict):
                for prop in sorted(set(props) - required):
                    where = f"{pointer}/properties/{_esc(prop)}"
                    out.append(_finding(name, where, "openai-strict-required", f"{prop!r} is optional"))
        if provider == "gemini":
            for key in sorted(k for k in node if k not in GEMINI_SCHEMA_FIELDS):
                out.append(_finding(name, f"{pointer}/{_esc(key)}", "gemini-keyword", f"'{key}' is not supported"))
            if isinstance(node.get("type"), list):
                out.append(_finding(name, f"{pointer}/type", "gemini-type-list", f"type {node['type']!r}"))
    return out


def _is_object(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (kind is None and "properties" in node)


def _subschemas(schema: Any, pointer: str, depth: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, subschema) for the schema and every schema inside it (bounded depth)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return
    yield pointer, schema
    for key, value in schema.items():
        here = f"{pointer}/{_esc(key)}"
        if key in _NAME_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _subschemas(sub, f"{here}/{_esc(name)}", depth + 1)
        elif key in ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"):
            yield from _subschemas(value, here, depth + 1)
        elif key in (*_COMBINATORS, "prefixItems") and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _subschemas(sub, f"{here}/{i}", depth + 1)


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


class NotPortable(Exception):
    """The schema cannot be rewritten without changing what it accepts; the message says why."""


def portable(schema: Any) -> Any:
    """The schema with local `$ref`s inlined, `$defs`/`definitions` dropped and non-validating keys
    removed: the same instances accepted. Raises NotPortable for recursive or non-local refs and
    for refs beside other keywords in drafts where siblings are ignored (they would start to count)."""
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    if any("$id" in node for pointer, node in _subschemas(schema, "") if pointer):
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
