"""Human-readable view of a catalog for `mcpgen inspect`: the names its plan gives everything."""

from __future__ import annotations

from typing import Any

from ..catalog.model import Catalog
from ..plan.build import build_plan


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]) + "\n"


def _clip(text: Any, n: int = 60) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _heading(catalog: Catalog, source: str) -> str:
    """Who answered: the server's own name when it gave one, else where the catalog came from."""
    info = catalog.server_info
    name = info.get("name")
    if not name:
        return f"source: {source}" if source else ""
    head = f"server: {_clip(name, 80)} {_clip(info.get('version'), 40)}".rstrip()
    if catalog.protocol_version:
        head += f"  (protocol {_clip(catalog.protocol_version, 40)})"
    return head


def _prompt_arguments(prompt: dict[str, Any]) -> str:
    """Argument names, optional ones marked `?` as in the tool table."""
    arguments = prompt.get("arguments")
    if not isinstance(arguments, list):
        return ""
    return ", ".join(
        str(a.get("name")) + ("" if a.get("required") is True else "?") for a in arguments if isinstance(a, dict)
    )


def format_catalog(catalog: Catalog, source: str = "") -> str:
    """The table `mcpgen inspect` prints; `source` names a file source that has no server name."""
    head = _heading(catalog, source)
    plan = build_plan(catalog, skip_invalid=True)  # what cannot be generated is not listed
    rows = []
    for t in plan.tools:
        req_raw = t.spec.input_schema.get("required")
        req: list[Any] = req_raw if isinstance(req_raw, list) else []
        args = ", ".join(f.python + ("" if f.wire in req else "?") for f in t.args)
        ret = t.result_model + (" (unwrapped)" if t.wrapped else "") if t.result_model else "ToolResult"
        rows.append([t.wire, t.method, args, ret, _clip(t.spec.title or t.spec.description)])
    out = [
        *([head, ""] if head else []),
        f"tools ({len(plan.tools)}):",
        _table(["tool", "method", "arguments", "returns", "description"], rows),
    ]
    if catalog.prompts:
        prow = [
            [
                str(p.get("name", "")),
                _prompt_arguments(p),
                _clip(p.get("description")),
            ]
            for p in catalog.prompts
        ]
        out += [f"prompts ({len(prow)}):", _table(["prompt", "arguments", "description"], prow)]
    if catalog.resources or catalog.resource_templates:
        rrow = [
            [str(r.get("uri", "")), str(r.get("mimeType", "")), _clip(r.get("name"), 40)] for r in catalog.resources
        ]
        rrow += [
            [str(r.get("uriTemplate", "")), str(r.get("mimeType", "")), _clip(r.get("name"), 40)]
            for r in catalog.resource_templates
        ]
        out += [f"resources ({len(rrow)}):", _table(["uri", "mime type", "name"], rrow)]
    return "\n".join(out)
