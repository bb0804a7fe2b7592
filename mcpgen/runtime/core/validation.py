"""Exact JSON Schema checks: server arguments, and the generated models' `model_validator`s.

jsonschema is imported on first use, so the rest of the runtime stays standard-library only
(a vendored client therefore needs jsonschema installed next to pydantic, and google-re2 for
schema patterns: patterns.py). Validators are
compiled lazily, once per schema, never at import time.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass
from typing import Any, cast, get_args

from .errors import SchemaMismatch
from .exact_schemas import ExactSchemas
from .jsonrpc import is_array, is_int, is_object
from .patterns import compile_pattern, linear_validator

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


Problems = Callable[[Any], "list[SchemaProblem]"]


def compile_problems(schema: dict[str, Any] | bool, *, formats: bool = True) -> Problems:
    """A function listing why an instance breaks `schema` (empty when it is valid)."""
    # The submodules by name: a type checker knows a package's submodules only once imported.
    import jsonschema  # type: ignore[import-untyped, unused-ignore]
    import jsonschema.exceptions  # type: ignore[import-untyped, unused-ignore]
    import jsonschema.validators  # type: ignore[import-untyped, unused-ignore]
    import referencing
    import referencing.exceptions

    # The schema's own $schema picks the dialect (2020-12 by default, as MCP says). An empty
    # registry (jsonschema adds the bundled meta-schemas) has no retrieval: a $ref outside
    # the document fails instead of reading a file or fetching a URL.
    # Its pattern keywords run in linear time (patterns.py): a schema is a peer's or an author's.
    # (jsonschema's own annotations leave parts of these unknown: they are read as Any)
    exceptions: Any = jsonschema.exceptions
    validators: Any = jsonschema.validators
    best_match: Callable[..., Any] = exceptions.best_match
    found_cls: Any = validators.validator_for(schema, default=validators.Draft202012Validator)
    cls = linear_validator(found_cls)
    registry: referencing.Registry[Any] = referencing.Registry()
    kwargs: dict[str, Any] = {"registry": registry}
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
                found += _explain(best_match([error]) or error)
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
    return _on_first_use(lambda: compile_problems(schema, formats=formats))


def _on_first_use(make: Callable[[], Problems]) -> Problems:
    """A check that is made (by `make`) when its first instance comes, then kept."""
    made: list[Problems] = []

    def problems(instance: Any) -> list[SchemaProblem]:
        if not made:
            made.append(make())
        return made[0](instance)

    return problems


def _explain(error: Any) -> list[SchemaProblem]:
    """One jsonschema error as problems: a missing or unexpected property gets its own path."""
    path = tuple(_clip_part(p) for p in list(error.absolute_path)[:32])
    instance, schema = error.instance, error.schema
    if error.validator == "required" and is_object(instance) and is_array(error.validator_value):
        missing = [n for n in error.validator_value if isinstance(n, str) and n not in instance]
        named = [n for n in missing if error.message.startswith(repr(n))] or missing[:1]
        if named:  # (none for a name that is no string, in a malformed schema: said as jsonschema says it)
            return [SchemaProblem((*path, _clip_part(n)), "required, but missing") for n in named]
    if error.validator == "additionalProperties" and is_object(instance) and is_object(schema):
        known = schema.get("properties")
        patterns = schema.get("patternProperties")
        extra = [
            k
            for k in instance
            if not (is_object(known) and k in known)
            and not (is_object(patterns) and any(_search(p, k) for p in patterns))
        ]
        if extra:
            return [SchemaProblem((*path, _clip_part(k)), "not allowed here (no such property)") for k in extra[:5]]
    return [SchemaProblem(path, _clip_text(error.message))]


def _search(pattern: Any, text: str) -> bool:
    return isinstance(pattern, str) and compile_pattern(pattern).search(text)


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
    return is_object(v)


def _is_array(v: Any) -> bool:
    return is_array(v)


def _is_string(v: Any) -> bool:
    return isinstance(v, str)


def _is_boolean(v: Any) -> bool:
    return isinstance(v, bool)


def _is_null(v: Any) -> bool:
    return v is None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    return is_int(v) or (isinstance(v, float) and v.is_integer())


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
    if is_object(a) or is_object(b):
        return is_object(a) and is_object(b) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if is_array(a) or is_array(b):
        return is_array(a) and is_array(b) and len(a) == len(b) and all(map(_equal, a, b))
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
        if not is_array(names) or not names or not all(n in _TYPES for n in names):
            raise _Unsupported(key)
        tests = [_TYPES[n] for n in names]
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(t(v) for t in tests)
    if key == "properties":
        if not is_object(value):
            raise _Unsupported(key)
        props = tuple((name, _compile(sub, formats)) for name, sub in value.items())

        def properties(v: Any) -> bool:
            if is_object(v):
                for name, check in props:
                    if name in v and not check(v[name]):
                        return False
            return True

        return properties
    if key == "required":
        if not is_array(value) or not all(isinstance(n, str) for n in value):
            raise _Unsupported(key)
        names = tuple(value)

        def required(v: Any) -> bool:
            if is_object(v):
                for name in names:
                    if name not in v:
                        return False
            return True

        return required
    if key == "additionalProperties":
        if "patternProperties" in schema:
            raise _Unsupported(key)
        known: frozenset[str] = frozenset(schema.get("properties") or ())
        if value is True:
            return None
        extra = None if value is False else _compile(value, formats)

        def additional(v: Any) -> bool:
            if is_object(v):
                for name in v:
                    if name not in known and (extra is None or not extra(v[name])):
                        return False
            return True

        return additional
    if key == "items":
        if is_array(value):
            raise _Unsupported("items as a list")
        item = _compile(value, formats)

        def items(v: Any) -> bool:
            if is_array(v):
                for x in v:
                    if not item(x):
                        return False
            return True

        return items
    if key == "enum":
        if not is_array(value):
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
        if not is_int(value):
            raise _Unsupported(key)
        kind, size = _SIZED[key[3]], value
        if key.startswith("min"):
            return lambda v: not isinstance(v, kind) or len(v) >= size
        return lambda v: not isinstance(v, kind) or len(v) <= size
    if key == "pattern":
        regex = compile_pattern(value) if isinstance(value, str) else None
        if regex is None or regex.refused is not None:
            raise _Unsupported(key)  # (jsonschema then refuses the instance, saying why)
        return lambda v: not isinstance(v, str) or regex.search(v)
    if key == "format" and not formats:
        return None  # an annotation unless formats are checked
    if key in ("anyOf", "allOf"):  # (not oneOf: a False that only means "ask jsonschema" would miscount)
        if not is_array(value) or not value:
            raise _Unsupported(key)
        subs = [_compile(sub, formats) for sub in value]
        if key == "anyOf":
            return lambda v: any(s(v) for s in subs)
        return lambda v: all(s(v) for s in subs)
    raise _Unsupported(key)  # $ref, $defs, format, patternProperties, oneOf, not, ...


def _always(v: Any) -> bool:
    return True


# What `_object` checks in one pass (the shape of nearly every tool's inputSchema).
_OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"})


def _object(schema: dict[str, Any], formats: bool) -> Predicate:
    """`type: object` with its properties, required and additionalProperties, as one predicate."""
    value = schema.get("properties", {})
    if not is_object(value):
        raise _Unsupported("properties")
    # A property whose whole check is its JSON type is checked by isinstance in the loop below
    # (no predicate call: one per property of every call's arguments).
    props: list[tuple[str, type | None, Predicate]] = []
    for name, sub in value.items():
        compiled = _compile(sub, formats)
        props.append((name, _KINDS.get(compiled), compiled))
    names = schema.get("required", [])
    if not is_array(names) or not all(isinstance(n, str) for n in names):
        raise _Unsupported("required")
    required = tuple(names)
    additional = schema.get("additionalProperties", True)
    if additional is not True and "patternProperties" in schema:
        raise _Unsupported("additionalProperties")
    closed = additional is not True
    known = frozenset(value)
    extra = None if additional is True or additional is False else _compile(additional, formats)

    def check(v: Any) -> bool:
        if not is_object(v):
            return False
        for name in required:
            if name not in v:
                return False
        for name, kind, sub in props:
            if name in v:
                if kind is not None:
                    if not isinstance(v[name], kind):
                        return False
                elif not sub(v[name]):
                    return False
        if closed:
            for name in v:
                if name not in known and (extra is None or not extra(v[name])):
                    return False
        return True

    return check


# Predicates that are exactly an isinstance check (not number or integer, which refuse booleans).
_KINDS: dict[Predicate, type] = {_is_object: dict, _is_array: list, _is_string: str, _is_boolean: bool}


def _compile(schema: Any, formats: bool) -> Predicate:
    if schema is True:
        return _always
    if not is_object(schema):
        raise _Unsupported("false or malformed schema")
    checks: list[Predicate] = []
    merged: frozenset[str] = frozenset()
    if schema.get("type") == "object":
        checks.append(_object(schema, formats))
        merged = _OBJECT_KEYWORDS
    for key, value in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-") or key in merged:
            continue
        check = _keyword(key, value, schema, formats)
        if check is not None:
            checks.append(check)
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def all_of(v: Any) -> bool:
        for check in every:
            if not check(v):
                return False
        return True

    return all_of


def fast_check(schema: Any, *, formats: bool = True) -> Predicate | None:
    """A predicate that is True only for instances the schema certainly accepts, or None when
    the schema uses something the fast path does not handle (then jsonschema decides alone)."""
    if (
        is_object(schema)
        and schema.get("$schema", "https://json-schema.org/draft/2020-12/schema").rstrip("#") not in _FAST_DIALECTS
    ):
        return None
    try:
        return _compile(schema, formats)
    except (_Unsupported, RecursionError):
        return None


_compiled: dict[str, Problems] = {}
# The fast predicate of each schema exact_problems compiled (None: the schema has none).
_fast_exact: dict[str, Predicate | None] = {}


def exact_problems(schema_json: str) -> Problems:
    """The compiled check a generated model runs for `schema_json` (formats as annotations),
    compiled on first use and shared by every model and caller with the same schema."""
    problems = _compiled.get(schema_json)
    if problems is None:
        import json

        schema = json.loads(schema_json)
        problems = _compiled[schema_json] = compile_problems(schema, formats=False)
        _fast_exact[schema_json] = fast_check(schema, formats=False)
    return problems


def check_exact(schema_json: str, data: Any, context: Any = None, wrap: str | None = None) -> Any:
    """What a generated model's `mode="before"` validator calls: check the RAW instance
    (before pydantic's lax coercions such as "1" -> 1 can happen) and hand back plain data.

    `wrap` checks `{wrap: data}` instead (a result the SDKs wrap as `{"result": X}`).
    Raises SchemaMismatch, a ValueError (pydantic turns it into a ValidationError whose error
    carries it in `ctx["error"]`), when the schema rejects it.
    """
    if _skips_check(context):
        return data
    if _is_model(data):
        return data  # already validated when it was built
    return _checked(exact_problems(schema_json), _plain(data), wrap)


def _skips_check(context: Any) -> bool:
    if context is None:
        return False
    if type(context) is dict or isinstance(context, Mapping):  # (dict first: no Mapping ABC check)
        mapping = cast("Mapping[str, Any]", context)  # (checked just above; pydantic's context has str keys)
        return mapping.get(EXACT_CONTEXT_KEY) is False
    return False


def _checked(problems: Problems, plain: Any, wrap: str | None) -> Any:
    found = problems(plain if wrap is None else {wrap: plain})
    if found:
        if wrap is not None:  # the caller knows the value, not the wrapper around it
            found = [SchemaProblem(p.path[1:], p.message) if p.path[:1] == (wrap,) else p for p in found]
        raise SchemaMismatch(found)
    return plain


@dataclass(frozen=True)
class ExactModel:
    """How one generated model class is checked: its schema's compiled check, the wrapper key of
    a wrapped result, and its top-level fields' wire names (Python name -> wire name, renamed
    fields only). Read once per class from the tables its models module passes in."""

    problems: Problems
    wrap: str | None
    wire_of: Mapping[str, str]
    wires: frozenset[str]
    # A nested model renames a field: plain data keyed by Python names below the top level is
    # sent by wire name only once pydantic has built and dumped it.
    renames_below: bool
    # The schema's JSON text: its fast predicate, once compiled, is asked first (check_plain).
    schema_json: str = ""

    def by_wire_name(self, data: Any) -> Any:
        """A mapping keyed by Python field names (`Relation(from_=...)`) keyed by wire names, which
        is what the schema speaks. A key that is some field's wire name stays: the wire name wins."""
        if not self.wire_of or type(data) is not dict:
            return data
        wires = self.wires
        given = cast("dict[str, Any]", data)  # (checked just above; a JSON object: string keys)
        out = {k: v for k, v in given.items() if k in wires}
        for key, value in given.items():
            if key not in wires:
                out.setdefault(self.wire_of.get(key, key), value)  # both spellings given: the wire name's wins
        return out

    def check_plain(self, data: Any) -> Any:
        """`data`, JSON as json.loads builds it, keyed by wire names and checked; raises SchemaMismatch."""
        if self.wire_of:
            data = self.by_wire_name(data)
        wrap = self.wrap
        # The fast predicate straight away (it says yes to nearly every instance); otherwise, and
        # before the first check compiled it, the whole check, which also words the problems.
        fast = _fast_exact.get(self.schema_json)
        if fast is not None and fast(data if wrap is None else {wrap: data}):
            return data
        return _checked(self.problems, data, wrap)


# Generated model class -> how it is checked (None: no schema of its own or of a parent).
_exact_models: weakref.WeakKeyDictionary[type, ExactModel | None] = weakref.WeakKeyDictionary()


def validate_model(model: Any, data: Any, context: Mapping[str, Any]) -> Any:
    """`model.model_validate(data, context=context)`: the built validator called directly, since
    model_validate's keyword handling costs a third of a small model's validation. A deferred
    model's validator is a stand-in until its first model_validate builds it (through a lookup of
    the caller's frames, which only model_validate's own calls get right): that call goes there."""
    if model.__pydantic_complete__:
        return model.__pydantic_validator__.validate_python(data, context=context)
    return model.model_validate(data, context=context)


def exact_model(cls: type, schemas: ExactSchemas) -> ExactModel | None:
    """How `cls` is checked: by its own schema, or a generated parent's (a user's subclass of a
    generated model is checked against its generated parent's schema); None when it has neither.
    `schemas` reads them from the package's catalog (exact_schemas.py)."""
    try:
        return _exact_models[cls]
    except KeyError:
        pass
    found: ExactModel | None = None
    for klass in cls.__mro__:
        found_schema = schemas.get(klass.__name__)
        if found_schema is not None:
            schema, wrap = found_schema
            wire_of = _wire_names(cls)
            wires = frozenset(wire_of.values()) | (frozenset(getattr(cls, "model_fields", None) or ()) - set(wire_of))
            below = _renames_below(cls, {cls})
            # Compiled on the first instance: binding a server's handlers imports no jsonschema.
            check = _on_first_use(functools.partial(exact_problems, schema))
            found = ExactModel(check, wrap, wire_of, wires, below, schema)
            break
    _exact_models[cls] = found
    return found


def _wire_names(cls: type) -> dict[str, str]:
    fields = getattr(cls, "model_fields", None)
    if not isinstance(fields, Mapping):
        return {}
    wire_of: dict[str, str] = {}
    named = cast("Mapping[str, Any]", fields)  # (checked above: pydantic's model_fields, by field name)
    for name, info in named.items():
        alias = getattr(info, "serialization_alias", None) or getattr(info, "alias", None)
        if isinstance(alias, str) and alias != name:
            wire_of[name] = alias
    return wire_of


def _renames_below(model: Any, seen: set[Any]) -> bool:
    """Does any model nested in `model`'s fields (at any depth) rename one of its fields?"""
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, Mapping):
        return False
    infos = cast("Mapping[str, Any]", fields)  # (checked above: pydantic's model_fields, by field name)
    todo = [getattr(info, "annotation", None) for info in infos.values()]
    while todo:
        annotation = todo.pop()
        todo.extend(get_args(annotation))
        if isinstance(annotation, type) and annotation not in seen and hasattr(annotation, "model_fields"):
            seen.add(annotation)
            if _wire_names(annotation) or _renames_below(annotation, seen):
                return True
    return False


def check_exact_model(cls: type, data: Any, context: Any, schemas: ExactSchemas) -> Any:
    """check_exact for a generated model class: its schema is found by class name (a user's
    subclass of a generated model is checked against its generated parent's schema)."""
    if _skips_check(context) or _is_model(data):
        return data  # checked by the caller already, or when the model was built
    exact = exact_model(cls, schemas)
    if exact is None:
        return data
    return _checked(exact.problems, _plain(exact.by_wire_name(data)), exact.wrap)


def is_plain_json(value: Any, depth: int = 0) -> bool:
    """Is `value` JSON exactly as it goes on the wire: dicts with string keys, lists, strings,
    ints, finite floats, booleans and None, and nothing else (no model, tuple, enum member or
    subclass), so that checking it checks what is sent? Deeper than 64 levels counts as no."""
    kind: type[Any] = type(cast(object, value))
    if kind in _LEAVES:
        return True
    if kind is float:
        return math.isfinite(value)  # NaN and the infinities are no JSON
    if depth >= 64:
        return False
    # Loops rather than all() over a generator, and leaves without a call: this runs on every
    # typed call's arguments and every server result.
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or (type(item) not in _LEAVES and not is_plain_json(item, depth + 1)):
                return False
        return True
    if kind is list:
        for item in value:
            if type(item) not in _LEAVES and not is_plain_json(item, depth + 1):
                return False
        return True
    return False


# The types whose values are JSON whatever they hold (not float: NaN is no JSON).
_LEAVES = frozenset({str, int, bool, type(None)})


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_model(value: Any) -> bool:
    kind: type[Any] = type(cast(object, value))
    if kind in _SCALARS or kind is dict or kind is list:
        return False
    return callable(getattr(value, "model_dump", None)) and hasattr(kind, "model_fields")


def _plain(value: Any) -> Any:
    """JSON-shaped data: nested pydantic models dumped by alias (unset fields left out), tuples as lists."""
    if type(value) in _SCALARS:
        return value
    if _is_model(value):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if is_object(value):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # (to pyright, items of unknown type: JSON-shaped, as everything this walks)
        return [_plain(v) for v in cast(Any, value)]
    return value
