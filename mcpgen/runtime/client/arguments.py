"""Bad arguments explained in the caller's own words: one line per problem, by Python name.

A typed method validates its arguments with the tool's Args model, which checks the raw
instance against the JSON Schema (wire names) and then builds the model (aliases, wire names
again). Users typed Python keywords, so paths are translated back through the models' fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args

from ..core.errors import SchemaMismatch
from ..core.jsonrpc import is_object
from ..core.validation import SchemaProblem

# pydantic's own messages are followed by a URL and the input; only its short message is kept.
_MESSAGE_CHARS = 300


def problems_of(exc: Any) -> list[SchemaProblem]:
    """Every problem inside a pydantic ValidationError, with its path in wire names."""
    found: list[SchemaProblem] = []
    for error in exc.errors(include_url=False, include_input=False):
        ctx: dict[str, Any] = error.get("ctx") or {}
        cause = ctx.get("error")
        loc = tuple(p if isinstance(p, int) else str(p) for p in error.get("loc", ()))
        if isinstance(cause, SchemaMismatch):
            found += [SchemaProblem((*loc, *p.path), p.message) for p in cause.problems]
        else:
            found.append(SchemaProblem(loc, str(error.get("msg", ""))[:_MESSAGE_CHARS]))
    return found


def python_lines(model: Any, problems: Sequence[SchemaProblem]) -> list[str]:
    """`message_type: 3 is not of type 'string'`: each path through `model`'s fields by Python name."""
    return [f"{python_path(model, p.path) or '(arguments)'}: {p.message}" for p in problems]


def wire_lines(problems: Sequence[SchemaProblem]) -> list[str]:
    """`/messageType: 3 is not of type 'string'`: JSON pointers in wire names, for an LLM to read."""
    return [str(p) for p in problems]


def python_path(model: Any, path: Sequence[str | int]) -> str:
    """`items[0].entity_type` for the wire path ("items", 0, "entityType") through `model`."""
    out = ""
    current: Any = model
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
            current = _item_type(current)
            continue
        name, current = _field(_model_of(current), part)
        out += f".{name}" if out else name
    return out


def _field(model: Any, wire: str) -> tuple[str, Any]:
    """The Python name of the field sent as `wire`, and its type (None when unknown)."""
    fields = getattr(model, "model_fields", None)
    if is_object(fields):
        for name, info in fields.items():
            # Generated models alias through serialization_alias (mypy then sees the Python names).
            if (info.serialization_alias or info.alias or name) == wire:
                return name, info.annotation
    return wire, None


def _model_of(annotation: Any) -> Any:
    """The model class inside `X` or `X | None`, else None."""
    if getattr(annotation, "model_fields", None) is not None:
        return annotation
    for arg in get_args(annotation):
        if getattr(arg, "model_fields", None) is not None:
            return arg
    return None


def _item_type(annotation: Any) -> Any:
    """The element type of list[X] / tuple[X, ...] / X | None, else None."""
    for arg in get_args(annotation):
        if getattr(arg, "model_fields", None) is not None:
            return arg
        inner = _item_type(arg)
        if inner is not None:
            return inner
    return None
