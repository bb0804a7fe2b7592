"""The only adapter to datamodel-code-generator (DCG).

One combined JSON Schema document holds the *typing view* (see `exact.py`) of every
`<Pascal>Args` / `<Pascal>Result` under `$defs`, with each tool's local `$defs`/`definitions`
hoisted beside them and every `$ref` rewritten to point inside that document. DCG is called
once, in-process, on that document. Each Args/Result class then gets a `mode="before"`
validator that checks the raw instance against the tool's own schema (kept verbatim in
`_EXACT_SCHEMAS`), so the models accept exactly what the schemas accept.
A tool whose refs leave the document is refused (`check_tools`): never a file, never a URL.
"""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog.model import Catalog, Problem, ToolSpec
from .typing_view import MAX_DEPTH, ref_problems, schema_depth, typing_view
from ..plan.naming import ToolNames, pascal, snake

if TYPE_CHECKING:
    from .dcg import DcgWorker

ROOT_CLASS = "McpgenDocumentRoot"

_SCHEMA_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE_KEYS = (
    "additionalProperties", "additionalItems", "contains", "not", "if", "then", "else",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items",
)
_SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
# Keywords that could make DCG look outside the document or change its base URI.
_DROP_KEYS = ("$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor")


def result_view(spec: ToolSpec) -> tuple[dict[str, Any] | None, bool]:
    """The schema the typed method returns, and whether `{"result": X}` must be unwrapped."""
    out = spec.output_schema
    if out is None:
        return None, False
    props = out.get("properties")
    wrapped = bool(out.get("x-fastmcp-wrap-result")) or (
        isinstance(props, dict) and list(props) == ["result"] and out.get("required") == ["result"]
    )
    if wrapped and isinstance(props, dict) and isinstance(props.get("result"), dict):
        inner = dict(props["result"])
        for key in ("$defs", "definitions"):  # the inner schema's refs still point at the outer defs
            if key in out:
                inner.setdefault(key, out[key])
        return inner, True
    return out, False


def result_props(spec: ToolSpec) -> dict[str, Any]:
    schema, _ = result_view(spec)
    props = schema.get("properties") if schema else None
    return props if isinstance(props, dict) else {}


@dataclass(frozen=True)
class ModelInfo:
    """What the client templates need to know about one generated model."""

    fields: dict[str, str]  # python field name -> annotation source (names qualified for client.py)
    root_type: str | None  # RootModel[T] -> "T" (qualified); None for BaseModel
    wire_names: dict[str, str] = field(default_factory=dict)  # python field name -> its alias, or itself


@dataclass(frozen=True)
class ModelsOutput:
    source: str  # models.py body, without header
    infos: dict[str, ModelInfo]  # class name -> info, for every Args/Result
    client_imports: tuple[str, ...]  # `import x as _x` lines client.py needs for annotations


class _Hoister:
    def __init__(self, defs: dict[str, Any], problems: list[Problem]) -> None:
        self.defs = defs
        self.problems = problems

    def add(self, key: str, schema: dict[str, Any], where: str, pointer: str) -> None:
        schema = copy.deepcopy(schema)
        local: dict[str, str] = {}  # "#/$defs/Name" -> hoisted key
        bodies: list[tuple[str, str, Any]] = []
        for kw in ("$defs", "definitions"):
            sub = schema.pop(kw, None)
            if isinstance(sub, dict):
                for name in sorted(sub):
                    new = self._free(key + pascal(snake(name, empty="def")))
                    self.defs[new] = None  # reserve
                    local[f"#/{kw}/{name}"] = new
                    bodies.append((new, f"{pointer}/{kw}/{name}", sub[name]))
        self.defs[key] = self._walk(schema, key, local, where, pointer)
        for new, ptr, body in bodies:
            self.defs[new] = self._walk(body, key, local, where, ptr)

    def _free(self, name: str) -> str:
        cand, n = name, 1
        while cand in self.defs:
            n += 1
            cand = f"{name}{n}"
        return cand

    def _walk(self, node: Any, key: str, local: dict[str, str], where: str, ptr: str) -> Any:
        if isinstance(node, bool) or not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in _DROP_KEYS:
                if k in ("$dynamicRef", "$recursiveRef"):
                    self.problems.append(Problem(where, f"unsupported {k} replaced by an untyped value", ptr, warning=True))
                continue
            if k == "$ref":
                ref = self._ref(v, key, local)
                if ref is None:
                    self.problems.append(
                        Problem(where, f"$ref {str(v)[:80]!r} points outside the document; typed as Any", ptr, warning=True)
                    )
                    continue
                out[k] = ref
            elif k in _SCHEMA_MAP_KEYS and isinstance(v, dict):
                out[k] = {n: self._walk(s, key, local, where, f"{ptr}/{k}/{n}") for n, s in v.items()}
            elif k in _SCHEMA_LIST_KEYS and isinstance(v, list):
                out[k] = [self._walk(s, key, local, where, f"{ptr}/{k}/{i}") for i, s in enumerate(v)]
            elif k in _SCHEMA_ONE_KEYS:
                out[k] = self._walk(v, key, local, where, f"{ptr}/{k}")
            else:
                out[k] = v
        return out

    @staticmethod
    def _ref(ref: Any, key: str, local: dict[str, str]) -> str | None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        for prefix, new in local.items():
            if ref == prefix or ref.startswith(prefix + "/"):
                return f"#/$defs/{new}{ref[len(prefix):]}"
        return f"#/$defs/{key}{ref[1:]}" if ref != "#" else f"#/$defs/{key}"


def check_tools(tools: list[ToolSpec]) -> list[Problem]:
    """Tools no model can check exactly (refs leaving the document, hostile depth): refused one by one."""
    problems: list[Problem] = []
    for t in tools:
        for pointer, schema in (("/inputSchema", t.input_schema), ("/outputSchema", t.output_schema)):
            if schema is None:
                continue
            if schema_depth(schema) > MAX_DEPTH:
                problems.append(Problem(repr(t.name), f"schema nested deeper than {MAX_DEPTH} levels", pointer,
                                        skippable=True, tool=t.name))
                continue
            try:
                found = ref_problems(schema)
            except RecursionError:
                found = [("", "schema nested too deeply to resolve its references")]
            problems += [Problem(repr(t.name), msg, pointer + ptr, skippable=True, tool=t.name) for ptr, msg in found]
    return problems


def exact_schemas(tools: list[ToolSpec], names: dict[str, ToolNames]) -> dict[str, tuple[str, str | None]]:
    """Class name -> (the tool's own schema as JSON text, key it wraps the instance in or None)."""
    out: dict[str, tuple[str, str | None]] = {}
    for t in tools:
        n = names[t.name]
        out[n.args_model] = (_json(t.input_schema), None)
        if t.output_schema is not None:
            _, wrapped = result_view(t)
            # A wrapped result is checked as {"result": X} against the schema the server declared.
            out[n.result_model] = (_json(t.output_schema), "result" if wrapped else None)
    return out


def _json(schema: Any) -> str:
    return json.dumps(schema, ensure_ascii=True, separators=(",", ":"), allow_nan=True)


def build_document(tools: list[ToolSpec], names: dict[str, ToolNames]) -> tuple[dict[str, Any], dict[str, str], list[Problem]]:
    """The combined typing-view document and DCG's scoped field aliases (Class.wire -> python)."""
    problems: list[Problem] = []
    defs: dict[str, Any] = {}
    hoist = _Hoister(defs, problems)
    # Reserve every top-level class name first so hoisted defs never take one.
    for t in tools:
        defs[names[t.name].args_model] = None
        if t.output_schema is not None:
            defs[names[t.name].result_model] = None
    aliases: dict[str, str] = {}
    for t in tools:
        n = names[t.name]
        hoist.add(n.args_model, typing_view(t.input_schema, root_object=True), repr(t.name), "/inputSchema")
        for f in n.args:
            aliases[f"{n.args_model}.{f.wire}"] = f.python
        res, wrapped = result_view(t)
        if res is not None:
            root_object = not wrapped and (res.get("type") == "object" or "properties" in res)
            hoist.add(n.result_model, typing_view(res, root_object=root_object), repr(t.name), "/outputSchema")
            for f in n.result_fields:
                aliases[f"{n.result_model}.{f.wire}"] = f.python
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {k: defs[k] for k in sorted(defs)}}
    return doc, aliases, problems


def _docs(tools: list[ToolSpec], names: dict[str, ToolNames]) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tools:
        n = names[t.name]
        for cls, schema in ((n.args_model, t.input_schema), (n.result_model, result_view(t)[0])):
            desc = schema.get("description") if isinstance(schema, dict) else None
            if isinstance(desc, str) and desc.strip():
                out[cls] = desc.strip()[:4000]
    return out


def generate_models(
    catalog: Catalog,
    tools: list[ToolSpec],
    names: dict[str, ToolNames],
    *,
    runtime_module: str = "mcpgen.runtime",
    dcg: DcgWorker | None = None,
) -> tuple[ModelsOutput | None, list[Problem]]:
    doc, aliases, problems = build_document(tools, names)
    if not tools:
        return ModelsOutput("from __future__ import annotations\n", {}, ()), problems
    try:
        source = dcg.run(doc, aliases) if dcg is not None else _run_dcg(doc, aliases)
    except Exception as exc:  # DCG raises many types; all mean "these schemas could not be modelled"
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, problems + [Problem("models", f"datamodel-code-generator failed: {msg[:300]}")]
    wanted = {names[t.name].args_model for t in tools} | {
        names[t.name].result_model for t in tools if t.output_schema is not None
    }
    exact = _Exact(exact_schemas(tools, names), _docs(tools, names), runtime_module)
    out, probs = _postprocess(source, wanted, exact)
    return out, problems + probs


def _run_dcg(doc: dict[str, Any], aliases: dict[str, str]) -> str:
    from datamodel_code_generator import InputFileType, LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType

    result = generate(
        json.dumps(doc, sort_keys=False),
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_310,
        class_name=ROOT_CLASS,
        aliases=aliases,
        disable_timestamp=True,
        field_constraints=True,
        strict_nullable=True,
        use_union_operator=True,
        use_standard_collections=True,
        enum_field_as_literal=LiteralType.All,
        keep_model_order=True,
        use_schema_description=False,
        # Unknown keys are kept (and sent); the exact check already judged them.
        extra_fields="allow",
        use_field_description=False,
        formatters=[],
        # URLs stay strings: AnyUrl would rewrite what is sent (adds "/") and rejects plain-str defaults.
        type_mappings=["string+uri=string", "string+uri-reference=string", "string+iri=string"],
    )
    if not isinstance(result, str):
        raise RuntimeError("expected one module from datamodel-code-generator")
    return result


_SAFE_TOP = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.Assign, ast.AnnAssign)


@dataclass(frozen=True)
class _Exact:
    schemas: dict[str, tuple[str, str | None]]  # class -> (schema JSON, wrap key)
    docs: dict[str, str]  # class -> docstring
    runtime_module: str


_EXACT_NAME = "_EXACT_SCHEMAS"


_WRAPS_NAME = "_EXACT_WRAPS"
_MIXIN = "_McpgenExact"


def _exact_preamble(runtime_module: str) -> list[ast.stmt]:
    """Imports, and the one mixin every Args/Result model takes as its first base: jsonschema on
    the raw instance, then pydantic builds (one class, not a validator per model: less code)."""
    return ast.parse(
        "from typing import Any\n"
        "from pydantic import ValidationInfo, model_validator\n"
        f"from {runtime_module}.support.models import check_exact_model as _check_exact_model\n"
        f"class {_MIXIN}:\n"
        "    @model_validator(mode='before')\n"
        "    @classmethod\n"
        "    def _mcpgen_exact(cls, data: Any, info: ValidationInfo) -> Any:\n"
        f"        return _check_exact_model(cls, data, info.context, {_EXACT_NAME}, {_WRAPS_NAME})\n"
    ).body


def _dedupe_imports(imports: list[ast.stmt]) -> list[ast.stmt]:
    """Drop `from m import x` names already imported by an earlier statement (and emptied imports)."""
    seen: set[tuple[str, str, str]] = set()
    out: list[ast.stmt] = []
    for stmt in imports:
        if isinstance(stmt, ast.ImportFrom):
            names = [a for a in stmt.names if (stmt.module or "", a.name, a.asname or "") not in seen]
            seen.update((stmt.module or "", a.name, a.asname or "") for a in names)
            if not names:
                continue
            stmt.names = names
        out.append(stmt)
    return out


def _add_exact(cls: ast.ClassDef, exact: _Exact) -> None:
    body = [s for s in cls.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                         and isinstance(s.value.value, str))]
    body = [s for s in body if not isinstance(s, ast.Pass)]
    doc = exact.docs.get(cls.name)
    head: list[ast.stmt] = [ast.Expr(ast.Constant(doc))] if doc else []
    cls.body = (head + body) or [ast.Pass()]
    cls.bases.insert(0, ast.Name(_MIXIN, ast.Load()))


def _postprocess(source: str, wanted: set[str], exact: _Exact) -> tuple[ModelsOutput | None, list[Problem]]:
    """Drop DCG's header and root class, check the module is inert, read field annotations,
    add the exact validators and the schemas they check against."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return None, [Problem("models", f"generated models do not parse: {exc}")]
    problems: list[Problem] = []
    body: list[ast.stmt] = []
    module_of: dict[str, str] = {}  # imported name -> module
    classes: dict[str, ast.ClassDef] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == ROOT_CLASS:
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _is_rebuild(stmt.value):
            body.append(stmt)  # `X.model_rebuild()` is how pydantic resolves forward refs
            continue
        if not isinstance(stmt, _SAFE_TOP):
            problems.append(Problem("models", f"unexpected top-level statement at line {stmt.lineno}"))
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module != "__future__":
            for a in stmt.names:
                module_of[a.asname or a.name] = stmt.module
        if isinstance(stmt, ast.ClassDef):
            classes[stmt.name] = stmt
            _drop_same_alias(stmt)
            _wrap_str_defaults(stmt)
            _open_protected_namespaces(stmt)
        body.append(stmt)
    missing = sorted(wanted - set(classes))
    if missing:
        problems.append(Problem("models", f"datamodel-code-generator renamed models: {', '.join(missing)}"))
    if problems:
        return None, problems
    for name in sorted(wanted):
        _add_exact(classes[name], exact)
    first = 1 if body and isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__" else 0
    preamble = _exact_preamble(exact.runtime_module)
    imports: list[ast.stmt] = [st for st in body[first:] if isinstance(st, (ast.Import, ast.ImportFrom))]
    others = [st for st in body[first:] if not isinstance(st, (ast.Import, ast.ImportFrom))]
    # All imports first (DCG's too, each name once), then the mixin, then DCG's classes.
    body = body[:first] + _dedupe_imports(preamble[:-1] + imports) + preamble[-1:] + others
    table = ast.Dict(
        keys=[ast.Constant(k) for k in sorted(exact.schemas)],
        values=[ast.Constant(exact.schemas[k][0]) for k in sorted(exact.schemas)],
    )
    # JSON text, not a dict literal: the schemas stay exactly as the server sent them.
    body.append(ast.AnnAssign(ast.Name(_EXACT_NAME, ast.Store()), ast.parse("dict[str, str]", mode="eval").body, table, 1))
    wraps = {k: w for k, (_, w) in sorted(exact.schemas.items()) if w}
    wrap_table = ast.Dict(keys=[ast.Constant(k) for k in wraps], values=[ast.Constant(w) for w in wraps.values()])
    body.append(ast.AnnAssign(ast.Name(_WRAPS_NAME, ast.Store()), ast.parse("dict[str, str]", mode="eval").body, wrap_table, 1))
    # Re-emitting through ast.unparse makes every string literal a repr() (DESIGN §6).
    text = ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"
    qualify = _Qualifier(set(classes), module_of)
    infos = {name: _info(classes[name], qualify) for name in sorted(wanted)}
    return ModelsOutput(text, infos, tuple(sorted(qualify.imports))), []


def _open_protected_namespaces(cls: ast.ClassDef) -> None:
    """A wire field may be called `model_dump_x`: pydantic would warn at import. Tell it not to."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets)
            and isinstance(stmt.value, ast.Call)
            and not any(k.arg == "protected_namespaces" for k in stmt.value.keywords)
        ):
            stmt.value.keywords.append(ast.keyword("protected_namespaces", ast.Tuple([], ast.Load())))


def _drop_same_alias(cls: ast.ClassDef) -> None:
    """Scoped aliases make DCG write `alias='x'` on field `x`; that is noise, remove it."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            call.keywords = [
                k
                for k in call.keywords
                if not (k.arg == "alias" and isinstance(k.value, ast.Constant) and k.value.value == stmt.target.id)
            ]
            if isinstance(call.func, ast.Name) and call.func.id == "Field" and not call.keywords and len(call.args) == 1:
                arg = call.args[0]
                if isinstance(arg, ast.Constant) and arg.value is not Ellipsis:
                    stmt.value = arg  # `x: int = Field(3)` -> `x: int = 3`
                elif isinstance(arg, ast.Constant):
                    stmt.value = None  # `Field(...)` -> required, no default
                    stmt.simple = 1


def _wrap_str_defaults(cls: ast.ClassDef) -> None:
    """`url: AnyUrl = 'https://..'` is fine for pydantic but not for mypy: use Field('https://..')."""
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
            and not any(k in ast.unparse(stmt.annotation) for k in ("str", "Literal", "Any"))
        ):
            stmt.value = ast.Call(ast.Name("Field", ast.Load()), [stmt.value], [])


def _is_rebuild(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr == "model_rebuild" and isinstance(f.value, ast.Name) and not call.args


class _Qualifier(ast.NodeTransformer):
    """Rewrites annotation names so client.py can use them: models classes via `_models.`,
    imported names via a private module alias, builtins untouched."""

    def __init__(self, classes: set[str], module_of: dict[str, str]) -> None:
        self.classes = classes
        self.module_of = module_of
        self.imports: set[str] = set()

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.classes:
            return ast.Attribute(value=ast.Name("_models", ast.Load()), attr=node.id, ctx=ast.Load())
        mod = self.module_of.get(node.id)
        if mod is None:
            return node
        alias = "_" + mod.replace(".", "_")
        self.imports.add(f"import {mod} as {alias}")
        return ast.Attribute(value=ast.Name(alias, ast.Load()), attr=node.id, ctx=ast.Load())

    def text(self, node: ast.expr) -> str:
        return ast.unparse(self.visit(copy.deepcopy(node)))


def _info(cls: ast.ClassDef, q: _Qualifier) -> ModelInfo:
    root: str | None = None
    for base in cls.bases:
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id == "RootModel":
            root = q.text(base.slice)
    fields: dict[str, str] = {}
    wire_names: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id != "model_config":
            fields[stmt.target.id] = q.text(stmt.annotation)
            wire_names[stmt.target.id] = _alias_of(stmt) or stmt.target.id
    return ModelInfo(fields, root, wire_names)


def _alias_of(stmt: ast.AnnAssign) -> str | None:
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field":
        for k in call.keywords:
            if k.arg == "alias" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                return k.value.value
    return None
