"""What a tool's typed method returns: the schema of its result, and whether it is wrapped.

SDKs wrap a non-object result as `{"result": X}` (and FastMCP marks it with
`x-fastmcp-wrap-result`); the typed method returns X itself, so the plan, the models and both
renderers must agree on which schema describes X. They all ask here.
"""

from __future__ import annotations

from typing import Any

from ..catalog.model import ToolSpec


def result_view(spec: ToolSpec) -> tuple[dict[str, Any] | None, bool]:
    """The schema the typed method returns, and whether `{"result": X}` must be unwrapped."""
    out = spec.output_schema
    if out is None:
        return None, False
    props = out.get("properties")
    wrapped = bool(out.get("x-fastmcp-wrap-result")) or (
        isinstance(props, dict) and list(props) == ["result"] and out.get("required") == ["result"]
    )
    if wrapped and isinstance(props, dict) and isinstance(props.get("result"), dict):
        inner = dict(props["result"])
        for key in ("$defs", "definitions"):  # the inner schema's refs still point at the outer defs
            if key in out:
                inner.setdefault(key, out[key])
        return inner, True
    return out, False


def result_props(spec: ToolSpec) -> dict[str, Any]:
    schema, _ = result_view(spec)
    props = schema.get("properties") if schema else None
    return props if isinstance(props, dict) else {}
