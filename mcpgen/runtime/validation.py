"""Exact JSON Schema checks: server arguments, and the generated models' `model_validator`s.

jsonschema is imported on first use, so the rest of the runtime stays standard-library only
(a vendored client therefore needs jsonschema installed next to pydantic). Validators are
compiled lazily, once per schema, never at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], "str | None"]

# Context key a caller sets to False to skip the exact check (client `validate_output="off"`).
EXACT_CONTEXT_KEY = "mcpgen_exact"


def compile_validator(schema: dict[str, Any] | bool, *, formats: bool = True) -> Check:
    """A function returning None for a valid instance, else one line naming where and why."""
    import jsonschema
    import referencing

    # The schema's own $schema picks the dialect (2020-12 by default, as MCP says). An empty
    # registry (jsonschema adds the bundled meta-schemas) has no retrieval: a $ref outside
    # the document fails instead of reading a file or fetching a URL.
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    kwargs: dict[str, Any] = {"registry": referencing.Registry()}
    if formats:
        kwargs["format_checker"] = cls.FORMAT_CHECKER
    validator = cls(schema, **kwargs)

    def check(instance: Any) -> str | None:
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
        except RecursionError:
            return "(value): nested too deeply to check"
        except referencing.exceptions.Unresolvable as exc:
            return f"(schema): unresolvable reference {str(exc)[:100]}"
        if error is None:
            return None
        where = "/".join(str(part) for part in error.absolute_path) or "(value)"
        return f"{where}: {error.message}"[:1000]

    return check


_compiled: dict[str, Check] = {}


def check_exact(schema_json: str, data: Any, context: Any = None, wrap: str | None = None) -> Any:
    """What a generated model's `mode="before"` validator calls: check the RAW instance
    (before pydantic's lax coercions such as "1" -> 1 can happen) and hand back plain data.

    `wrap` checks `{wrap: data}` instead (a result the SDKs wrap as `{"result": X}`).
    Raises ValueError (pydantic turns it into a ValidationError) when the schema rejects it.
    """
    if isinstance(context, Mapping) and context.get(EXACT_CONTEXT_KEY) is False:
        return data
    if _is_model(data):
        return data  # already validated when it was built
    plain = _plain(data)
    check = _compiled.get(schema_json)
    if check is None:
        import json

        check = _compiled[schema_json] = compile_validator(json.loads(schema_json), formats=False)
    problem = check(plain if wrap is None else {wrap: plain})
    if problem is not None:
        raise ValueError(f"does not match the JSON Schema: {problem}")
    return plain


def check_exact_model(
    cls: type, data: Any, context: Any, schemas: Mapping[str, str], wraps: Mapping[str, str]
) -> Any:
    """check_exact for a generated model class: its schema is found by class name (a user's
    subclass of a generated model is checked against its generated parent's schema)."""
    for klass in cls.__mro__:
        schema = schemas.get(klass.__name__)
        if schema is not None:
            return check_exact(schema, data, context, wraps.get(klass.__name__))
    return data


def _is_model(value: Any) -> bool:
    return callable(getattr(value, "model_dump", None)) and hasattr(type(value), "model_fields")


def _plain(value: Any) -> Any:
    """JSON-shaped data: nested pydantic models dumped by alias (unset fields left out), tuples as lists."""
    if _is_model(value):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
