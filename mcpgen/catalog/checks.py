"""Checks on a tool's schemas that decide whether mcpgen can generate it at all.

Meta-validation (is it a JSON Schema?) happens when the catalog is built (`model.py`);
these run on the parsed tools: a schema whose `$ref`s leave the document (mcpgen never reads
a file or a URL because a schema named it) or that nests deeper than MAX_DEPTH cannot be
checked exactly, so its tool is refused (or, with --skip-invalid, left out with a warning).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import Problem, ToolSpec

# Deeper than this (JSON nesting, about two levels per subschema), a schema is refused.
MAX_DEPTH = 1000


def schema_depth(node: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of dicts/lists, computed without recursion (hostile depth cannot crash it)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(node, 0)]
    while stack:
        cur, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(cur, dict):
            stack.extend((v, d + 1) for v in cur.values())
        elif isinstance(cur, list):
            stack.extend((v, d + 1) for v in cur)
    return deepest


def ref_problems(schema: Any) -> list[tuple[str, str]]:
    """(pointer, message) for every `$ref`/`$dynamicRef` that does not resolve inside `schema`.

    Uses `referencing` with an empty registry (plus the bundled meta-schemas): a lookup that
    would need a file or the network fails instead of fetching.
    """
    if not isinstance(schema, dict):
        return []
    from jsonschema_specifications import REGISTRY as SPECS  # type: ignore[import-untyped]
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012, UnknownDialect, specification_with

    spec = specification_with(str(schema.get("$schema", "")), default=DRAFT202012)
    root = spec.create_resource(schema)
    base = root.id() or ""
    registry: Registry[Any] = SPECS.combine(Registry().with_resource(base, root)).crawl()
    out: list[tuple[str, str]] = []
    where = _pointers(schema)
    stack = [(root, registry.resolver(base_uri=base))]
    while stack:
        res, resolver = stack.pop()
        node = res.contents
        ptr = where.get(id(node), "")
        if isinstance(node, dict):
            dialect = node.get("$schema")
            if dialect is not None:
                try:
                    specification_with(str(dialect))
                except UnknownDialect:
                    # Its vocabularies live in a metaschema mcpgen would have to fetch.
                    out.append(
                        (
                            f"{ptr}/$schema",
                            f"unknown $schema {str(dialect)[:80]!r} (known: JSON Schema "
                            "draft-04 to 2020-12; mcpgen never fetches a metaschema)",
                        )
                    )
            for kw in ("$ref", "$dynamicRef", "$recursiveRef"):
                ref = node.get(kw)
                if not isinstance(ref, str):
                    continue
                try:
                    resolver.lookup(ref)
                except (Unresolvable, ValueError, KeyError, TypeError):
                    out.append(
                        (
                            f"{ptr}/{kw}",
                            f"{kw} {ref[:80]!r} does not resolve inside the document "
                            "(mcpgen never reads files or URLs)",
                        )
                    )
        for sub in res.subresources():
            stack.append((sub, resolver.in_subresource(sub)))
    return sorted(set(out))


def _pointers(schema: Any) -> dict[int, str]:
    """id(node) -> JSON pointer of every object/array in `schema` (iterative: depth-safe)."""
    out: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, ptr = stack.pop()
        if isinstance(node, (dict, list)):
            out.setdefault(id(node), ptr)
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for k, v in items:
                stack.append((v, f"{ptr}/{str(k).replace('~', '~0').replace('/', '~1')}"))
    return out


def check_tools(tools: Iterable[ToolSpec]) -> list[Problem]:
    """Tools no model can check exactly (refs leaving the document, hostile depth): refused one by one."""
    problems: list[Problem] = []
    for t in tools:
        for pointer, schema in (("/inputSchema", t.input_schema), ("/outputSchema", t.output_schema)):
            if schema is None:
                continue
            if schema_depth(schema) > MAX_DEPTH:
                problems.append(
                    Problem(
                        repr(t.name),
                        f"schema nested deeper than {MAX_DEPTH} levels",
                        pointer,
                        skippable=True,
                        tool=t.name,
                    )
                )
                continue
            try:
                found = ref_problems(schema)
            except RecursionError:
                found = [("", "schema nested too deeply to resolve its references")]
            problems += [Problem(repr(t.name), msg, pointer + ptr, skippable=True, tool=t.name) for ptr, msg in found]
    return problems
