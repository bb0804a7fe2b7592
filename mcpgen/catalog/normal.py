"""The one normal form of a catalog, whatever its source (a live server, a file, a snapshot).

Every source builds its catalog through build_catalog, which puts what a server says about itself
(`serverInfo`) and its prompts, resources and resource templates in this form: every object's
keys sorted, the lists sorted by name / uri. So generating from a live server and from its
snapshot gives the same bytes (a server's own key order is no part of its contract). Tool
objects are kept exactly as the server sent them: key order inside a schema is meaningful to
the generator (argument order of the typed methods, what an LLM reads).
"""

from __future__ import annotations

from typing import Any


def canonical(value: Any) -> Any:
    """A copy with every object's keys in sorted order (lists keep their order)."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def sorted_by(key: str, items: Any) -> tuple[dict[str, Any], ...]:
    """The objects of `items` in canonical form, sorted by `key`. The sort is stable: objects with
    the same `key` (duplicates) keep the source's order, so "the first definition wins" still
    means the first the server sent."""
    objects = [canonical(item) for item in items or () if isinstance(item, dict)]
    return tuple(sorted(objects, key=lambda item: str(item.get(key, ""))))
