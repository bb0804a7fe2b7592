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
    resolvers: dict[int, Any] = {}
    while stack:
        res, resolver = stack.pop()
        node = res.contents
        ptr = where.get(id(node), "")
        if isinstance(node, dict):
            resolvers.setdefault(id(node), (node, resolver))
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
    out += _ref_cycles(resolvers, where)
    return sorted(set(out))


# Keywords that apply their subschemas to the same value: a cycle through these and `$ref` alone
# never reaches a smaller part of the value, so checking any value against it never ends.
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("not", "if", "then", "else")


def _reachable(
    resolvers: dict[int, tuple[dict[str, Any], Any]], edges: dict[int, list[tuple[int, str | None]]]
) -> list[int]:
    """The subschemas validation can reach from the root (first in `resolvers`): through any
    keyword but `$defs`/`definitions`, and through `$ref`. A cycle among unused definitions
    never runs, so it refuses nothing."""
    if not resolvers:
        return []
    root = next(iter(resolvers))
    seen = {root}
    todo = [root]
    while todo:
        key = todo.pop()
        found = [t for t, _ in edges[key]]
        nested: list[Any] = [v for k, v in resolvers[key][0].items() if k not in ("$defs", "definitions")]
        while nested:  # the JSON under this schema, down to the next subschemas
            cur = nested.pop()
            if isinstance(cur, dict) and id(cur) in resolvers:
                found.append(id(cur))
            elif isinstance(cur, dict):
                nested.extend(cur.values())
            elif isinstance(cur, list):
                nested.extend(cur)
        for target in found:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return [key for key in resolvers if key in seen]


def _ref_cycles(resolvers: dict[int, tuple[dict[str, Any], Any]], where: dict[int, str]) -> list[tuple[str, str]]:
    """(pointer, message) for each `$ref` on a cycle of references that checks one value against
    itself forever (`A: {$ref: B}`, `B: {$ref: A}`, or `{"anyOf": [{"$ref": "#"}]}`): every value
    would be refused at run time, so the tool is refused at generation, naming the `$ref`."""
    edges: dict[int, list[tuple[int, str | None]]] = {}
    for key, (node, resolver) in resolvers.items():
        succ: list[tuple[int, str | None]] = []
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                target = resolver.lookup(ref).contents
            except Exception:  # unresolvable: reported above
                target = None
            if isinstance(target, dict):
                succ.append((id(target), ref))
        for kw in _IN_PLACE_LISTS:
            subs = node.get(kw)
            if isinstance(subs, list):
                succ += [(id(sub), None) for sub in subs if isinstance(sub, dict)]
        succ += [(id(node[kw]), None) for kw in _IN_PLACE_ONE if isinstance(node.get(kw), dict)]
        edges[key] = [(t, r) for t, r in succ if t in resolvers]
    out: list[tuple[str, str]] = []
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start in _reachable(resolvers, edges):
        if start in state:
            continue
        path: list[int] = [start]
        state[start] = 1
        iters = [iter(edges[start])]
        while iters:  # iterative depth-first search: a hostile graph cannot exhaust the stack
            step = next(iters[-1], None)
            if step is None:
                state[path.pop()] = 2
                iters.pop()
                continue
            target, _ = step
            if state.get(target) == 1:
                # One line per cycle, at its first `$ref` by pointer (a cycle always holds one).
                refs = [n for n in path[path.index(target) :] if isinstance(resolvers[n][0].get("$ref"), str)]
                node_id = min(refs, key=lambda n: where.get(n, ""))
                ref = resolvers[node_id][0]["$ref"]
                out.append(
                    (
                        f"{where.get(node_id, '')}/$ref",
                        f"$ref {ref[:80]!r} leads back to itself without descending into the value "
                        "(a $ref cycle): no value could ever be checked against it",
                    )
                )
            elif target not in state:
                state[target] = 1
                path.append(target)
                iters.append(iter(edges[target]))
    return out


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
