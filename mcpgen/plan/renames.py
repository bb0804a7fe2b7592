"""The names the plan gave other than by the plain rule: a keyword or member stepped around
(`class` -> `class_`), a collision numbered (`get_x` -> `get_x_2`). Listed after generation and
kept in the manifest, so that no rename is silent."""

from __future__ import annotations

from dataclasses import dataclass

from .naming import snake
from .types import Plan


@dataclass(frozen=True)
class Rename:
    wire: str  # the wire name; an argument or field is qualified by its owner: "search.class"
    python: str


def plan_renames(plan: Plan) -> list[Rename]:
    """Every name in `plan` that is not the plain snake_case of its wire name (plus its prefix)."""
    out: list[Rename] = []

    def check(wire: str, python: str, plain: str, owner: str | None = None) -> None:
        if python != plain:
            out.append(Rename(f"{owner}.{wire}" if owner is not None else wire, python))

    for t in plan.tools:
        check(t.wire, t.method, snake(t.wire, empty="tool"))
        for f in (*t.args, *t.result_fields):
            check(f.wire, f.python, snake(f.wire, empty="field"), t.wire)
    for p in plan.prompts:
        check(p.wire, p.client_method, "get_" + snake(p.wire, empty="prompt"))
        check(p.wire, p.server_method, "prompt_" + snake(p.wire, empty="prompt"))
        for a in p.params:
            check(a.wire, a.python, snake(a.wire, empty="field"), p.wire)
    for r in plan.resources:
        label = r.definition.get("name") if isinstance(r.definition.get("name"), str) else None
        check(r.uri, r.server_method, "resource_" + snake(label or r.uri, empty="resource"))
    for tp in plan.templates:
        label = tp.definition.get("name") if isinstance(tp.definition.get("name"), str) else None
        check(tp.template, tp.client_method, "read_" + snake(label or tp.template, empty="template"))
        check(tp.template, tp.server_method, "template_" + snake(label or tp.template, empty="template"))
        for a in tp.params:
            check(a.wire, a.python, snake(a.wire, empty="field"), tp.template)
    return list(dict.fromkeys(out))
