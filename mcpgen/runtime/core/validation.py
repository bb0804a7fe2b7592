"""Exact JSON Schema checks: server arguments, and the generated models' `model_validator`s.

jsonschema is imported on first use, so the rest of the runtime stays standard-library only
(a vendored client therefore needs jsonschema installed next to pydantic). Validators are
compiled lazily, once per schema, never at import time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sized
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
    fast = fast_check(schema, formats=formats)

    def check(instance: Any) -> str | None:
        if fast is not None and fast(instance):
            return None  # valid for certain; jsonschema only runs to explain a failure
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


# -- a fast, sound pre-check --------------------------------------------------------------
#
# jsonschema walks a schema through validator objects, `evolve` and `descend` on every call: in
# profiles of a generated server and client it cost more than the JSON-RPC work around it. Most
# tool schemas use a handful of keywords, so those compile here into plain Python predicates.
# A predicate answering True means jsonschema finds no error; False (or a schema using anything
# not handled here: $ref, formats, patternProperties, ...) means "ask jsonschema", which then
# gives the same verdict and message as before. Only True is ever trusted.

Predicate = Callable[[Any], bool]

# Drafts whose meaning of the keywords below is the same (draft 4 counts 1.0 as no integer).
_FAST_DIALECTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
    }
)
# Keywords that never affect validity (annotations), beside any "x-..." extension.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$schema"}
)


class _Unsupported(Exception):
    pass


def _is_object(v: Any) -> bool:
    return isinstance(v, dict)


def _is_array(v: Any) -> bool:
    return isinstance(v, list)


def _is_string(v: Any) -> bool:
    return isinstance(v, str)


def _is_boolean(v: Any) -> bool:
    return isinstance(v, bool)


def _is_null(v: Any) -> bool:
    return v is None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


_TYPES: dict[str, Predicate] = {
    "object": _is_object,
    "array": _is_array,
    "string": _is_string,
    "boolean": _is_boolean,
    "null": _is_null,
    "number": _is_number,
    "integer": _is_integer,
}
_SIZED: dict[str, type[Sized]] = {"L": str, "I": list, "P": dict}


def _equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema sees it: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_equal, a, b))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return False


def _bound(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Unsupported("a bound that is not a number")
    return value


def _keyword(key: str, value: Any, schema: dict[str, Any], formats: bool) -> Predicate | None:
    """The check one keyword makes (None: it never fails); raises _Unsupported."""
    if key == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(n in _TYPES for n in names):
            raise _Unsupported(key)
        tests = [_TYPES[n] for n in names]
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(t(v) for t in tests)
    if key == "properties":
        if not isinstance(value, dict):
            raise _Unsupported(key)
        props = [(name, _compile(sub, formats)) for name, sub in value.items()]
        return lambda v: not isinstance(v, dict) or all(n not in v or p(v[n]) for n, p in props)
    if key == "required":
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise _Unsupported(key)
        required = list(value)
        return lambda v: not isinstance(v, dict) or all(n in v for n in required)
    if key == "additionalProperties":
        if "patternProperties" in schema:
            raise _Unsupported(key)
        known = frozenset(schema.get("properties") or ())
        if value is True:
            return None
        if value is False:
            return lambda v: not isinstance(v, dict) or all(n in known for n in v)
        extra = _compile(value, formats)
        return lambda v: not isinstance(v, dict) or all(n in known or extra(x) for n, x in v.items())
    if key == "items":
        if isinstance(value, list):
            raise _Unsupported("items as a list")
        item = _compile(value, formats)
        return lambda v: not isinstance(v, list) or all(map(item, v))
    if key == "enum":
        if not isinstance(value, list):
            raise _Unsupported(key)
        options = list(value)
        return lambda v: any(_equal(v, o) for o in options)
    if key == "const":
        return lambda v: _equal(v, value)
    if key == "minimum":
        low = _bound(value)
        return lambda v: not _is_number(v) or v >= low
    if key == "maximum":
        high = _bound(value)
        return lambda v: not _is_number(v) or v <= high
    if key == "exclusiveMinimum":
        above = _bound(value)
        return lambda v: not _is_number(v) or v > above
    if key == "exclusiveMaximum":
        below = _bound(value)
        return lambda v: not _is_number(v) or v < below
    if key in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Unsupported(key)
        kind, size = _SIZED[key[3]], value
        if key.startswith("min"):
            return lambda v: not isinstance(v, kind) or len(v) >= size
        return lambda v: not isinstance(v, kind) or len(v) <= size
    if key == "pattern":
        try:
            regex = re.compile(value)
        except (re.error, TypeError):
            raise _Unsupported(key) from None
        return lambda v: not isinstance(v, str) or regex.search(v) is not None
    if key == "format" and not formats:
        return None  # an annotation unless formats are checked
    if key in ("anyOf", "allOf"):  # (not oneOf: a False that only means "ask jsonschema" would miscount)
        if not isinstance(value, list) or not value:
            raise _Unsupported(key)
        subs = [_compile(sub, formats) for sub in value]
        if key == "anyOf":
            return lambda v: any(s(v) for s in subs)
        return lambda v: all(s(v) for s in subs)
    raise _Unsupported(key)  # $ref, $defs, format, patternProperties, oneOf, not, ...


def _always(v: Any) -> bool:
    return True


def _compile(schema: Any, formats: bool) -> Predicate:
    if schema is True:
        return _always
    if not isinstance(schema, dict):
        raise _Unsupported("false or malformed schema")
    checks: list[Predicate] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-"):
            continue
        check = _keyword(key, value, schema, formats)
        if check is not None:
            checks.append(check)
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


def fast_check(schema: Any, *, formats: bool = True) -> Predicate | None:
    """A predicate that is True only for instances the schema certainly accepts, or None when
    the schema uses something the fast path does not handle (then jsonschema decides alone)."""
    if (
        isinstance(schema, dict)
        and schema.get("$schema", "https://json-schema.org/draft/2020-12/schema").rstrip("#") not in _FAST_DIALECTS
    ):
        return None
    try:
        return _compile(schema, formats)
    except (_Unsupported, RecursionError):
        return None


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


def check_exact_model(cls: type, data: Any, context: Any, schemas: Mapping[str, str], wraps: Mapping[str, str]) -> Any:
    """check_exact for a generated model class: its schema is found by class name (a user's
    subclass of a generated model is checked against its generated parent's schema)."""
    for klass in cls.__mro__:
        schema = schemas.get(klass.__name__)
        if schema is not None:
            return check_exact(schema, _by_wire_name(cls, data), context, wraps.get(klass.__name__))
    return data


def _by_wire_name(cls: type, data: Any) -> Any:
    """A mapping keyed by Python field names (`Relation(from_=...)`) keyed by wire names, which is
    what the schema speaks. A key that is some field's wire name stays: the wire name wins."""
    fields = getattr(cls, "model_fields", None)
    if type(data) is not dict or not isinstance(fields, Mapping):
        return data
    wire_of: dict[str, str] = {}
    for name, info in fields.items():
        alias = getattr(info, "serialization_alias", None) or getattr(info, "alias", None)
        if isinstance(alias, str) and alias != name:
            wire_of[name] = alias
    if not wire_of:
        return data
    wires = set(wire_of.values()) | (set(fields) - set(wire_of))
    out = {k: v for k, v in data.items() if k in wires}
    for key, value in data.items():
        if key not in wires:
            out.setdefault(wire_of.get(key, key), value)  # both spellings given: the wire name's wins
    return out


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_model(value: Any) -> bool:
    if type(value) in _SCALARS or type(value) is dict or type(value) is list:
        return False
    return callable(getattr(value, "model_dump", None)) and hasattr(type(value), "model_fields")


def _plain(value: Any) -> Any:
    """JSON-shaped data: nested pydantic models dumped by alias (unset fields left out), tuples as lists."""
    if type(value) in _SCALARS:
        return value
    if _is_model(value):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
