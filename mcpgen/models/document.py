"""The one JSON Schema document handed to datamodel-code-generator (DCG).

It holds the *typing view* (see `typing_view.py`) of every `<Pascal>Args` / `<Pascal>Result`
under `$defs`, with each tool's local `$defs`/`definitions` hoisted beside them and every `$ref`
rewritten to point inside that document; keywords that could make DCG look outside it are dropped.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..catalog.model import Problem
from ..plan.result_shape import result_view
from ..plan.types import ResultShape, ToolPlan
from ..runtime.core.patterns import pattern_problem
from .branch_names import BranchNamer, def_names
from .typing_view import typing_view

# The name DCG gives the document itself (its class is dropped from the output).
ROOT_CLASS = "McpgenDocumentRoot"

_SCHEMA_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE_KEYS = (
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "items",
)
_SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
# Keywords that could make DCG look outside the document or change its base URI.
_DROP_KEYS = ("$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor")


class _Hoister:
    def __init__(self, defs: dict[str, Any], problems: list[Problem]) -> None:
        self.defs = defs
        self.problems = problems
        self.owner: dict[str, str] = {}  # hoisted key -> the Args/Result key whose $refs reach it

    def add(self, key: str, schema: dict[str, Any], where: str, pointer: str) -> None:
        schema = copy.deepcopy(schema)
        local: dict[str, str] = {}  # "#/$defs/Name" -> hoisted key
        bodies: list[tuple[str, str, Any]] = []
        for kw in ("$defs", "definitions"):
            sub = schema.pop(kw, None)
            if isinstance(sub, dict):
                named = def_names(key, sub)
                for name in sorted(sub):
                    new = self._free(named[name])
                    self.defs[new] = None  # reserve
                    self.owner[new] = key
                    local[f"#/{kw}/{name}"] = new
                    bodies.append((new, f"{pointer}/{kw}/{name}", sub[name]))
        self.defs[key] = self._walk(schema, key, local, where, pointer)
        for new, ptr, body in bodies:
            self.defs[new] = self._walk(body, key, local, where, ptr)

    def _free(self, name: str) -> str:
        cand, n = name, 1
        while cand in self.defs:
            n += 1
            cand = f"{name}{n}"
        return cand

    def _walk(self, node: Any, key: str, local: dict[str, str], where: str, ptr: str) -> Any:
        if isinstance(node, bool) or not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in _DROP_KEYS:
                if k in ("$dynamicRef", "$recursiveRef"):
                    self.problems.append(
                        Problem(where, f"unsupported {k} replaced by an untyped value", ptr, warning=True)
                    )
                continue
            if k == "$ref":
                ref = self._ref(v, key, local)
                if ref is None:
                    self.problems.append(
                        Problem(
                            where, f"$ref {str(v)[:80]!r} points outside the document; typed as Any", ptr, warning=True
                        )
                    )
                    continue
                out[k] = ref
            elif k in _SCHEMA_MAP_KEYS and isinstance(v, dict):
                out[k] = {n: self._walk(s, key, local, where, f"{ptr}/{k}/{n}") for n, s in v.items()}
            elif k in _SCHEMA_LIST_KEYS and isinstance(v, list):
                out[k] = [self._walk(s, key, local, where, f"{ptr}/{k}/{i}") for i, s in enumerate(v)]
            elif k in _SCHEMA_ONE_KEYS:
                out[k] = self._walk(v, key, local, where, f"{ptr}/{k}")
            else:
                out[k] = v
        return out

    @staticmethod
    def _ref(ref: Any, key: str, local: dict[str, str]) -> str | None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        for prefix, new in local.items():
            if ref == prefix or ref.startswith(prefix + "/"):
                return f"#/$defs/{new}{ref[len(prefix) :]}"
        return f"#/$defs/{key}{ref[1:]}" if ref != "#" else f"#/$defs/{key}"


def _json(schema: Any) -> str:
    return json.dumps(schema, ensure_ascii=True, separators=(",", ":"), allow_nan=True)


@dataclass(frozen=True)
class Document:
    """What datamodel-code-generator reads: the schema document and its field aliases."""

    schema: dict[str, Any]  # {"$schema": ..., "$defs": {class key: typing view}}
    aliases: dict[str, str]  # "Class.wire" -> python field name (Args/Result models only)
    # Every $defs key -> the Args/Result key it belongs to (itself for those): a $ref never
    # leaves its owner's keys, so each tool's keys form a document of their own.
    owner: dict[str, str] = field(default_factory=dict)

    @property
    def models(self) -> frozenset[str]:
        """The Args/Result class names this document defines (the keys nothing else owns)."""
        return frozenset(k for k in self.schema["$defs"] if k not in self.owner)

    def parts(self, tools: Sequence[ToolPlan], *, max_tools: int, max_chars: int) -> list[Document]:
        """The document cut into self-contained parts, tools in plan order: a tool's Args, its
        Result and everything hoisted from them always in one part; a part ends after
        `max_tools` tools or once its schemas reach `max_chars` characters of JSON. The cut
        depends on the catalog alone (never on the machine), so the merged output does too."""
        defs: dict[str, Any] = self.schema["$defs"]
        keys_of: dict[str, list[str]] = {}
        for key in defs:  # sorted: every part keeps the whole document's order
            keys_of.setdefault(self.owner.get(key, key), []).append(key)
        groups: list[list[str]] = []
        current: list[str] = []
        count = size = 0
        for t in tools:
            keys = [k for top in (t.args_model, t.result_model) if top is not None for k in keys_of.get(top, ())]
            current += keys
            count += 1
            size += sum(len(_json(defs[k])) for k in keys)
            if count >= max_tools or size >= max_chars:
                groups.append(current)
                current, count, size = [], 0, 0
        if current:
            groups.append(current)
        parts: list[Document] = []
        for keys in groups:
            members = set(keys)
            tops = {self.owner.get(k, k) for k in keys}
            parts.append(
                Document(
                    {"$schema": self.schema["$schema"], "$defs": {k: v for k, v in defs.items() if k in members}},
                    {a: p for a, p in self.aliases.items() if a.partition(".")[0] in tops},
                    {k: self.owner[k] for k in keys if k in self.owner},
                )
            )
        return parts


def pattern_warnings(node: Any, where: str, ptr: str, problems: list[Problem]) -> None:
    """A warning per pattern the run time's linear engine cannot run (runtime/core/patterns.py),
    one a tool and position: every value it checks is refused at every call, so the author hears
    of it now. (The typing view has no patterns: they are found in the tool's own schema.)"""
    if not isinstance(node, dict):
        return
    found = [("pattern", node["pattern"])] if isinstance(node.get("pattern"), str) else []
    if isinstance(node.get("patternProperties"), dict):
        found += [("patternProperties", p) for p in node["patternProperties"]]
    for keyword, source in found:
        why = pattern_problem(source)
        if why is not None:
            msg = f"{keyword} {source[:80]!r} cannot run in linear time ({why}): every value it checks is refused"
            problems.append(Problem(where, msg, f"{ptr}/{keyword}", warning=True))
    for k, v in node.items():
        if k in _SCHEMA_MAP_KEYS and isinstance(v, dict):
            for name, sub in v.items():
                pattern_warnings(sub, where, f"{ptr}/{k}/{name}", problems)
        elif k in _SCHEMA_LIST_KEYS and isinstance(v, list):
            for i, sub in enumerate(v):
                pattern_warnings(sub, where, f"{ptr}/{k}/{i}", problems)
        elif k in _SCHEMA_ONE_KEYS:
            pattern_warnings(v, where, f"{ptr}/{k}", problems)


def build_document(tools: Sequence[ToolPlan]) -> tuple[Document, list[Problem]]:
    """The combined typing-view document, with DCG's scoped field aliases (Class.wire -> python)."""
    problems: list[Problem] = []
    defs: dict[str, Any] = {}
    hoist = _Hoister(defs, problems)
    # Reserve every top-level class name first so hoisted defs never take one.
    for t in tools:
        defs[t.args_model] = None
        if t.result_model is not None:
            defs[t.result_model] = None
    aliases: dict[str, str] = {}
    for t in tools:
        pattern_warnings(t.spec.input_schema, repr(t.wire), "/inputSchema", problems)
        pattern_warnings(t.spec.output_schema, repr(t.wire), "/outputSchema", problems)
        hoist.add(t.args_model, typing_view(t.spec.input_schema, root_object=True), repr(t.wire), "/inputSchema")
        for f in t.args:
            aliases[f"{t.args_model}.{f.wire}"] = f.python
        res, _ = result_view(t.spec)
        if res is not None and t.result_model is not None:
            root_object = t.shape is ResultShape.MODEL
            view = typing_view(res, root_object=root_object, keep_integers=True)
            hoist.add(t.result_model, view, repr(t.wire), "/outputSchema")
            for f in t.result_fields:
                aliases[f"{t.result_model}.{f.wire}"] = f.python
    BranchNamer(defs, hoist.owner).name_all()
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {k: defs[k] for k in sorted(defs)}}
    return Document(doc, aliases, hoist.owner), problems


def class_docs(tools: Sequence[ToolPlan]) -> dict[str, str]:
    """Class name -> docstring: the description of the schema it models."""
    out: dict[str, str] = {}
    for t in tools:
        for cls, schema in ((t.args_model, t.spec.input_schema), (t.result_model, result_view(t.spec)[0])):
            if cls is None:
                continue
            desc = schema.get("description") if isinstance(schema, dict) else None
            if isinstance(desc, str) and desc.strip():
                out[cls] = desc.strip()[:4000]
    return out
