"""What a mock does instead of drawing a result: canned results, scripted errors, latency, faults.

An overrides file (JSON or YAML) maps tool names to a behaviour, or to a list of behaviours
that successive calls use in turn (the last one repeats); `"*"` applies to every tool without
its own entry:

    tools:
      get-forecast: {structured: {city: Oslo, temperatures: [3.5]}}
      flaky: [{error: "busy, try again"}, {}]          # fails once, then answers
      slow: {latency: 0.5}
      broken: {rpc_error: {code: -32603, message: boom}}
      "*": {fault: hang}                               # drop | hang | crash

Everything is checked when the file is loaded (unknown keys and tools, a `structured` value
that the tool's outputSchema rejects): a typo fails the test run, never a call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog.model import Catalog
from ..runtime.core.validation import compile_validator
from ..sources.files import read_document

FAULTS = ("drop", "hang", "crash")
_KEYS = {"structured", "content", "error", "rpc_error", "latency", "fault"}
# A scripted latency above this is a mistake (a test would stall), not a wish.
MAX_LATENCY = 300.0
MAX_SCRIPT = 10_000


class OverridesError(ValueError):
    """The overrides file is wrong: one line naming the tool and the key."""


@dataclass(frozen=True)
class Behaviour:
    """One call's scripted answer; an empty Behaviour means "draw a result from the schema"."""

    structured: Any = None
    has_structured: bool = False
    content: tuple[dict[str, Any], ...] | None = None
    error: str | None = None
    rpc_error: tuple[int, str, Any] | None = None
    latency: float = 0.0
    fault: str | None = None


@dataclass
class Overrides:
    """Per tool, the behaviours its calls use in turn (the last repeats)."""

    tools: dict[str, list[Behaviour]] = field(default_factory=dict)
    _calls: dict[str, int] = field(default_factory=dict)

    def next(self, tool: str) -> Behaviour:
        script = self.tools.get(tool) or self.tools.get("*")
        if not script:
            return Behaviour()
        count = self._calls.get(tool, 0)
        self._calls[tool] = count + 1
        return script[min(count, len(script) - 1)]


def load_overrides(path: str | Path, catalog: Catalog) -> Overrides:
    """Read and check an overrides file against the catalog it will serve."""
    file = Path(path)
    # The same reader as schema files: JSON or YAML, aliases and size bounded.
    document, problems = read_document(file)
    if problems:
        raise OverridesError(str(problems[0]))
    return parse_overrides(document, catalog, where=str(file))


def parse_overrides(document: Any, catalog: Catalog, *, where: str = "overrides") -> Overrides:
    if not isinstance(document, Mapping) or set(document) - {"tools"}:
        raise OverridesError(f"{where}: expected an object with one key, 'tools'")
    tools = document.get("tools") or {}
    if not isinstance(tools, Mapping):
        raise OverridesError(f"{where}: 'tools' must map tool names to behaviours")
    known = {tool.name: tool for tool in catalog.tools}
    out = Overrides()
    for name, entry in tools.items():
        if name != "*" and name not in known:
            raise OverridesError(f"{where}: tool {name!r} is not in the catalog")
        script = entry if isinstance(entry, list) else [entry]
        if not script or len(script) > MAX_SCRIPT:
            raise OverridesError(f"{where}: tool {name!r}: a script holds 1 to {MAX_SCRIPT} behaviours")
        output_schema = known[name].output_schema if name in known else None
        out.tools[name] = [_behaviour(item, name, output_schema, where) for item in script]
    return out


def _behaviour(item: Any, tool: str, output_schema: dict[str, Any] | None, where: str) -> Behaviour:
    here = f"{where}: tool {tool!r}"
    if not isinstance(item, Mapping):
        raise OverridesError(f"{here}: a behaviour is an object")
    unknown = sorted(set(item) - _KEYS)
    if unknown:
        raise OverridesError(f"{here}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    latency = item.get("latency", 0.0)
    if isinstance(latency, bool) or not isinstance(latency, (int, float)) or not 0 <= latency <= MAX_LATENCY:
        raise OverridesError(f"{here}: latency is seconds between 0 and {MAX_LATENCY:g}")
    fault = item.get("fault")
    if fault is not None and fault not in FAULTS:
        raise OverridesError(f"{here}: fault is one of {', '.join(FAULTS)}, not {fault!r}")
    error = item.get("error")
    if error is not None and not isinstance(error, str):
        raise OverridesError(f"{here}: error is the message text of an isError result")
    rpc = item.get("rpc_error")
    rpc_error: tuple[int, str, Any] | None = None
    if rpc is not None:
        code, message = (rpc.get("code"), rpc.get("message")) if isinstance(rpc, Mapping) else (None, None)
        if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
            raise OverridesError(f"{here}: rpc_error is {{code: <integer>, message: <text>, data: <optional>}}")
        rpc_error = (code, message, rpc.get("data"))
    content = item.get("content")
    if content is not None and (
        not isinstance(content, list) or not all(isinstance(b, Mapping) and "type" in b for b in content)
    ):
        raise OverridesError(f"{here}: content is a list of content blocks ({{type: text, text: ...}})")
    has_structured = "structured" in item
    if has_structured:
        if output_schema is None and tool != "*":
            raise OverridesError(f"{here}: structured given, but the tool has no outputSchema")
        if output_schema is not None:
            problem = compile_validator(output_schema)(item["structured"])
            if problem is not None:
                raise OverridesError(f"{here}: structured does not match the outputSchema: {problem}")
    if sum(x is not None for x in (error, rpc_error, fault)) > 1:
        raise OverridesError(f"{here}: choose one of error, rpc_error and fault")
    return Behaviour(
        structured=item.get("structured"),
        has_structured=has_structured,
        content=tuple(dict(b) for b in content) if content is not None else None,
        error=error,
        rpc_error=rpc_error,
        latency=float(latency) if math.isfinite(latency) else 0.0,
        fault=fault,
    )


__all__ = ["Behaviour", "FAULTS", "Overrides", "OverridesError", "load_overrides", "parse_overrides"]
