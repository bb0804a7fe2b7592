"""Instances drawn from a JSON Schema: deterministic under a seed, checked by jsonschema after.

What `mcpgen mock` answers with and what contract tests call tools with. Standard library plus
jsonschema (already a dependency), no hypothesis: a mock server draws one instance per call, and
a direct walk over the schema is far cheaper than a search-and-shrink engine (see
tests/testing/test_instances.py for the comparison).

The walk knows the keywords that shape a value (type, enum, const, bounds, lengths, a useful
subset of regular expressions, required and optional properties, items and prefixItems, local
$refs, anyOf/oneOf/allOf); whatever it does not know (not, if/then/else, dependent schemas,
unusual patterns) is left to the validator: a draw that fails is retried with the next seed, a
bounded number of times, then refused with the validator's reason.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Callable, Mapping
from typing import Any

from ..runtime.core.validation import compile_validator

# How many draws a schema gets before it is refused, how deep a value may nest (recursive
# $refs stop here), and how long strings and arrays grow beyond their minimum.
MAX_ATTEMPTS = 40
MAX_DEPTH = 8
EXTRA_ITEMS = 3
EXTRA_CHARS = 10
MAX_REPEAT = 6

_ALPHABET = string.ascii_letters + string.digits
_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "date-time": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:00:00Z",
    "date": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
    "time": lambda r: f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z",
    "email": lambda r: f"user{r.randint(1, 999)}@example.com",
    "idn-email": lambda r: f"user{r.randint(1, 999)}@example.com",
    "uri": lambda r: f"https://example.com/item/{r.randint(1, 999)}",
    "iri": lambda r: f"https://example.com/item/{r.randint(1, 999)}",
    "uri-reference": lambda r: f"/item/{r.randint(1, 999)}",
    "url": lambda r: f"https://example.com/item/{r.randint(1, 999)}",
    "uuid": lambda r: (
        "%08x-%04x-4%03x-8%03x-%012x"
        % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(12), r.getrandbits(12), r.getrandbits(48))
    ),
    "ipv4": lambda r: f"192.0.2.{r.randint(1, 254)}",
    "ipv6": lambda r: f"2001:db8::{r.randint(1, 65535):x}",
    "hostname": lambda r: f"host{r.randint(1, 99)}.example.com",
    "idn-hostname": lambda r: f"host{r.randint(1, 99)}.example.com",
    "duration": lambda r: f"P{r.randint(1, 30)}D",
    "regex": lambda r: "^[a-z]+$",
    "json-pointer": lambda r: f"/items/{r.randint(0, 9)}",
}


class Unsatisfiable(ValueError):
    """No valid instance was found: the message says why (the validator's last complaint)."""


class InstanceGenerator:
    """Draws instances of one schema (a dict or a boolean); `draw()` returns a valid one."""

    def __init__(self, schema: Mapping[str, Any] | bool, *, seed: int | str = 0) -> None:
        self.schema: dict[str, Any] | bool = schema if isinstance(schema, bool) else dict(schema)
        self._rng = random.Random(seed)
        self._check = compile_validator(self.schema)

    def draw(self) -> Any:
        if self.schema is False:
            raise Unsatisfiable("the schema is `false`: no instance is valid")
        reason = "no draw was valid"
        for _attempt in range(MAX_ATTEMPTS):
            try:
                value = _Walk(self.schema, self._rng).value(self.schema, 0)
            except _GiveUp as exc:
                reason = str(exc)
                continue
            problem = self._check(value)
            if problem is None:
                return value
            reason = problem
        raise Unsatisfiable(f"no valid instance in {MAX_ATTEMPTS} draws: {reason}")


def draw(schema: Mapping[str, Any] | bool, *, seed: int | str = 0) -> Any:
    """One valid instance of `schema` (the same for the same seed)."""
    return InstanceGenerator(schema, seed=seed).draw()


class _GiveUp(Exception):
    """This draw cannot go on (a $ref that leaves the document, a `false` branch...)."""


class _Walk:
    def __init__(self, root: dict[str, Any] | bool, rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    def value(self, schema: Any, depth: int) -> Any:
        if schema is True or schema == {}:
            return self._any(depth)
        if schema is False or not isinstance(schema, dict):
            raise _GiveUp("a branch allows nothing")
        if depth > MAX_DEPTH:
            raise _GiveUp("the schema nests deeper than the generator goes")
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                rest = {k: v for k, v in schema.items() if k != key}
                return self.value(_merge(rest, self.rng.choice(branches)), depth + 1)
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict):
                    merged = _merge(merged, self._resolve(part))
            return self.value(merged, depth + 1)
        kind = self._type(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, depth)
        if kind == "string":
            return self._string(schema)
        if kind == "integer":
            return self._integer(schema)
        if kind == "number":
            return self._number(schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        return None

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        for _hop in range(MAX_DEPTH):
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return schema
            target = _pointer(self.root, ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = _merge(rest, target) if rest else target
        raise _GiveUp("$ref chain too long")

    def _type(self, schema: dict[str, Any]) -> str:
        declared = schema.get("type")
        if isinstance(declared, str):
            return declared
        if isinstance(declared, list) and declared:
            # null only when nothing else is allowed: a mock answers with data.
            concrete = [t for t in declared if t != "null"] or declared
            return str(self.rng.choice(concrete))
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return "string"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return self.rng.choice(["string", "integer", "boolean"])

    def _any(self, depth: int) -> Any:
        kind = self.rng.choice(["string", "integer", "boolean", "number"])
        return self.value({"type": kind}, depth + 1)

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        found = schema.get("properties")
        props: dict[str, Any] = found if isinstance(found, dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name in required:
            out[name] = self.value(props.get(name, True), depth + 1)
        for name, sub in props.items():
            if name not in out and self.rng.random() < 0.5:
                out[name] = self.value(sub, depth + 1)
        minimum = int(schema.get("minProperties", 0) or 0)
        extra = schema.get("additionalProperties", True)
        index = 0
        while len(out) < minimum:
            missing = [name for name in props if name not in out]
            if missing:
                out[missing[0]] = self.value(props[missing[0]], depth + 1)
            elif extra is not False:
                out[f"extra{index}"] = self.value(extra if isinstance(extra, dict) else True, depth + 1)
                index += 1
            else:
                raise _GiveUp("minProperties exceeds the properties allowed")
        return out

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        low = int(schema.get("minItems", 0) or 0)
        high = schema.get("maxItems")
        top = low + EXTRA_ITEMS if not isinstance(high, int) else min(high, low + EXTRA_ITEMS)
        count = self.rng.randint(low, max(low, top))
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4-7 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        out = [self.value(prefix[i], depth + 1) for i in range(min(count, len(prefix)))]
        if items is False:
            return out
        seen: list[Any] = list(out)
        tries = 0
        while len(out) < count and tries < count * 5 + 5:
            tries += 1
            item = self.value(items, depth + 1)
            if schema.get("uniqueItems") and item in seen:
                continue
            seen.append(item)
            out.append(item)
        return out

    def _string(self, schema: dict[str, Any]) -> str:
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt](self.rng)
        low = int(schema.get("minLength", 0) or 0)
        high = schema.get("maxLength")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            made = _from_pattern(pattern, self.rng)
            if made is not None:
                return made
        top = low + EXTRA_CHARS if not isinstance(high, int) else min(high, low + EXTRA_CHARS)
        length = self.rng.randint(low, max(low, top)) if top > 0 else 0
        if length == 0 and low == 0 and (not isinstance(high, int) or high > 0):
            length = min(top, 1 + self.rng.randint(0, 5)) if top > 0 else 0
        return "".join(self.rng.choice(_ALPHABET) for _ in range(length))

    def _integer(self, schema: dict[str, Any]) -> int:
        low, high = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            first = math.ceil(low / step)
            last = math.floor(high / step)
            if first > last:
                raise _GiveUp("no multiple of multipleOf lies between the bounds")
            return self.rng.randint(first, last) * step
        return self.rng.randint(int(low), int(high))

    def _number(self, schema: dict[str, Any]) -> float | int:
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            low, high = _bounds(schema, integer=False)
            first, last = math.ceil(low / step), math.floor(high / step)
            if first > last:
                raise _GiveUp("no multiple of multipleOf lies between the bounds")
            return self.rng.randint(first, last) * step
        low, high = _bounds(schema, integer=False)
        return round(self.rng.uniform(low, high), 3) if high > low else low


def _bounds(schema: dict[str, Any], *, integer: bool) -> tuple[float, float]:
    """The inclusive range a number may take (exclusive bounds nudged inward), kept small."""
    nudge = 1 if integer else 0.001
    low = schema.get("minimum")
    high = schema.get("maximum")
    ex_low = schema.get("exclusiveMinimum")
    ex_high = schema.get("exclusiveMaximum")
    if ex_low is True and isinstance(low, (int, float)):  # draft 4's boolean form
        low = low + nudge
    elif isinstance(ex_low, (int, float)) and not isinstance(ex_low, bool):
        low = ex_low + nudge if low is None else max(low, ex_low + nudge)
    if ex_high is True and isinstance(high, (int, float)):
        high = high - nudge
    elif isinstance(ex_high, (int, float)) and not isinstance(ex_high, bool):
        high = ex_high - nudge if high is None else min(high, ex_high - nudge)
    low_f = float(low) if isinstance(low, (int, float)) else None
    high_f = float(high) if isinstance(high, (int, float)) else None
    if low_f is None and high_f is None:
        low_f, high_f = 0.0, 100.0
    elif low_f is None:
        low_f = min(0.0, high_f - 100.0) if high_f is not None else 0.0
    elif high_f is None:
        high_f = low_f + 100.0
    assert low_f is not None and high_f is not None
    if integer:
        low_f, high_f = float(math.ceil(low_f)), float(math.floor(high_f))
    if low_f > high_f:
        raise _GiveUp("the bounds leave no room")
    return low_f, high_f


def _merge(base: dict[str, Any], extra: Any) -> dict[str, Any]:
    """Two schemas' keywords as one (properties and required united; the rest: extra wins)."""
    if not isinstance(extra, dict):
        if extra is False:
            raise _GiveUp("a branch allows nothing")
        return dict(base)
    merged = {**base, **extra}
    if isinstance(base.get("properties"), dict) and isinstance(extra.get("properties"), dict):
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if isinstance(base.get("required"), list) and isinstance(extra.get("required"), list):
        merged["required"] = list(dict.fromkeys(base["required"] + extra["required"]))
    return merged


def _pointer(root: Any, ref: str) -> dict[str, Any]:
    """A local `#/...` reference; anything else gives up (mcpgen refuses remote refs earlier)."""
    if not ref.startswith("#"):
        raise _GiveUp(f"$ref {ref[:80]!r} leaves the document")
    node = root
    for raw in [p for p in ref[1:].split("/") if p]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise _GiveUp(f"$ref {ref[:80]!r} points at nothing")
    if node is True:
        return {}
    if not isinstance(node, dict):
        raise _GiveUp(f"$ref {ref[:80]!r} is not a schema")
    return node


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
    except _GiveUp:
        return None


def _emit(parsed: Any, rng: random.Random, depth: int) -> str:
    if depth > 20:
        raise _GiveUp("pattern nests too deep")
    out: list[str] = []
    constants = _sre_constants()
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if arg != ord("a") else "b")
        elif name == "ANY":
            out.append(rng.choice(_ALPHABET))
        elif name == "IN":
            out.append(_class_char(arg, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            top = low + 3 if high == constants.MAXREPEAT else min(high, low + 3)
            count = rng.randint(low, min(max(low, top), low + MAX_REPEAT))
            out.extend(_emit(body, rng, depth + 1) for _ in range(count))
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], rng, depth + 1))
        elif name == "BRANCH":
            out.append(_emit(rng.choice(arg[1]), rng, depth + 1))
        elif name == "AT":
            continue  # ^ $ \b: the emitted string is whole
        else:
            raise _GiveUp(f"pattern uses {name}")
    return "".join(out)


def _class_char(items: Any, rng: random.Random) -> str:
    choices: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            raise _GiveUp("negated class")
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
                choices.extend(_ALPHABET + "_")
            elif kind.endswith("SPACE") and "NOT" not in kind:
                choices.append(" ")
            else:
                raise _GiveUp("negated category")
        else:
            raise _GiveUp(f"class uses {name}")
    if not choices:
        raise _GiveUp("empty class")
    return rng.choice(choices)


def _sre_constants() -> Any:
    try:
        from re import _constants  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as _constants
    return _constants


__all__ = ["InstanceGenerator", "Unsatisfiable", "draw", "MAX_ATTEMPTS"]
