"""JSON instances for a JSON Schema, valid ones and near misses, deterministic under a seed.

Two things must often agree on what a schema accepts (generated models and jsonschema, a
portable rewrite and its original), and a mock needs plausible arguments and results. This
module draws instances from the schema's own keywords and then checks every candidate against
the schema with jsonschema: the drawing may guess (an `allOf` merge, a `not`), the check
decides, and only checked instances come out. Patterns in the common regular-expression subset
(literals, classes, quantifiers, groups, alternation) are emitted exactly; others are guessed
from their literal characters. What cannot be satisfied within the attempt budget raises
`Unsatisfiable` with the last reason a draw failed (the drawing's or the validator's), the one
error a caller may treat as "no instance". `mcpgen mock` and contract tests draw through
`draw()`; the same schema and seed always give the same instance.

Standard library and jsonschema only; sizes are bounded (depth, items, string length,
attempts), so a hostile schema costs at most a bounded amount of work per instance.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeGuard

from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import Draft202012Validator, validator_for

from ..runtime.core.patterns import compile_pattern, linear_validator

# How often a nullable value is drawn as null (see InstanceGenerator._pick).
NULL_SHARE = 0.2

JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
# Strings that satisfy each common `format`, for schemas that ask for one.
FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "email": ("a@example.com", "user.name@example.org"),
    "idn-email": ("a@example.com",),
    "date": ("2024-02-29", "1999-12-31"),
    "date-time": ("2024-02-29T12:30:00Z", "1999-12-31T23:59:59+01:00"),
    "time": ("12:30:00Z", "23:59:59+01:00"),
    "duration": ("P1D", "PT2H30M"),
    "uri": ("https://example.com/a", "urn:isbn:0451450523"),
    "uri-reference": ("/a/b", "https://example.com/"),
    "iri": ("https://example.com/é",),
    "iri-reference": ("/é",),
    "uri-template": ("https://example.com/{id}",),
    "uuid": ("123e4567-e89b-12d3-a456-426614174000",),
    "hostname": ("example.com", "a-b.example"),
    "idn-hostname": ("example.com",),
    "ipv4": ("127.0.0.1", "192.0.2.7"),
    "ipv6": ("::1", "2001:db8::7"),
    "json-pointer": ("", "/a/0"),
    "relative-json-pointer": ("0", "1/a"),
    "regex": ("^a+$", "[0-9]"),
}
_PLAIN_CHARS = "abcxyzABC019 _-é"
_REGEX_META = set("^$.*+?()[]{}|\\")
_PATTERN_CHARS = string.ascii_letters + string.digits
_MAX_REPEAT = 6  # repetitions of a pattern's unbounded quantifier beyond its minimum


_MISS = object()  # a round of a stream that found nothing


class Unsatisfiable(ValueError):
    """No instance the schema accepts was found within the attempt budget: the message says why."""


class _Dead(Exception):
    """This branch of the drawing cannot produce anything (a `false` schema, depth exhausted);
    the message, when there is one, says why."""


@dataclass(frozen=True)
class InstanceLimits:
    """Bounds on every drawing: what a schema can cost is at most these."""

    attempts: int = 60  # candidates drawn per valid instance before giving up
    max_depth: int = 8  # subschemas (and `$ref` hops) followed in one candidate
    max_items: int = 4  # items of an array, extra properties of an object
    max_string: int = 12  # characters beyond a string's minLength
    max_minimum: int = 256  # largest minLength / minItems / minProperties honoured; above: unsatisfiable
    max_nodes: int = 2000  # values in one candidate (nested fan-out is what this bounds)


class InstanceGenerator:
    """Draws instances of one schema; the same schema and seed draw the same instances."""

    def __init__(
        self,
        schema: Any,
        *,
        seed: int | str = 0,
        limits: InstanceLimits | None = None,
        validator: Validator | None = None,
    ) -> None:
        self.schema = schema
        self.limits = limits or InstanceLimits()
        self._rng = random.Random(seed)
        if validator is None:
            cls = (
                validator_for(schema, default=Draft202012Validator)
                if isinstance(schema, dict)
                else Draft202012Validator
            )
            validator = linear_validator(cls)(schema)  # its patterns in linear time, as at run time
        self._validator = validator
        self._nodes = 0

    # -- public ------------------------------------------------------------------------------

    def accepts(self, instance: Any) -> bool:
        return bool(self._validator.is_valid(instance))

    def valid(self) -> Any:
        """One instance the schema accepts, or `Unsatisfiable` with the last reason a draw failed."""
        if self.schema is False:
            raise Unsatisfiable("the schema is `false`: no instance is valid")
        reason = "no draw was valid"
        for _ in range(self.limits.attempts):
            self._nodes = 0
            try:
                candidate = self._draw(self.schema, 0)
            except _Dead as exc:
                reason = str(exc) or reason
                continue
            error = best_match(self._validator.iter_errors(candidate))
            if error is None:
                return candidate
            reason = error.message[:200]
        raise Unsatisfiable(f"no valid instance in {self.limits.attempts} draws: {reason}")

    def valid_many(self, count: int) -> list[Any]:
        """Up to `count` distinct accepted instances (fewer when the schema allows fewer)."""
        return _distinct(self._valid_stream(), count, budget=count * 4)

    def invalid_many(self, count: int) -> list[Any]:
        """Up to `count` distinct instances the schema rejects: near misses of valid ones first."""
        return _distinct(self._invalid_stream(), count, budget=count * 8)

    # -- streams -----------------------------------------------------------------------------

    def _valid_stream(self) -> Iterator[Any]:
        while True:
            try:
                yield self.valid()
            except Unsatisfiable:
                return

    def _invalid_stream(self) -> Iterator[Any]:
        # One item per round, _MISS when the round found nothing: the caller's budget counts
        # rounds, so a schema that accepts everything ends the stream instead of spinning.
        valid_known = True
        while True:
            base = self._any(2)
            if valid_known:
                try:
                    base = self.valid()
                except Unsatisfiable:
                    valid_known = False
            misses = [c for c in (self._mutate(base), self._any(2)) if not self.accepts(c)]
            yield misses[0] if misses else _MISS

    # -- drawing -----------------------------------------------------------------------------

    def _draw(self, schema: Any, depth: int) -> Any:
        self._nodes += 1
        if depth > self.limits.max_depth or self._nodes > self.limits.max_nodes:
            raise _Dead("the schema nests deeper than the generator goes")
        if schema is True or schema == {}:
            return self._any(2)
        if not isinstance(schema, dict):
            raise _Dead("a branch allows nothing")  # `false`, or not a schema at all
        if "$ref" in schema:
            target = self._resolve(schema["$ref"])
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return self._draw(_merge(rest, target) if rest else target, depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return copy.deepcopy(self._pick(schema["enum"], _is_none))
        for key in ("allOf", "anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                rest = {k: v for k, v in schema.items() if k != key}
                if key == "allOf":
                    merged = rest
                    for branch in branches:
                        merged = _merge(merged, self._inline(branch))
                    return self._draw(merged, depth + 1)
                return self._draw(_merge(rest, self._inline(self._pick(branches, _is_null_schema))), depth + 1)
        if "if" in schema:
            rest = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
            if self._rng.random() < 0.5:
                branch = _merge(self._inline(schema["if"]), self._inline(schema.get("then", {})))
            else:
                branch = self._inline(schema.get("else", {}))
            return self._draw(_merge(rest, branch), depth + 1)
        kind = self._pick_type(schema)
        draw: Callable[[dict[str, Any], int], Any] = getattr(self, f"_draw_{kind}")
        return draw(schema, depth)

    def _pick(self, options: list[Any], is_null: Callable[[Any], bool]) -> Any:
        """One of `options`; when some are null and some are not, a null one with probability
        NULL_SHARE (0.2: one draw in five), else one of the others.
        (Picked like the others, a nullable field would be null every other draw: a mock's
        results would read like nothing a real server sends.)"""
        values = [option for option in options if not is_null(option)]
        if not values or len(values) == len(options):
            return self._rng.choice(options)
        if self._rng.random() < NULL_SHARE:
            return self._rng.choice([option for option in options if is_null(option)])
        return self._rng.choice(values)

    def _inline(self, schema: Any) -> dict[str, Any]:
        if schema is True:
            return {}
        if schema is False or not isinstance(schema, dict):
            raise _Dead("a branch allows nothing")
        return schema

    def _resolve(self, ref: Any) -> Any:
        # Only pointers into this document: a schema never makes mcpgen read a file or a URL.
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _Dead(f"$ref {str(ref)[:80]!r} leaves the document")
        node: Any = self.schema
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Dead(f"$ref {ref[:80]!r} points at nothing")
        return node

    def _pick_type(self, schema: dict[str, Any]) -> str:
        declared = schema.get("type")
        if isinstance(declared, str) and declared in JSON_TYPES:
            return declared
        if isinstance(declared, list):
            known = [t for t in declared if t in JSON_TYPES]
            if known:
                return str(self._pick(known, lambda kind: kind == "null"))
        hints = (
            ("object", ("properties", "required", "additionalProperties", "minProperties", "patternProperties")),
            ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")),
            ("string", ("minLength", "maxLength", "pattern", "format")),
            ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
        )
        for kind, keys in hints:
            if any(k in schema for k in keys) and self._rng.random() < 0.8:
                return kind
        return str(self._rng.choice(JSON_TYPES))

    def _draw_null(self, schema: dict[str, Any], depth: int) -> Any:
        return None

    def _draw_boolean(self, schema: dict[str, Any], depth: int) -> Any:
        return self._rng.random() < 0.5

    def _draw_integer(self, schema: dict[str, Any], depth: int) -> Any:
        lo, hi = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if _is_num(step) and step > 0:
            k_lo, k_hi = _ceil_div(lo, step), int(hi // step)
            if k_lo > k_hi:
                raise _Dead("no multiple of multipleOf lies between the bounds")
            value = self._rng.randint(k_lo, min(k_hi, k_lo + 20)) * step
            return int(value) if float(value).is_integer() else value
        if lo > hi:
            raise _Dead("the bounds leave no room")
        return self._rng.randint(int(lo), int(min(hi, lo + 40)))

    def _draw_number(self, schema: dict[str, Any], depth: int) -> Any:
        lo, hi = _bounds(schema, integer=False)
        step = schema.get("multipleOf")
        if _is_num(step) and step > 0:
            k_lo, k_hi = _ceil_div(lo, step), int(hi // step)
            if k_lo > k_hi:
                raise _Dead("no multiple of multipleOf lies between the bounds")
            value = self._rng.randint(k_lo, min(k_hi, k_lo + 20)) * step
            return int(value) if float(value).is_integer() else value
        if self._rng.random() < 0.5:
            return self._draw_integer(schema, depth)
        if lo > hi:
            raise _Dead("the bounds leave no room")
        return round(self._rng.uniform(lo, min(hi, lo + 40)), 3)

    def _draw_string(self, schema: dict[str, Any], depth: int) -> Any:
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in FORMAT_SAMPLES:
            return self._rng.choice(FORMAT_SAMPLES[fmt])
        lo = self._minimum(schema, "minLength")
        hi = min(_int_or(schema.get("maxLength"), lo + self.limits.max_string), lo + self.limits.max_string)
        if lo > hi:
            raise _Dead("the length bounds leave no room")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            emitted = _from_pattern(pattern, self._rng)
            if emitted is not None:
                return emitted  # the length bounds are the validator's to check
            return self._string_for_pattern(pattern, lo, hi)
        return "".join(self._rng.choice(_PLAIN_CHARS) for _ in range(self._rng.randint(lo, hi)))

    def _string_for_pattern(self, pattern: str, lo: int, hi: int) -> str:
        # A guess from the pattern's literal characters; the schema check decides.
        compiled = compile_pattern(pattern)  # (linear time: the pattern is a peer's)
        if compiled.refused is not None:
            raise _Dead(f"the pattern cannot be checked: {compiled.refused}")
        literals = sorted({c for c in pattern if c not in _REGEX_META and c.isprintable()}) or list("a0")
        for _ in range(30):
            size = self._rng.randint(max(lo, 1), max(hi, 1))
            guess = "".join(self._rng.choice(literals) for _ in range(size))
            if compiled.search(guess) and lo <= len(guess) <= hi:
                return guess
        raise _Dead("no string matching the pattern was found")

    def _draw_array(self, schema: dict[str, Any], depth: int) -> Any:
        lo = self._minimum(schema, "minItems")
        hi = min(_int_or(schema.get("maxItems"), lo + self.limits.max_items), lo + self.limits.max_items)
        if lo > hi:
            raise _Dead("the item bounds leave no room")
        declared = schema.get("prefixItems")
        prefix: list[Any] = declared if isinstance(declared, list) else []
        items = schema.get("items", {})
        if isinstance(items, list):  # draft 4-2019 tuple form
            prefix, items = items, schema.get("additionalItems", {})
        size = self._rng.randint(lo, hi)
        out: list[Any] = []
        for i in range(size):
            sub = prefix[i] if i < len(prefix) else items
            if sub is False:
                break
            out.append(self._draw(sub, depth + 1))
        contains = schema.get("contains")
        if contains is not None and len(out) < hi + 1:
            out.append(self._draw(contains, depth + 1))
        if schema.get("uniqueItems") is True:
            out = _unique(out)
        return out

    def _draw_object(self, schema: dict[str, Any], depth: int) -> Any:
        declared = schema.get("properties")
        props: dict[str, Any] = declared if isinstance(declared, dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name in required:
            out[name] = self._draw(props.get(name, self._extra_schema(schema)), depth + 1)
        for name, sub in props.items():
            if name not in out and self._rng.random() < 0.6:
                try:
                    out[name] = self._draw(sub, depth + 1)
                except _Dead:
                    pass  # optional: leave it out
        extra = self._extra_schema(schema)
        want = self._minimum(schema, "minProperties")
        tries = 0
        while extra is not False and (len(out) < want or self._rng.random() < 0.15) and tries < self.limits.max_items:
            tries += 1
            key = f"x{self._rng.randint(0, 99)}"
            if key not in out and key not in props:
                out[key] = self._draw(extra, depth + 1)
        return out

    def _minimum(self, schema: dict[str, Any], key: str) -> int:
        least = _int_or(schema.get(key), 0)
        if least > self.limits.max_minimum:
            raise _Dead(f"{key} {least} is over {self.limits.max_minimum}")  # hostile or a mistake; never built
        return least

    def _extra_schema(self, schema: dict[str, Any]) -> Any:
        extra = schema.get("additionalProperties", True)
        return extra if extra is not None else True

    def _any(self, depth: int) -> Any:
        """A small JSON value of any type."""
        kind = self._rng.choice(JSON_TYPES if depth > 0 else JSON_TYPES[:5])
        if kind == "array":
            return [self._any(depth - 1) for _ in range(self._rng.randint(0, 2))]
        if kind == "object":
            return {f"k{i}": self._any(depth - 1) for i in range(self._rng.randint(0, 2))}
        if kind == "number":
            return self._rng.choice((0.5, -1.5, 2.25))
        scalar: Callable[[dict[str, Any], int], Any] = getattr(self, f"_draw_{kind}")
        return scalar({}, 0)

    # -- near misses -------------------------------------------------------------------------

    def _mutate(self, value: Any) -> Any:
        """A small change to `value`: another type, a key gone or added, a bound crossed."""
        choice = self._rng.random()
        if isinstance(value, dict) and value and choice < 0.5:
            out = dict(value)
            key = self._rng.choice(sorted(out))
            if choice < 0.2:
                del out[key]
            else:
                out[key] = self._mutate(out[key])
            return out
        if isinstance(value, dict) and choice < 0.7:
            return {**value, f"extra{self._rng.randint(0, 9)}": self._any(1)}
        if isinstance(value, list) and value and choice < 0.5:
            out_list = list(value)
            i = self._rng.randrange(len(out_list))
            out_list[i] = self._mutate(out_list[i])
            return out_list
        if isinstance(value, list) and choice < 0.7:
            return [*value, value[0] if value else self._any(1)]
        if isinstance(value, str) and choice < 0.6:
            return value + "".join(self._rng.choice(_PLAIN_CHARS) for _ in range(self.limits.max_string + 1))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and choice < 0.6:
            return value + self._rng.choice((-1000, -1, 0.5, 1, 1000))
        return self._any(1)


def _is_none(value: Any) -> bool:
    return value is None


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def _distinct(stream: Iterator[Any], count: int, *, budget: int) -> list[Any]:
    seen: set[str] = set()
    out: list[Any] = []
    for value in itertools.islice(stream, budget):
        if value is _MISS:
            continue
        key = json.dumps(value, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(value)
            if len(out) == count:
                break
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """A schema meant to satisfy both: properties merged, required unioned, the rest from b."""
    out = {**a, **b}
    for key in ("properties", "$defs", "definitions"):
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            out[key] = {**a[key], **b[key]}
    if isinstance(a.get("required"), list) and isinstance(b.get("required"), list):
        out["required"] = [*a["required"], *[r for r in b["required"] if r not in a["required"]]]
    for key in ("minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum"):
        if _is_num(a.get(key)) and _is_num(b.get(key)):
            out[key] = max(a[key], b[key])
    for key in ("maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum"):
        if _is_num(a.get(key)) and _is_num(b.get(key)):
            out[key] = min(a[key], b[key])
    return out


def _bounds(schema: dict[str, Any], *, integer: bool) -> tuple[float, float]:
    lo: float = -10.0
    hi: float = 10.0
    if _is_num(schema.get("minimum")):
        lo = schema["minimum"]
        hi = max(hi, lo + 20)
    if _is_num(schema.get("maximum")):
        hi = schema["maximum"]
        lo = min(lo, hi - 20) if not _is_num(schema.get("minimum")) else lo
    nudge = 1 if integer else 0.001
    if _is_num(schema.get("exclusiveMinimum")):
        lo = max(lo, schema["exclusiveMinimum"] + nudge)
        hi = max(hi, lo + 20) if not _is_num(schema.get("maximum")) else hi
    if _is_num(schema.get("exclusiveMaximum")):
        hi = min(hi, schema["exclusiveMaximum"] - nudge)
    if integer:
        lo, hi = float(_ceil_div(lo, 1)), float(int(hi // 1))
    return lo, hi


def _ceil_div(value: float, step: float) -> int:
    return -int(-value // step)


def _unique(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out: list[Any] = []
    for v in values:
        # JSON Schema equality: 1 == 1.0, but true != 1 (json.dumps keeps the two apart).
        key = json.dumps(float(v) if isinstance(v, int) and not isinstance(v, bool) else v, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _int_or(value: Any, default: int) -> int:
    return int(value) if _is_num(value) else default


def _is_num(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def draw(schema: Any, *, seed: int | str = 0) -> Any:
    """One valid instance of `schema` (the same for the same seed), or `Unsatisfiable`."""
    return InstanceGenerator(schema, seed=seed).valid()


# -- patterns -------------------------------------------------------------------------------


def _from_pattern(pattern: str, rng: random.Random) -> str | None:
    """A string matching a regular expression, for the common subset (literals, classes,
    quantifiers, groups, alternation); None when the pattern uses anything else."""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse
    try:
        parsed = sre_parse.parse(pattern[:1000])
    except Exception:
        return None
    try:
        return _emit(parsed, rng, 0)
    except _Dead:
        return None


def _emit(parsed: Any, rng: random.Random, depth: int) -> str:
    if depth > 20:
        raise _Dead("the pattern nests too deep")
    out: list[str] = []
    constants = _sre_constants()
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if arg != ord("a") else "b")
        elif name == "ANY":
            out.append(rng.choice(_PATTERN_CHARS))
        elif name == "IN":
            out.append(_class_char(arg, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            top = low + 3 if high == constants.MAXREPEAT else min(high, low + 3)
            count = rng.randint(low, min(max(low, top), low + _MAX_REPEAT))
            out.extend(_emit(body, rng, depth + 1) for _ in range(count))
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], rng, depth + 1))
        elif name == "BRANCH":
            out.append(_emit(rng.choice(arg[1]), rng, depth + 1))
        elif name == "AT":
            continue  # ^ $ \b: the emitted string is whole
        else:
            raise _Dead(f"the pattern uses {name}")
    return "".join(out)


def _class_char(items: Any, rng: random.Random) -> str:
    choices: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            raise _Dead("the pattern has a negated class")
        if name == "LITERAL":
            choices.append(chr(arg))
        elif name == "RANGE":
            low, high = arg
            choices.extend(chr(c) for c in range(low, min(high, low + 60) + 1))
        elif name == "CATEGORY":
            kind = str(arg)
            if kind.endswith("DIGIT") and "NOT" not in kind:
                choices.extend(string.digits)
            elif kind.endswith("WORD") and "NOT" not in kind:
                choices.extend(_PATTERN_CHARS + "_")
            elif kind.endswith("SPACE") and "NOT" not in kind:
                choices.append(" ")
            else:
                raise _Dead("the pattern has a negated category")
        else:
            raise _Dead(f"the pattern's class uses {name}")
    if not choices:
        raise _Dead("the pattern has an empty class")
    return rng.choice(choices)


def _sre_constants() -> Any:
    try:
        from re import _constants  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as _constants
    return _constants
