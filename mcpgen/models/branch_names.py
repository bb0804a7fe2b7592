"""Names for the nested models datamodel-code-generator (DCG) would otherwise count.

DCG names a nested model by its path from its tool's model (`naming_strategy=FullPath`), but two
models on one path get a counter: the object branches of one `anyOf`/`oneOf`
(`ReadArgsContent`, `ReadArgsContent1`) and properties whose names differ only by case or
punctuation (`Location` and `location`: `ReadArgsLocation`, `ReadArgsLocation2`). Before DCG
reads the document, each such schema moves to `$defs` under a name of its own, its path and
what tells it from its siblings: a `const` they all set differently (`ReadArgsContentText`,
`ReadArgsContentImage`), else their titles, else a required key only it has, else a property
only it has, else its place (`First`, `Second`, ...). DCG names a `$defs` entry by its key, so
the name is the class name; the typing is unchanged (`$ref` to the same schema). A schema's own
`$defs` whose names differ only by case are told apart the same way (`def_names`).

The rule depends on the schemas alone, so a name is the same on every run and machine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..plan.naming import pascal, snake, words

_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth")
# Where a schema's sub-schemas are, and whether the path name goes through them unchanged.
_ONE_KEYS = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "unevaluatedProperties")
_LIST_KEYS = ("allOf", "prefixItems")
_UNIONS = ("anyOf", "oneOf")
# Kept where a moved property's schema was: what DCG reads off the field itself.
_FIELD_KEYS = ("default", "description", "title", "examples", "deprecated", "readOnly", "writeOnly")


def makes_class(schema: Any) -> bool:
    """Does DCG turn `schema` into a model class of its own (an object with properties)?"""
    return (
        isinstance(schema, dict)
        and "$ref" not in schema
        and isinstance(schema.get("properties"), dict)
        and bool(schema["properties"])
        and schema.get("type", "object") == "object"
    )


class BranchNamer:
    """Moves each schema DCG would count into `defs` under its own name (see the module doc)."""

    def __init__(self, defs: dict[str, Any], owner: dict[str, str]) -> None:
        self.defs = defs
        self.owner = owner  # hoisted key -> the Args/Result key it belongs to (parts keep them together)

    def name_all(self) -> None:
        # A `$ref` into a def's body (`#/$defs/ReadArgs/properties/x`) would lose what moved out
        # of it: such a def keeps DCG's names.
        deep = {t.split("/")[2] for t in _ref_targets(self.defs) if t.count("/") > 2 and t.startswith("#/$defs/")}
        for key in list(self.defs):
            if self.defs[key] is not None and key not in deep:
                self.defs[key] = self._walk(self.defs[key], key, self.owner.get(key, key))

    def _walk(self, node: Any, path: str, owner: str) -> Any:
        if not isinstance(node, dict):
            return node
        out = dict(node)
        props = node.get("properties")
        if isinstance(props, dict):
            out["properties"] = self._properties(props, path, owner)
        for kw in _UNIONS:
            branches = node.get(kw)
            if isinstance(branches, list):
                out[kw] = self._union(branches, path, owner)
        for kw in _LIST_KEYS:
            if isinstance(node.get(kw), list):
                out[kw] = [self._walk(s, path, owner) for s in node[kw]]
        for kw in _ONE_KEYS:
            if isinstance(node.get(kw), dict):
                out[kw] = self._walk(node[kw], path, owner)
        return out

    def _properties(self, props: dict[str, Any], path: str, owner: str) -> dict[str, Any]:
        stems = {name: pascal(snake(name, empty="field")) for name in props}
        by_stem: dict[str, list[str]] = {}
        for name, stem in stems.items():
            by_stem.setdefault(stem.lower(), []).append(name)
        out: dict[str, Any] = {}
        moved: dict[str, str] = {}
        for group in by_stem.values():
            # DCG counts a class whose name another property of the object takes, class or not.
            classes = [n for n in group if makes_class(_class_schema(props[n]))] if len(group) > 1 else []
            if classes:
                schemas = [_class_schema(props[n]) for n in classes]
                for name, suffix in zip(classes, distinguishers(schemas, classes), strict=True):
                    moved[name] = stems[name] + suffix
        for name, schema in props.items():
            if name in moved:
                out[name] = self._move_property(schema, path + moved[name], owner)
            else:
                out[name] = self._walk(schema, path + stems[name], owner)
        return out

    def _union(self, branches: list[Any], path: str, owner: str) -> list[Any]:
        classes = [i for i, b in enumerate(branches) if makes_class(b)]
        suffixes: dict[int, str] = {}
        if len(classes) > 1:
            labels = [str(i) for i in classes]
            found = distinguishers([branches[i] for i in classes], labels)
            suffixes = dict(zip(classes, found, strict=True))
        out: list[Any] = []
        for i, branch in enumerate(branches):
            if i in suffixes:
                out.append(self._hoist(branch, path + suffixes[i], owner))
            else:
                out.append(self._walk(branch, path, owner))
        return out

    def _move_property(self, schema: dict[str, Any], name: str, owner: str) -> dict[str, Any]:
        if makes_class(schema):
            kept = {k: schema[k] for k in _FIELD_KEYS if k in schema}
            return {**self._hoist(schema, name, owner), **kept}
        # An array of them: the items are the class.
        return {**schema, "items": self._hoist(schema["items"], name, owner)}

    def _hoist(self, schema: dict[str, Any], name: str, owner: str) -> dict[str, Any]:
        key = self._free(name)
        self.defs[key] = None  # reserved while its own body is named
        self.owner[key] = owner
        self.defs[key] = self._walk(schema, key, owner)
        return {"$ref": f"#/$defs/{key}"}

    def _free(self, name: str) -> str:
        taken = {k.lower() for k in self.defs}
        cand = name
        for ordinal in ("", *_ORDINALS):
            cand = name + ordinal
            if cand.lower() not in taken:
                return cand
        while cand.lower() in taken:
            cand += "Alt"
        return cand


def _class_schema(schema: Any) -> Any:
    """The schema a property's class is made of: itself, or an array's items."""
    if isinstance(schema, dict) and not makes_class(schema) and schema.get("type") == "array":
        return schema.get("items")
    return schema


def def_names(key: str, defs: Mapping[str, Any]) -> dict[str, str]:
    """The class name of each of a schema's local `$defs` (its key's, then the def's name), the
    names that differ only by case or punctuation told apart as siblings are (`ReadArgsFoo` for
    `Foo` and `foo` would be DCG's `ReadArgsFoo2`)."""
    names = {name: key + pascal(snake(name, empty="def")) for name in sorted(defs)}
    groups: dict[str, list[str]] = {}
    for name, cls in names.items():
        groups.setdefault(cls.lower(), []).append(name)
    for group in groups.values():
        if len(group) > 1:
            schemas = [defs[n] if isinstance(defs[n], dict) else {} for n in group]
            for name, suffix in zip(group, distinguishers(schemas, group), strict=True):
                names[name] += suffix
    return names


def distinguishers(schemas: Sequence[dict[str, Any]], labels: Sequence[str]) -> list[str]:
    """A name suffix for each of `schemas` (siblings), all different and non-empty: the first
    rule that tells every one from the others (module docstring), else their places."""
    for rule in (_by_const, _by_title, _by_required, _by_property):
        found = rule(schemas)
        if found is not None and all(found) and len({f.lower() for f in found}) == len(found):
            return found
    return [_ORDINALS[i] if i < len(_ORDINALS) else f"Option{_ORDINALS[i % 10]}" for i in range(len(labels))]


def _word(value: Any) -> str:
    """`value` as a name suffix; "" when it has no letters to start one with (`1`, `""`): a
    suffix of digits would read as DCG's counter."""
    if not isinstance(value, (str, int, bool)):
        return ""
    word = pascal("_".join(words(str(value))))
    return word if word[:1].isalpha() else ""


def _by_const(schemas: Sequence[dict[str, Any]]) -> list[str] | None:
    """A property every schema pins to a different value (`"type": {"const": "text"}`)."""
    pinned = [_pinned(s) for s in schemas]
    for prop in pinned[0] if pinned else {}:
        if all(prop in p for p in pinned):
            return [_word(p[prop]) for p in pinned]
    return None


def _pinned(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    props = schema.get("properties")
    for name, sub in (props if isinstance(props, dict) else {}).items():
        if isinstance(sub, dict):
            if "const" in sub:
                out[name] = sub["const"]
            elif isinstance(sub.get("enum"), list) and len(sub["enum"]) == 1:
                out[name] = sub["enum"][0]
    return out


def _by_title(schemas: Sequence[dict[str, Any]]) -> list[str] | None:
    return [_word(s.get("title", "")) for s in schemas]


def _own_keys(schemas: Sequence[dict[str, Any]], keys_of: Callable[[dict[str, Any]], list[str]]) -> list[str] | None:
    """For each schema, the first of its `keys_of` keys no other schema has as a property."""
    props = [set(_props(s)) for s in schemas]
    out: list[str] = []
    for i, schema in enumerate(schemas):
        others = set().union(*(p for j, p in enumerate(props) if j != i))
        own = [k for k in keys_of(schema) if k not in others]
        if not own:
            return None
        out.append(_word(own[0]))
    return out


def _by_required(schemas: Sequence[dict[str, Any]]) -> list[str] | None:
    def required(s: dict[str, Any]) -> list[str]:
        req = s.get("required")
        return [k for k in req if isinstance(k, str)] if isinstance(req, list) else []

    return _own_keys(schemas, required)


def _by_property(schemas: Sequence[dict[str, Any]]) -> list[str] | None:
    return _own_keys(schemas, lambda s: list(_props(s)))


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _ref_targets(node: Any) -> set[str]:
    """Every `$ref` in the document (all point inside it: `#/$defs/...`)."""
    found: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return found
