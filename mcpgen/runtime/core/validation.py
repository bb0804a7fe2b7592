"""Exact JSON Schema checks: server arguments, and the generated models' `model_validator`s.

jsonschema is imported on first use, so the rest of the runtime stays standard-library only
(a vendored client therefore needs jsonschema installed next to pydantic). Validators are
compiled lazily, once per schema, never at import time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any

Check = Callable[[Any], "str | None"]

# Context key a caller sets to False to skip the exact check (client `validate_output="off"`).
EXACT_CONTEXT_KEY = "mcpgen_exact"


# At most this many problems are listed for one instance (a 10,000-item array of wrong items
# must not become a 10,000-line error), each message at most this long.
MAX_PROBLEMS = 20
_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class SchemaProblem:
    """One reason an instance breaks its schema: where (wire names) and why, in one line."""

    path: tuple[str | int, ...]
    message: str

    @property
    def pointer(self) -> str:
        """The JSON pointer (RFC 6901) of the offending value, "" for the whole instance."""
        return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in self.path)

    def __str__(self) -> str:
        return f"{self.pointer or '(top level)'}: {self.message}"


class SchemaMismatch(ValueError):
    """An instance breaks its JSON Schema; `problems` lists every reason found (up to MAX_PROBLEMS)."""

    def __init__(self, problems: Sequence[SchemaProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("does not match the JSON Schema: " + "; ".join(str(p) for p in self.problems))


Problems = Callable[[Any], "list[SchemaProblem]"]


def compile_problems(schema: dict[str, Any] | bool, *, formats: bool = True) -> Problems:
    """A function listing why an instance breaks `schema` (empty when it is valid)."""
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

    def problems(instance: Any) -> list[SchemaProblem]:
        if fast is not None and fast(instance):
            return []  # valid for certain; jsonschema only runs to explain a failure
        found: list[SchemaProblem] = []
        try:
            for error in validator.iter_errors(instance):
                found += _explain(jsonschema.exceptions.best_match([error]) or error)
                if len(found) > MAX_PROBLEMS:
                    break
        except RecursionError:
            return [SchemaProblem((), "nested too deeply to check")]
        except referencing.exceptions.Unresolvable as exc:
            return [SchemaProblem((), f"unresolvable reference in the schema: {str(exc)[:100]}")]
        if len(found) > MAX_PROBLEMS:
            found = [*found[:MAX_PROBLEMS], SchemaProblem((), "more problems not listed")]
        return found

    return problems


def compile_problems_lazily(schema: dict[str, Any] | bool, *, formats: bool = True) -> Problems:
    """`compile_problems`, compiled when the first instance comes: a server with many tools then
    starts (and answers tools/list) without importing jsonschema or building a validator per tool."""
    compiled: list[Problems] = []

    def problems(instance: Any) -> list[SchemaProblem]:
        if not compiled:
            compiled.append(compile_problems(schema, formats=formats))
        return compiled[0](instance)

    return problems


def _explain(error: Any) -> list[SchemaProblem]:
    """One jsonschema error as problems: a missing or unexpected property gets its own path."""
    path = tuple(_clip_part(p) for p in list(error.absolute_path)[:32])
    instance, schema = error.instance, error.schema
    if error.validator == "required" and isinstance(instance, dict) and isinstance(error.validator_value, list):
        missing = [n for n in error.validator_value if isinstance(n, str) and n not in instance]
        named = [n for n in missing if error.message.startswith(repr(n))] or missing[:1]
        return [SchemaProblem((*path, _clip_part(n)), "required, but missing") for n in named]
    if error.validator == "additionalProperties" and isinstance(instance, dict) and isinstance(schema, dict):
        known = schema.get("properties")
        patterns = schema.get("patternProperties")
        extra = [
            k
            for k in instance
            if not (isinstance(known, dict) and k in known)
            and not (isinstance(patterns, dict) and any(_search(p, k) for p in patterns))
        ]
        if extra:
            return [SchemaProblem((*path, _clip_part(k)), "not allowed here (no such property)") for k in extra[:5]]
    return [SchemaProblem(path, _clip_text(error.message))]


def _search(pattern: Any, text: str) -> bool:
    try:
        return isinstance(pattern, str) and re.search(pattern, text) is not None
    except re.error:
        return False


def _clip_part(part: Any) -> str | int:
    return part if isinstance(part, int) else _clip_text(str(part), 100)


def _clip_text(text: str, limit: int = _MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compile_validator(schema: dict[str, Any] | bool, *, formats: bool = True) -> Check:
    """A function returning None for a valid instance, else one line per problem naming where and why."""
    problems = compile_problems(schema, formats=formats)

    def check(instance: Any) -> str | None:
        found = problems(instance)
        return "\n".join(str(p) for p in found) if found else None

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


_compiled: dict[str, Problems] = {}


def check_exact(schema_json: str, data: Any, context: Any = None, wrap: str | None = None) -> Any:
    """What a generated model's `mode="before"` validator calls: check the RAW instance
    (before pydantic's lax coercions such as "1" -> 1 can happen) and hand back plain data.

    `wrap` checks `{wrap: data}` instead (a result the SDKs wrap as `{"result": X}`).
    Raises SchemaMismatch, a ValueError (pydantic turns it into a ValidationError whose error
    carries it in `ctx["error"]`), when the schema rejects it.
    """
    if isinstance(context, Mapping) and context.get(EXACT_CONTEXT_KEY) is False:
        return data
    if _is_model(data):
        return data  # already validated when it was built
    plain = _plain(data)
    problems = _compiled.get(schema_json)
    if problems is None:
        import json

        problems = _compiled[schema_json] = compile_problems(json.loads(schema_json), formats=False)
    found = problems(plain if wrap is None else {wrap: plain})
    if found:
        if wrap is not None:  # the caller knows the value, not the wrapper around it
            found = [SchemaProblem(p.path[1:], p.message) if p.path[:1] == (wrap,) else p for p in found]
        raise SchemaMismatch(found)
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
