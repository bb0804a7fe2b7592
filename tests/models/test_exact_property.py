"""Property-based: random schemas and names -> models that parse, import and agree with jsonschema.

Each example runs the pipeline in-process (catalog -> names -> models), compiles the models
module and checks, against jsonschema, instances drawn from the schema and near misses of them
(mcpgen.catalog.instances, seeded by hypothesis) and arbitrary JSON objects. The run is
derandomized and bounded; the share of examples that drew a valid instance is asserted, so a
generator that stops producing instances fails the test instead of leaving it half-run.
"""

from __future__ import annotations

import ast
import contextlib
import types
from collections.abc import Iterator
from typing import Any

import jsonschema
import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st
from models_support import loaded_models

from mcpgen.catalog.build import build_catalog
from mcpgen.catalog.checks import check_tools
from mcpgen.catalog.instances import InstanceGenerator
from mcpgen.models import generate_models
from mcpgen.plan.build import build_plan

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.5]), st.text(max_size=4))
json_values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3), max_leaves=8
)


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.sampled_from([{"type": t} for t in ("string", "integer", "number", "boolean", "null")]),
        st.builds(
            lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span},
            st.integers(-3, 3),
            st.integers(0, 4),
        ),
        st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(0, 3)),
        st.builds(lambda m: {"type": "number", "multipleOf": m}, st.sampled_from([0.5, 2, 3])),
        st.builds(lambda vs: {"enum": vs}, st.lists(scalars, min_size=1, max_size=3)),
        st.builds(lambda v: {"const": v}, scalars),
        st.sampled_from([{"type": "string", "pattern": "^a+$"}, {"type": "string", "format": "email"}, {}]),
    )


def _compound(child: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda i, u: {"type": "array", "items": i, "uniqueItems": u}, child, st.booleans()),
        st.builds(
            lambda ps, req, extra: {
                "type": "object",
                "properties": ps,
                "required": sorted(set(req) & set(ps)),
                **({"additionalProperties": False} if extra else {}),
            },
            st.dictionaries(names, child, max_size=3),
            st.lists(names, max_size=2),
            st.booleans(),
        ),
        st.builds(lambda bs: {"anyOf": bs}, st.lists(child, min_size=1, max_size=3)),
        st.builds(lambda bs: {"oneOf": bs}, st.lists(child, min_size=1, max_size=2)),
        st.builds(lambda a, b: {"allOf": [a, b]}, child, child),
        st.builds(lambda a: {"not": a}, child),
        st.builds(lambda a, b: {"if": a, "then": b}, child, child),
        st.builds(
            lambda t: {"type": t},
            st.lists(st.sampled_from(["string", "integer", "null", "array"]), min_size=1, max_size=3, unique=True),
        ),
    )


schemas = st.recursive(_leaf(), _compound, max_leaves=6)
tool_schemas = st.builds(
    lambda props, req, defs: {
        "type": "object",
        "properties": props,
        "required": sorted(set(req) & set(props)),
        **({"$defs": {"D": defs}, "properties": {**props, "viaRef": {"$ref": "#/$defs/D"}}} if defs else {}),
    },
    st.dictionaries(names, schemas, min_size=1, max_size=4),
    st.lists(names, max_size=3),
    st.none() | schemas,
)


@contextlib.contextmanager
def _models_module(tool_name: str, schema: dict[str, Any]) -> Iterator[tuple[types.ModuleType, str]]:
    cat, problems = build_catalog([{"name": tool_name, "inputSchema": schema}])
    assert not problems, problems
    assert not check_tools(cat.tools)
    plan = build_plan(cat)
    out, problems = generate_models(plan)
    assert out is not None, problems
    ast.parse(out.source)
    with loaded_models(out.source, plan, "prop") as mod:
        yield mod, plan.tool(tool_name).args_model


def _accepts(model: Any, data: Any) -> bool:
    try:
        model.model_validate(data)
        return True
    except pydantic.ValidationError:
        return False


EXAMPLES = 40
# Measured: 40 of 40 examples draw at least one valid instance (the schema strategy rarely builds
# an unsatisfiable schema: `not {}` or a contradictory allOf). The floor leaves room for those.
MIN_SHARE_WITH_VALID = 0.85


def test_random_schemas_agree_with_jsonschema() -> None:
    drawn = {"examples": 0, "with_valid": 0, "valid": 0, "invalid": 0}

    # derandomize: the same examples on every run; deadline off: one example runs the model
    # generator, whose time depends on the machine's load, not on the example.
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None)
    @given(tool_name=names, schema=tool_schemas, seed=st.integers(0, 2**32 - 1), data=st.data())
    def check(tool_name: str, schema: dict[str, Any], seed: int, data: st.DataObject) -> None:
        with _models_module(tool_name, schema) as (mod, cls_name):
            model = getattr(mod, cls_name)
            validator = jsonschema.Draft202012Validator(schema)
            instances = [
                data.draw(st.dictionaries(st.sampled_from(sorted(schema["properties"])), json_values, max_size=4))
                for _ in range(3)
            ]
            gen = InstanceGenerator(schema, seed=seed, validator=validator)
            valid, invalid = gen.valid_many(3), gen.invalid_many(3)  # Unsatisfiable yields fewer, not an error
            drawn["examples"] += 1
            drawn["with_valid"] += bool(valid)
            drawn["valid"] += len(valid)
            drawn["invalid"] += len(invalid)
            for inst in valid:
                assert validator.is_valid(inst)
            for inst in invalid:
                assert not validator.is_valid(inst)
            for inst in [*instances, *valid, *invalid]:
                assert _accepts(model, inst) == validator.is_valid(inst), (schema, inst)

    check()
    share = drawn["with_valid"] / drawn["examples"]
    print(f"property test: {drawn}, share of examples with a valid instance {share:.2f}")
    assert drawn["examples"] >= EXAMPLES
    assert share >= MIN_SHARE_WITH_VALID, drawn
