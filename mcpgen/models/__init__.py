"""Stage 4, the models: the plan's tools -> pydantic models (datamodel-code-generator), and the
plan completed with what only those models know (annotations, root types).

`document.py` builds the one schema document, `dcg.py` runs datamodel-code-generator on it (a
big catalog's document in parts, on every core, which `merge.py` joins into one module),
`postprocess.py` turns its output into the models mcpgen writes, `per_tool.py` splits them into
one module per tool (and one of what tools share). The models accept exactly
what the schemas accept: `typing_view.py` makes annotations that accept a superset, and each
model checks the raw instance with jsonschema first (mcpgen/runtime/core/validation.py).
"""

from __future__ import annotations

import ast
import json
from dataclasses import replace

from ..catalog.model import Problem
from ..plan.build import one_line
from ..plan.naming import allocate
from ..plan.types import Param, Plan, ResultShape, ToolPlan
from . import dcg
from .document import Document, build_document, class_docs
from .imports import import_block
from .merge import merge
from .per_tool import SHARED, ModelModule, ToolRoots
from .postprocess import (
    CLIENT_TABLES,
    SERVER_TABLES,
    CatalogTables,
    ModelInfo,
    ModelsOutput,
    postprocess,
    prompt_model_imports,
)

__all__ = [
    "CLIENT_TABLES",
    "SERVER_TABLES",
    "CatalogTables",
    "ModelInfo",
    "ModelsOutput",
    "bind_plan",
    "generate_models",
    "prepare_models",
]

# A catalog of more tools than this is modelled in parts, spread over the cores: DCG takes
# ~17 ms of one core per rich tool and ~1 MB of memory per 4 tools in one call. A smaller one
# is one call, as it always was (its models.py stays byte for byte what it was).
PARTS_FROM = 100
# A part ends after this many tools or this much schema JSON, whichever comes first: ~15 MB of
# DCG's memory and ~1 s of a core each, enough parts to keep every core busy to the end.
PART_TOOLS = 50
PART_CHARS = 200_000


def prepare_models(tool_count: int) -> None:
    """Before planning: a catalog that will be modelled in parts has the extra workers load
    datamodel-code-generator now, while this process plans."""
    if tool_count > PARTS_FROM:
        dcg.prepare()


def generate_models(
    plan: Plan,
    *,
    runtime_module: str = "mcpgen.runtime",
    prompt_models: bool = False,
    tables: CatalogTables = CLIENT_TABLES,
) -> tuple[ModelsOutput | None, list[Problem]]:
    """models.py for the plan's tools (None with the problems when it cannot be made);
    `prompt_models`: it also imports what a server's prompt and template models use;
    `tables`: the package's catalog, where the models' exact checks read their schemas."""
    document, problems = build_document(plan.tools)
    # Only the arguments of prompts and templates use `Field` (templates/server/_generated).
    fields = any(p.params for p in plan.prompts) or any(t.params for t in plan.templates)
    if not plan.tools:
        empty = "from __future__ import annotations\n" + (prompt_model_imports(fields) if prompt_models else "")
        text = import_block(st for st in ast.parse(empty).body if isinstance(st, (ast.Import, ast.ImportFrom)))
        names = frozenset((["BaseModel", "ConfigDict"] + ["Field"] * fields) if prompt_models else [])
        shared = ModelModule(SHARED, text + "\n", ())
        return ModelsOutput(lambda: text + "\n", {}, (), names, modules=(shared,)), problems
    source: str | ast.Module
    try:
        if len(plan.tools) > PARTS_FROM:
            source = _in_parts(document, plan)
        else:
            source = dcg.generate(document.schema, document.aliases)
    except Exception as exc:  # DCG raises many types; all mean "these schemas could not be modelled"
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, problems + [Problem("models", f"datamodel-code-generator failed: {msg[:300]}")]
    roots = [
        ToolRoots(t.module, t.wire, (t.args_model,) + ((t.result_model,) if t.result_model else ())) for t in plan.tools
    ]
    out, found = postprocess(
        source,
        roots,
        class_docs(plan.tools),
        runtime_module,
        tables,
        prompt_models=prompt_models,
        prompt_fields=fields,
    )
    return out, problems + found


def _in_parts(document: Document, plan: Plan) -> ast.Module:
    """DCG's module of the document, made part by part on the workers and merged (each part
    parsed here as it comes back, while the workers make the others)."""
    parts = document.parts(plan.tools, max_tools=PART_TOOLS, max_chars=PART_CHARS)
    done: dict[int, ast.Module] = {}
    for index, source in dcg.generate_parts([(part.schema, part.aliases) for part in parts]):
        done[index] = ast.parse(source)
    return merge([(done[i], part.models) for i, part in enumerate(parts)])


def bind_plan(plan: Plan, models: ModelsOutput) -> Plan:
    """The plan with each tool's typed parameters and return annotation from the generated models,
    and prompt and template model names that step around every name models.py defines (a
    server appends those models to it)."""
    keys = [f"p:{p.wire}" for p in plan.prompts] + [f"t:{t.template}" for t in plan.templates]
    wanted = dict(zip(keys, [p.model for p in plan.prompts] + [t.model for t in plan.templates], strict=True))
    final = allocate(keys, wanted, models.names, joiner="V")
    return replace(
        plan,
        tools=tuple(_bind_tool(t, models) for t in plan.tools),
        prompts=tuple(replace(p, model=final[f"p:{p.wire}"]) for p in plan.prompts),
        templates=tuple(replace(t, model=final[f"t:{t.template}"]) for t in plan.templates),
    )


# A default shown in a docstring is cut to this many characters of its JSON text.
DEFAULT_DOC_MAX = 80


def _described(schema: object) -> tuple[str, str | None]:
    """An argument's description (one line) and its schema default as JSON text (None: no default)."""
    if not isinstance(schema, dict):
        return "", None
    default = None
    if "default" in schema:
        default = json.dumps(schema["default"], ensure_ascii=False)
        if len(default) > DEFAULT_DOC_MAX:
            default = default[: DEFAULT_DOC_MAX - 4] + " ..."
    return one_line(schema.get("description")), default


def _bind_tool(t: ToolPlan, models: ModelsOutput) -> ToolPlan:
    required = t.spec.input_schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    info = models.infos[t.args_model]
    props = t.spec.input_schema.get("properties")
    props = props if isinstance(props, dict) else {}
    params = [
        Param(f.python, f.wire, f.wire in required, info.fields.get(f.python, "Any"), *_described(props.get(f.wire)))
        for f in t.args
    ]
    params.sort(key=lambda p: not p.required)  # stable: schema order within each group
    if t.result_model is None:
        return replace(t, params=tuple(params))
    result = models.infos[t.result_model]
    # The models decide: an object schema DCG could only type as a RootModel is sent as a root.
    shape = ResultShape.ROOT if result.root_type is not None else ResultShape.MODEL
    annotation = result.root_type if result.root_type is not None else f"_models.{t.result_model}"
    return replace(t, params=tuple(params), shape=shape, result_annotation=annotation)
