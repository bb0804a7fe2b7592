"""The generic adapter between a generated server's handlers object and `Server`.

A generated server package holds only what differs between servers: its declarations as JSON
text and tables naming, for each tool, prompt, resource and template, the handler method, the
models and the result shape (`_generated/tables.py`, a module of assignments), plus `ToolsBase`,
one typed method per item. `bind_handlers` reads those tables once and registers on a `Server`
one wire handler per item, which checks the arguments exactly (JSON Schema), builds the typed
arguments, calls the handler method and turns what it returns (or raises) into the result.
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, Union, cast

import pydantic

from ..core.errors import RpcError, SchemaMismatch, ServerSetupError, ToolError
from ..core.exact_schemas import NO_SCHEMAS
from ..core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject, dumps, is_object
from ..core.protocol import ERA_MODERN
from ..core.results import ToolResult
from ..core.tables import HandledItem, HandledTool, ResultMode
from ..core.validation import (
    EXACT_CONTEXT_KEY,
    ExactModel,
    SchemaProblem,
    compile_problems_lazily,
    exact_model,
    fast_check,
    is_plain_json,
    validate_model,
)
from .apps_ui import tool_uis, ui_reader, ui_resource, with_ui
from .auth.info import scopes_of
from .features import PromptHandler, ResourceHandler, TemplateHandler
from .server import RequestContext, Server, ToolHandler, error_result
from .skills import serve_skills
from .tasks import with_task_support

# What a handler gets to report progress, log, notice cancellation and (where the
# client declared it) ask for sampling, elicitation or roots.
Context = RequestContext
# A tool without an outputSchema returns text, content blocks, or a whole ToolResult.
ToolOutput = Union[str, Sequence[dict[str, Any]], ToolResult]
# A prompt returns text (one user message), a list of messages, or a whole GetPromptResult.
PromptOutput = Union[str, Sequence[dict[str, Any]], dict[str, Any]]
# A resource returns text, bytes, a list of resource contents, or a whole ReadResourceResult.
ResourceOutput = Union[str, bytes, Sequence[dict[str, Any]], dict[str, Any]]


Method = Callable[..., Awaitable[Any]]

# The exact JSON Schema check runs first; the models' own copy of it is then skipped.
_CHECKED = {EXACT_CONTEXT_KEY: False}


class ServerTables(Protocol):
    """What a generated `_generated/tables.py` declares (the module itself satisfies this)."""

    @property
    def SERVER_NAME(self) -> str: ...
    @property
    def SERVER_VERSION(self) -> str: ...
    @property
    def SERVER_INFO_JSON(self) -> str: ...
    @property
    def INSTRUCTIONS(self) -> str | None: ...
    # One JSON text per declaration.
    @property
    def TOOLS_JSON(self) -> Sequence[str]: ...
    @property
    def PROMPTS_JSON(self) -> Sequence[str]: ...
    @property
    def RESOURCES_JSON(self) -> Sequence[str]: ...
    @property
    def TEMPLATES_JSON(self) -> Sequence[str]: ...
    @property
    def TOOLS(self) -> Mapping[str, HandledTool]:
        """tool name -> its handler method, models and result mode"""
        ...

    @property
    def PROMPTS(self) -> Mapping[str, HandledItem]:
        """prompt name -> its handler method and arguments model"""
        ...

    @property
    def RESOURCES(self) -> Mapping[str, str]:
        """resource URI -> handler method"""
        ...

    @property
    def TEMPLATES(self) -> Mapping[str, HandledItem]:
        """URI template -> its handler method and variables model"""
        ...


class CompletionHook:
    """`complete`, for a ToolsBase whose server has prompts or resource templates."""

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, Any], context: dict[str, Any], ctx: Context
    ) -> list[str]:
        """Suggestions for a prompt argument or template variable (`completion/complete`).

        `ref` names the prompt or template, `argument` is `{"name": ..., "value": ...}`,
        `context` may hold the other arguments already given. No suggestions by default.
        """
        return []


class SubscriptionHook:
    """`subscribe`, for a ToolsBase whose server has resources or resource templates."""

    async def subscribe(self, uri: str, subscribed: bool, ctx: Context) -> None:
        """A client (un)subscribed to updates of `uri`; accepted and ignored by default."""
        return None


def server_identity(handlers: object, tables: ServerTables) -> tuple[JSONObject, str | None]:
    """What the server says about itself in `initialize`: the source's serverInfo and
    instructions as tables.py keeps them, under what `handlers` sets (its class's SERVER_INFO
    keys win, one by one; its INSTRUCTIONS, even None, replaces the source's)."""
    info: JSONObject = json.loads(tables.SERVER_INFO_JSON)
    info.update(name=tables.SERVER_NAME, version=tables.SERVER_VERSION)
    override = getattr(handlers, "SERVER_INFO", None)
    if isinstance(override, Mapping):
        info.update(cast("Mapping[str, Any]", override))  # (checked just above; handlers.py's mapping)
    instructions = getattr(handlers, "INSTRUCTIONS", tables.INSTRUCTIONS)
    return info, instructions if isinstance(instructions, str) else None


def bind_handlers(handlers: object, tables: ServerTables, models: ModuleType) -> Server:
    """A Server serving `tables` with the methods of `handlers` (a generated ToolsBase's subclass)."""
    info, instructions = server_identity(handlers, tables)
    server = Server(
        str(info["name"]),
        str(info["version"]),
        instructions=instructions,
        server_info=info,
        # handlers.py's CACHE_HINTS: {"tools/list": CacheHint(ttl_ms=...), ...} (cache_hints.py).
        cache_hints=getattr(handlers, "CACHE_HINTS", None),
    )
    tools, uis = _served_tools(handlers, server, tables)
    # No model is looked up here: a generated `models` module loads its classes when first asked
    # for one, and `initialize` and `tools/list` need none. Each tool's handler is made, and its
    # models looked up, on the tool's first call.
    for wire, (method, args_model, result_model, mode) in tables.TOOLS.items():
        _check_mode(wire, result_model, mode)  # (refused at start)
        bound = _method(handlers, method)
        server.add_tool_made_on_first_call(
            tools[wire],
            functools.partial(_tool_of_models, wire, tools[wire], bound, models, args_model, result_model, mode),
        )
        scopes = scopes_of(bound)
        if scopes:
            server.tool_scopes[wire] = scopes
    prompts = _by_key(tables.PROMPTS_JSON, "name")
    for wire, (method, model) in tables.PROMPTS.items():
        server.add_prompt(prompts[wire], _prompt(wire, _method(handlers, method), _model_on_first_use(models, model)))
    resources = _by_key(tables.RESOURCES_JSON, "uri")
    for uri, method in tables.RESOURCES.items():
        server.add_resource(resources[uri], _resource(resources[uri], _method(handlers, method)))
    for uri, (wire, path) in {uri: (wire, path) for wire, (uri, path) in uis.items()}.items():  # (one per page)
        server.add_resource(ui_resource(wire, uri), ui_reader(path))
    templates = _by_key(tables.TEMPLATES_JSON, "uriTemplate")
    for template, (method, model) in tables.TEMPLATES.items():
        definition = templates[template]
        server.add_resource_template(
            definition, _template(definition, _method(handlers, method), _model_on_first_use(models, model))
        )
    if tables.PROMPTS or tables.TEMPLATES:
        complete = _method(handlers, "complete")

        async def completion(params: JSONObject, ctx: RequestContext) -> list[str]:
            result: list[str] = await complete(
                params.get("ref") or {}, params.get("argument") or {}, params.get("context") or {}, ctx
            )
            return result

        server.set_completion(completion)
    if tables.RESOURCES or tables.TEMPLATES:
        server.set_subscribe(_method(handlers, "subscribe"))
    return server


def _served_tools(
    handlers: object, server: Server, tables: ServerTables
) -> tuple[dict[str, JSONObject], dict[str, tuple[str, Path]]]:
    """The tools' definitions as served, and their MCP Apps pages, after what handlers.py's
    extension attributes (SKILLS_DIR, TASK_SUPPORT, TASK_INPUT_FIRST, TASK_LIMITS, TOOL_UI) add."""
    # handlers.py's SKILLS_DIR: a folder of skill folders, relative to the package (handlers.py's
    # folder, the parent of _generated/ whose tables.py names it, whichever class declared it).
    # A setting breaking a rule is a ServerSetupError with its one line (serve_main exits with it).
    tables_file = getattr(tables, "__file__", None)
    package = Path(tables_file).parent.parent if tables_file else Path(inspect.getfile(type(handlers))).parent
    skills_dir = getattr(handlers, "SKILLS_DIR", None)
    if skills_dir is not None:
        try:
            serve_skills(server, package / skills_dir)
        except ValueError as refused:
            raise ServerSetupError(f"SKILLS_DIR: {refused}") from None
    tools = _by_key(tables.TOOLS_JSON, "name")
    # handlers.py's TASK_SUPPORT {"tool": "optional" | "required"} runs tools as tasks without
    # touching the schemas; TASK_INPUT_FIRST names those that gather input first (tasks.py).
    runs_as_task: dict[str, Any] = getattr(handlers, "TASK_SUPPORT", None) or {}
    unknown = sorted(set(runs_as_task) - set(tools))
    if unknown:
        raise ServerSetupError(f"TASK_SUPPORT names {unknown[0]!r}, which is no tool of this server")
    server.task_input_first.update(getattr(handlers, "TASK_INPUT_FIRST", None) or ())
    limits = getattr(handlers, "TASK_LIMITS", None)  # a TaskLimits: the TTL, the caps, the lease
    if limits is not None:
        server.tasks.limits = limits
    tools = {wire: with_task_support(definition, runs_as_task.get(wire)) for wire, definition in tools.items()}
    # handlers.py's TOOL_UI: a tool's MCP Apps page, named in its definition (apps_ui.py).
    uis = tool_uis(handlers, set(tables.TOOLS), package)
    for wire, (uri, _) in uis.items():
        tools[wire] = with_ui(tools[wire], uri)
    return tools, uis


# -- tools ---------------------------------------------------------------------------


def _tool_of_models(
    wire: str,
    definition: JSONObject,
    method: Method,
    models: ModuleType,
    args_model: str,
    result_model: str | None,
    mode: ResultMode,
) -> ToolHandler:
    """Tool `wire`'s handler, its models looked up in `models` by name (on the tool's first call)."""
    result, exact = None, None
    if result_model is not None:
        result = _model(models, result_model)
        exact = exact_model(result, getattr(models, "_EXACT_SCHEMAS", None) or NO_SCHEMAS)
    return _tool(wire, definition, method, _model(models, args_model), result, mode, exact)


def _tool(
    wire: str,
    definition: JSONObject,
    method: Method,
    args_model: type[pydantic.BaseModel],
    result_model: type[pydantic.BaseModel] | None,
    mode: ResultMode,
    result_exact: ExactModel | None = None,
) -> ToolHandler:
    send = _sender(wire, result_model, mode, result_exact)
    schema = definition["inputSchema"]
    check = compile_problems_lazily(schema)
    # What the check asks first, here without the two calls around it (no jsonschema needed).
    fast = fast_check(schema)
    not_implemented = f"Tool {wire!r} is not implemented yet"

    async def call(arguments: JSONObject, ctx: RequestContext) -> JSONObject:
        if fast is None or not fast(arguments):
            problems = check(arguments)
            if problems:
                return error_result(_listing(wire, problems))
        try:
            args = validate_model(args_model, arguments, _CHECKED)
        except pydantic.ValidationError as exc:
            return _bad_arguments(exc, wire)
        try:
            value = await method(args, ctx)
        except NotImplementedError:
            return error_result(not_implemented)
        except ToolError as exc:
            return exc.result.to_wire()
        return send(value, ctx)

    return call


def _check_mode(wire: str, result_model: object, mode: object) -> None:
    """A tool's row must be whole: a ResultMode, and a Result model exactly when it is not CONTENT."""
    if not isinstance(mode, ResultMode) or (result_model is None) != (mode is ResultMode.CONTENT):
        raise ValueError(f"tool {wire!r}: result mode {mode!r} does not fit result model {result_model!r}")


def _sender(
    wire: str, result_model: type[pydantic.BaseModel] | None, mode: ResultMode, exact: ExactModel | None = None
) -> Callable[[Any, RequestContext], JSONObject]:
    """How tool `wire`'s return value becomes its CallToolResult (core/tables.py's ResultMode)."""
    _check_mode(wire, result_model, mode)
    if result_model is None:
        return lambda value, ctx: _plain_output(value)
    model = result_model
    if not mode.is_root:
        wrap = mode.wrapped

        def send_model(value: Any, ctx: RequestContext) -> JSONObject:
            data = _checked_plain(exact, value)
            if data is _BUILD:
                data = model.model_validate(value).model_dump(mode="json", by_alias=True, exclude_unset=True)
            return _structured_output({"result": data} if wrap else data)

        return send_model
    always_wrap = mode.wrapped

    def send_root(value: Any, ctx: RequestContext) -> JSONObject:
        data = _checked_plain(exact, value)
        if data is _BUILD:
            data = model.model_validate(value).model_dump(mode="json", by_alias=True)
        # A non-object result is bare in the stateless era; handshake-era clients expect an object.
        bare = not always_wrap and ctx.era == ERA_MODERN
        return _structured_output(data if bare else {"result": data})

    return send_root


# What _checked_plain returns for a value the result model must build (and dump) first.
_BUILD: Any = object()


def _checked_plain(exact: ExactModel | None, value: Any) -> Any:
    """A handler's return value as sent, keyed by wire names, when it is plain JSON that the
    outputSchema accepts: building the result model from it and dumping it would send the same
    JSON, so it is sent as it is. Anything else (a model, a tuple, a value the schema refuses)
    is _BUILD: the model builds it, and a refusal becomes the model's own ValidationError."""
    if exact is None or exact.renames_below or not is_plain_json(value):
        return _BUILD
    try:
        return exact.check_plain(value)
    except SchemaMismatch:
        return _BUILD


def _plain_output(value: Any) -> JSONObject:
    if isinstance(value, ToolResult):
        return value.to_wire()
    if isinstance(value, str):
        return {"content": _text(value), "isError": False}
    if isinstance(value, (list, tuple)):
        blocks: list[object] = list(cast("list[object] | tuple[object, ...]", value))  # (checked just above)
        if all(is_object(block) for block in blocks):
            return {"content": blocks, "isError": False}
    kind = type(cast(object, value)).__name__  # (any value: what the handler gave)
    raise TypeError(f"a handler returned {kind}; expected str, content blocks or ToolResult")


def _structured_output(structured: Any) -> JSONObject:
    # Structured content, plus the same JSON as text for clients that only read content.
    return {
        "content": _text(dumps(structured)),
        "structuredContent": structured,
        "isError": False,
    }


def _text(value: str) -> list[JSONObject]:
    return [{"type": "text", "text": value}]


# Error messages quote at most this much of what the client sent (a key or value may be 10 MB).
_QUOTE_CHARS = 1000


def _bad_arguments(exc: pydantic.ValidationError, wire: str = "") -> JSONObject:
    problems = [
        SchemaProblem(tuple(p if isinstance(p, int) else str(p)[:200] for p in e["loc"][:20]), e["msg"][:300])
        for e in exc.errors(include_input=False, include_url=False)
    ]
    return error_result(_listing(wire, problems))


def _listing(wire: str, problems: list[SchemaProblem]) -> str:
    """What an LLM reads about bad arguments: every problem on its own line, by JSON pointer
    and wire name, no URLs; bounded to _QUOTE_CHARS (later problems are counted, not quoted)."""
    head = f"Invalid arguments for tool {wire[:100]!r}:" if wire else "Invalid arguments:"
    lines = [head]
    used = len(head)
    for i, problem in enumerate(problems):
        line = str(problem)
        if used + 1 + len(line) > _QUOTE_CHARS - 40:
            lines.append(f"({len(problems) - i} more not shown)")
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines)


# -- prompts, resources, resource templates ------------------------------------------


def _prompt(wire: str, method: Method, model: Callable[[], type[pydantic.BaseModel]]) -> PromptHandler:
    async def get(arguments: dict[str, str], ctx: RequestContext) -> JSONObject:
        try:
            args = model().model_validate(arguments)
        except pydantic.ValidationError as exc:
            message = exc.errors(include_input=False, include_url=False)[0]["msg"]
            raise RpcError(INVALID_PARAMS, f"Invalid prompt arguments: {message}"[:_QUOTE_CHARS]) from None
        try:
            return _prompt_result(await method(args, ctx))
        except NotImplementedError:
            raise _not_implemented(f"Prompt {wire!r}") from None

    return get


def _resource(definition: JSONObject, method: Method) -> ResourceHandler:
    mime, label = definition.get("mimeType"), f"Resource {definition['uri']!r}"

    async def read(uri: str, ctx: RequestContext) -> JSONObject:
        try:
            return _resource_result(uri, mime, await method(ctx))
        except NotImplementedError:
            raise _not_implemented(label) from None

    return read


def _template(definition: JSONObject, method: Method, model: Callable[[], type[pydantic.BaseModel]]) -> TemplateHandler:
    mime, label = definition.get("mimeType"), f"Resource template {definition['uriTemplate']!r}"

    async def read(uri: str, values: dict[str, str], ctx: RequestContext) -> JSONObject:
        params = model().model_validate(values)
        try:
            return _resource_result(uri, mime, await method(params, ctx))
        except NotImplementedError:
            raise _not_implemented(label) from None

    return read


def _prompt_result(value: PromptOutput) -> JSONObject:
    if isinstance(value, str):
        return {"messages": [{"role": "user", "content": {"type": "text", "text": value}}]}
    if is_object(value):
        return value
    return {"messages": list(value)}


def _resource_result(uri: str, mime: Any, value: ResourceOutput) -> JSONObject:
    if is_object(value):
        return value
    if isinstance(value, str):
        item: JSONObject = {"uri": uri, "text": value}
    elif isinstance(value, bytes):
        item = {"uri": uri, "blob": base64.b64encode(value).decode("ascii")}
    else:
        return {"contents": list(value)}
    if mime is not None:
        item["mimeType"] = mime
    return {"contents": [item]}


def _not_implemented(what: str) -> RpcError:
    return RpcError(INTERNAL_ERROR, f"{what} is not implemented yet")


# -- reading the tables ----------------------------------------------------------------


def _by_key(definitions_json: Sequence[str], key: str) -> dict[str, JSONObject]:
    """The declarations, one JSON text each, by their name, URI or URI template."""
    found: dict[str, JSONObject] = {}
    for definition in json.loads("[" + ",".join(definitions_json) + "]"):  # one parse for all
        if is_object(definition) and isinstance(definition.get(key), str):
            found[definition[key]] = definition
    return found


def _method(handlers: object, name: str) -> Method:
    method = getattr(handlers, name, None)
    if not callable(method):
        raise TypeError(f"{type(handlers).__name__} has no handler method {name!r}")
    return cast(Method, method)


def _model_on_first_use(models: ModuleType, name: str) -> Callable[[], type[pydantic.BaseModel]]:
    """The model `name` of `models`, looked up when first asked for (then kept)."""
    return functools.cache(functools.partial(_model, models, name))


def _model(models: ModuleType, name: str) -> type[pydantic.BaseModel]:
    model = getattr(models, name, None)
    if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)):
        raise TypeError(f"{models.__name__} has no model {name!r}")
    return model


__all__ = [
    "CompletionHook",
    "Context",
    "PromptOutput",
    "ResourceOutput",
    "ServerTables",
    "SubscriptionHook",
    "ToolOutput",
    "bind_handlers",
]
