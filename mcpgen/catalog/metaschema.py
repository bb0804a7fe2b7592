"""Meta-validation of tool schemas, fast.

jsonschema checks a schema against the 2020-12 meta-schema through `$dynamicRef`, which it
resolves anew at every subschema: about 4 ms a tool, most of the time of a large catalog.
When the 2020-12 meta-schema is the root, every `$dynamicRef: "#meta"` lands on that root,
so one flat document in which those are plain `$ref: "#"` and the vocabulary meta-schemas are
inlined accepts exactly the same schemas, five times faster. Other drafts keep jsonschema's own
check (they have no dynamic references). tests/catalog/test_metaschema.py holds the two to
the same verdicts.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

_ROOT = "https://json-schema.org/draft/2020-12/schema"
_VOCAB_PREFIX = "meta/"


_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_VALUES = frozenset({
    "additionalProperties", "items", "contains", "propertyNames", "if", "then", "else", "not",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema",
})  # fmt: skip
_DROPPED = frozenset({"$id", "$schema", "$dynamicAnchor", "$vocabulary", "$comment"})


def _rewrite(node: Any, vocab_key: dict[str, str]) -> Any:
    """Walk a meta-schema by schema position (a key inside `properties` is a name, not a
    keyword): `$dynamicRef: "#meta"` -> `$ref: "#"`; `meta/x` refs -> the inlined copies."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$dynamicRef" and value == "#meta":
            out["$ref"] = "#"
        elif key == "$ref" and isinstance(value, str):
            out["$ref"] = _local_ref(value, vocab_key)
        elif key in _DROPPED:
            continue
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _rewrite(sub, vocab_key) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_rewrite(sub, vocab_key) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = _rewrite(value, vocab_key)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _local_ref(ref: str, vocab_key: dict[str, str]) -> str:
    """`meta/core` -> `#/$defs/<inlined core>`; `meta/core#/$defs/x` -> `#/$defs/x` (merged)."""
    base, _, fragment = ref.partition("#")
    if not base:
        return ref
    if base not in vocab_key:
        raise RuntimeError(f"2020-12 meta-schema: unexpected reference {ref!r}")
    return "#" + fragment if fragment else f"#/$defs/{vocab_key[base]}"


@cache
def flat_2020_12() -> dict[str, Any]:
    """The 2020-12 meta-schema as one document without dynamic references."""
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]  # jsonschema's own dependency

    root = copy.deepcopy(REGISTRY.contents(_ROOT))
    refs = [part["$ref"] for part in root.get("allOf", []) if isinstance(part, dict) and "$ref" in part]
    vocab_key = {ref: "mcpgen_vocab_" + ref.removeprefix(_VOCAB_PREFIX).replace("-", "_") for ref in refs}
    defs: dict[str, Any] = {}
    for ref, key in vocab_key.items():
        vocab = copy.deepcopy(REGISTRY.contents(_ROOT.rsplit("/", 1)[0] + "/" + ref))
        for name, sub in vocab.pop("$defs", {}).items():
            if name in defs:
                raise RuntimeError(f"2020-12 meta-schema: $defs/{name} defined twice")
            defs[name] = sub
        defs[key] = vocab
    for name, sub in root.pop("$defs", {}).items():
        defs[name] = sub
    root["$defs"] = defs
    return _rewrite(root, vocab_key)  # type: ignore[no-any-return]


# Subschemas (by content) already found valid against the whole meta-schema: catalogs repeat
# them (`{"type": "string"}` a thousand times), and a valid one yields no errors however often
# it is checked. Invalid ones are never cached, so every error is still reported as before.
_VALID: set[str] = set()
_VALID_MAX = 100_000


def _memo_ref(validator: Any, ref: str, instance: Any, schema: Any) -> Any:
    if ref != "#" or not isinstance(instance, dict):
        yield from validator._validate_reference(ref=ref, instance=instance)
        return
    key = json.dumps(instance, sort_keys=True, default=repr)
    if key in _VALID:
        return
    found = False
    for error in validator._validate_reference(ref=ref, instance=instance):
        found = True
        yield error
    if not found and len(_VALID) < _VALID_MAX:
        _VALID.add(key)


@cache
def _flat_validator() -> Any:
    from jsonschema import Draft202012Validator, validators

    flat = flat_2020_12()
    memoized = validators.extend(Draft202012Validator, {"$ref": _memo_ref})  # type: ignore[no-untyped-call]
    return memoized(flat, format_checker=format_checker())


def format_checker() -> Any:
    """2020-12's format checker, with `regex` meaning "a pattern mcpgen can read": one RE2 runs
    (runtime/core/patterns.py), or one only a backtracking engine could (lookaround, backreferences:
    valid, and warned about by the models stage, since every instance is refused at run time)."""
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(())
    checker.checkers = {**Draft202012Validator.FORMAT_CHECKER.checkers, "regex": (_is_regex, ())}
    return checker


def _is_regex(instance: object) -> bool:
    import re

    from ..runtime.core.patterns import compile_pattern

    if not isinstance(instance, str) or compile_pattern(instance).refused is None:
        return True
    try:
        re.compile(instance)  # (compiled, never matched: matching is what backtracks)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def check_schema(schema: dict[str, Any]) -> None:
    """Raise jsonschema's SchemaError if `schema` is not a valid schema of its own draft
    (2020-12 when it names none), as `Validator.check_schema` would."""
    from jsonschema import Draft202012Validator, exceptions, validators

    cls = validators.validator_for(schema, default=Draft202012Validator)
    if cls is not Draft202012Validator:
        cls.check_schema(schema)
        return
    for error in _flat_validator().iter_errors(schema):
        raise exceptions.SchemaError.create_from(error)  # the first, as check_schema does


def schema_errors(schema: dict[str, Any], limit: int = 10) -> list[Any]:
    """Every reason (up to `limit` different ones) `schema` is not a valid schema of its own
    draft: jsonschema ValidationErrors against the meta-schema, the most specific of each
    anyOf/oneOf picked.

    The meta-schema reaches one keyword through several of its parts (a wrong `items` fails
    eight), so the limit counts different errors (place and words), not repeats. jsonschema walks
    a schema's extra properties in set order: when more than `limit` differ, which ones come
    first varies with the hash seed (callers sort what they print)."""
    from jsonschema import Draft202012Validator, exceptions, validators

    cls = validators.validator_for(schema, default=Draft202012Validator)
    checker = _flat_validator() if cls is Draft202012Validator else cls(cls.META_SCHEMA)
    found: dict[tuple[tuple[str, ...], str], Any] = {}
    for error in checker.iter_errors(schema):
        error = exceptions.best_match([error]) or error
        found.setdefault((tuple(str(p) for p in error.path), str(error.message)), error)
        if len(found) >= limit:
            break
    return list(found.values())
