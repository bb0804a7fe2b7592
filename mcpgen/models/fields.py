"""Every field of every generated model, named by one rule and spelled so type checkers agree.

datamodel-code-generator names top-level Args/Result fields as the plan says (scoped aliases)
but keeps nested properties as they are on the wire (`entityType`, `from_`). Here every model's
fields are renamed with `plan.naming.field_names` (the rule the plan uses for arguments) and
each renamed field is written as

    from_: str = Field(validation_alias="from", serialization_alias="from")

so that pydantic reads and writes the wire name (and, with `populate_by_name`, also accepts the
Python name), while the `__init__` a type checker sees takes the Python name: without pydantic's
mypy plugin, `dataclass_transform` would take the parameter name from `alias=`, which for `from`
cannot even be spelled. Defaults are passed as `default=`, the only spelling `dataclass_transform`
reads as "optional".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..plan.naming import field_names, snake


@dataclass(frozen=True)
class FieldRename:
    """A field whose Python name is not the plain snake_case of its wire name (a keyword, a
    pydantic member, a collision): reported after generation."""

    model: str
    wire: str
    python: str


def is_root_model(cls: ast.ClassDef) -> bool:
    return any(
        isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name) and b.value.id == "RootModel" for b in cls.bases
    )


def _fields(cls: ast.ClassDef) -> list[ast.AnnAssign]:
    return [
        s
        for s in cls.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id != "model_config"
    ]


def _field_call(stmt: ast.AnnAssign) -> ast.Call | None:
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field":
        return call
    return None


def wire_name(stmt: ast.AnnAssign) -> str:
    """The name the field has on the wire: its alias, else its own name."""
    call = _field_call(stmt)
    if call is not None:
        for k in call.keywords:
            if k.arg in ("alias", "serialization_alias") and isinstance(k.value, ast.Constant):
                if isinstance(k.value.value, str):
                    return k.value.value
    assert isinstance(stmt.target, ast.Name)
    return stmt.target.id


def name_fields(cls: ast.ClassDef) -> list[FieldRename]:
    """Rename `cls`'s fields by the one rule, alias each to its wire name, allow construction by
    Python name; returns the renames that are more than snake_case."""
    if is_root_model(cls):
        return []
    fields = _fields(cls)
    wires = [wire_name(s) for s in fields]
    python = {f.wire: f.python for f in field_names(dict.fromkeys(wires))}
    renames: list[FieldRename] = []
    for stmt, wire in zip(fields, wires, strict=True):
        name = python[wire]
        assert isinstance(stmt.target, ast.Name)
        stmt.target.id = name
        call = _field_call(stmt)
        if call is None and name != wire:
            default = [ast.keyword("default", stmt.value)] if stmt.value is not None else []
            call = ast.Call(ast.Name("Field", ast.Load()), [], default)
            stmt.value, stmt.simple = call, 1
        if call is not None:
            aliases = [ast.keyword(k, ast.Constant(wire)) for k in ("validation_alias", "serialization_alias")]
            _spell_field(stmt, call, aliases if name != wire else [])
        if name != wire and name != snake(wire, empty="field"):
            renames.append(FieldRename(cls.name, wire, name))
    _populate_by_name(cls)
    return renames


def _spell_field(stmt: ast.AnnAssign, call: ast.Call, aliases: list[ast.keyword]) -> None:
    """`Field(default, aliases, the rest)`, with the default by keyword (`Field(3)` ->
    `Field(default=3)`, `Field(...)` -> required); a call with only a default becomes the value."""
    default = [
        ast.keyword("default", a) for a in call.args[:1] if not (isinstance(a, ast.Constant) and a.value is Ellipsis)
    ]
    default += [k for k in call.keywords if k.arg == "default"]
    rest = [k for k in call.keywords if k.arg not in ("default", "alias", "validation_alias", "serialization_alias")]
    call.args, call.keywords = [], default + aliases + rest
    if not call.keywords:
        stmt.value = None
    elif len(call.keywords) == 1 and default:
        stmt.value = default[0].value  # str defaults of other types: see postprocess._wrap_str_defaults


def _populate_by_name(cls: ast.ClassDef) -> None:
    """`model_config = ConfigDict(..., populate_by_name=True)`: the model is built by Python names too."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets)
            and isinstance(stmt.value, ast.Call)
        ):
            if not any(k.arg == "populate_by_name" for k in stmt.value.keywords):
                stmt.value.keywords.append(ast.keyword("populate_by_name", ast.Constant(True)))
            return
    config = ast.parse("model_config = ConfigDict(populate_by_name=True)").body[0]
    at = 1 if cls.body and isinstance(cls.body[0], ast.Expr) else 0
    cls.body.insert(at, config)
