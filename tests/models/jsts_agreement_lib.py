"""The JSON Schema Test Suite as MCP tools: wrap, generate ONE client, measure agreement.

Shared by tests/models/test_jsts.py and bench/jsts_agreement.py. Each test group's schema S
becomes one tool whose inputSchema is `{"type": "object", "properties": {"value": S},
"required": ["value"]}`; each test instance is checked as `Args.model_validate({"value": x})`.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JSTS = Path(__file__).resolve().parent / "jsts"
DRAFTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
_ONES = (
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
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
VALUE_POINTER = "#/properties/value"


@dataclass(frozen=True)
class Group:
    draft: str
    file: str  # keyword file stem, e.g. "ref"
    index: int
    description: str
    schema: Any
    tests: tuple[tuple[str, Any, bool], ...]  # (description, instance, valid)

    @property
    def tool(self) -> str:
        return f"{self.draft}/{self.file}.json#{self.index}"


def groups(drafts: tuple[str, ...] = tuple(DRAFTS)) -> Iterator[Group]:
    """Every group of the required files (optional/ is left out, as the suite intends)."""
    for draft in drafts:
        for path in sorted((JSTS / draft).glob("*.json")):
            for i, g in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                tests = tuple((t["description"], t["data"], t["valid"]) for t in g["tests"])
                yield Group(draft, path.stem, i, g["description"], g["schema"], tests)


def _rewrite(node: Any) -> Any:
    """Point S's root-relative refs at S's new place; refs into hoisted $defs stay as they are.

    Below a subschema with its own `$id`, refs resolve against that resource: left alone.
    """
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in ("$ref", "$dynamicRef") and isinstance(v, str):
            out[k] = _ref(v)
        elif k in _MAPS and isinstance(v, dict):
            out[k] = {n: _nested(s) for n, s in v.items()}
        elif k in _LISTS and isinstance(v, list):
            out[k] = [_nested(s) for s in v]
        elif k in _ONES:
            out[k] = _nested(v)
        else:
            out[k] = v
    return out


def _nested(node: Any) -> Any:
    return node if isinstance(node, dict) and "$id" in node else _rewrite(node)


def _ref(ref: str) -> str:
    if ref == "#":
        return VALUE_POINTER
    if ref.startswith(("#/$defs/", "#/definitions/")) or ref in ("#/$defs", "#/definitions"):
        return ref
    if ref.startswith("#/"):
        return VALUE_POINTER + ref[1:]
    return ref  # an anchor or a URI: resolved as before (the root resource still holds S)


def wrap(schema: Any, draft: str) -> dict[str, Any]:
    """S as the `value` property of a tool's inputSchema; S's `$defs`/`definitions` at the root."""
    root: dict[str, Any] = {"$schema": DRAFTS[draft], "type": "object", "required": ["value"]}
    if not isinstance(schema, dict) or "$id" in schema:
        # An S with its own $id is its own resource: its refs resolve against it, unchanged.
        root["properties"] = {"value": schema}
        return root
    body = {k: v for k, v in schema.items() if k not in ("$schema", "$defs", "definitions")}
    for kw in ("$defs", "definitions"):
        if isinstance(schema.get(kw), dict):
            root[kw] = {n: _nested(s) for n, s in schema[kw].items()}
    root["properties"] = {"value": _rewrite(body)}
    return root


@dataclass
class Outcome:
    """Per case: agree / miss (with what happened) / refused (the generator left the tool out)."""

    agree: list[tuple[Group, str]] = field(default_factory=list)
    miss: list[tuple[Group, str, str]] = field(default_factory=list)  # (group, test, what happened)
    refused: list[tuple[Group, str, str]] = field(default_factory=list)  # (group, test, problem)


def generate(out_dir: Path, package: str) -> tuple[Any, dict[str, str], list[Group]]:
    """One generator run over every group; returns (imported package, refused tool -> message, groups)."""
    from mcpgen.catalog.build import build_catalog
    from mcpgen.generate import generate_client
    from mcpgen.options import ClientOptions
    from mcpgen.output.write import write_atomic

    all_groups = list(groups())
    tools = [{"name": g.tool, "description": g.description, "inputSchema": wrap(g.schema, g.draft)} for g in all_groups]
    catalog, problems = build_catalog(tools)
    refused = {p.where: p for p in problems}
    fs = generate_client(catalog, ClientOptions(), skip_invalid=True)
    why = {p.tool or p.where: str(p) for p in [*problems, *fs.warnings] if p.skippable}
    write_atomic(fs, out_dir / package)
    sys.path.insert(0, str(out_dir))
    try:
        pkg = importlib.import_module(package)
        importlib.import_module(package + ".models")
    finally:
        sys.path.remove(str(out_dir))
    del refused
    return pkg, why, all_groups


def measure(pkg: Any, why: dict[str, str], all_groups: list[Group]) -> Outcome:
    import pydantic

    models = importlib.import_module(pkg.__name__ + ".models")
    table = pkg._catalog.TOOL_TABLE
    out = Outcome()
    for g in all_groups:
        if g.tool not in table:
            reason = why.get(g.tool) or why.get(repr(g.tool)) or "refused"
            out.refused += [(g, d, reason) for d, _, _ in g.tests]
            continue
        model = getattr(models, table[g.tool][0])
        for desc, instance, valid in g.tests:
            try:
                model.model_validate({"value": instance})
                got = True
            except pydantic.ValidationError:
                got = False
            except Exception as exc:  # a crash is a miss, never an agreement
                out.miss.append((g, desc, f"raised {type(exc).__name__}: {str(exc)[:120]}"))
                continue
            if got == valid:
                out.agree.append((g, desc))
            else:
                out.miss.append((g, desc, "accepted an invalid instance" if got else "rejected a valid instance"))
    return out


def table(out: Outcome) -> list[tuple[str, str, int, int, int, int]]:
    """Rows (draft, file, cases, agree, miss, refused) per keyword file, sorted."""
    rows: dict[tuple[str, str], list[int]] = {}
    for g, *_ in out.agree:
        rows.setdefault((g.draft, g.file), [0, 0, 0])[0] += 1
    for g, *_ in out.miss:
        rows.setdefault((g.draft, g.file), [0, 0, 0])[1] += 1
    for g, *_ in out.refused:
        rows.setdefault((g.draft, g.file), [0, 0, 0])[2] += 1
    return [(d, f, sum(v), v[0], v[1], v[2]) for (d, f), v in sorted(rows.items())]


def agreement(agree: int, miss: int) -> float:
    """Share of generated cases where the model and the suite agree (refused cases are listed apart)."""
    return 1.0 if agree + miss == 0 else agree / (agree + miss)
