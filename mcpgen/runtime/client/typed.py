"""The machinery every generated client shares: connecting, per-call options, dispatch, the sync twin.

A generated `AsyncClient` subclasses `AsyncClientBase` and adds one typed method per tool that
calls `_call` with its arguments by wire name; its `Client` subclasses `SyncClientBase` and runs those methods on a loop
thread. Keeping this here, not in each generated package, keeps generated code to what differs
from server to server (and the formatter's work with it).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import threading
import types
import typing
import warnings
import weakref
from collections.abc import AsyncGenerator, Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Generic, ParamSpec, TypeVar, cast

from ..core.errors import (
    InvalidArguments,
    SchemaDriftError,
    SchemaDriftWarning,
    SchemaMismatch,
    ToolError,
    ToolOutputError,
    ToolOutputWarning,
)
from ..core.exact_schemas import NO_SCHEMAS
from ..core.jsonrpc import is_object
from ..core.results import ToolResult, Unset, structured_of
from ..core.tables import ToolRow
from ..core.validation import (
    EXACT_CONTEXT_KEY,
    ExactModel,
    exact_model,
    is_plain_json,
    validate_model,
)
from .arguments import problems_of, python_lines, wire_lines
from .catalog import ToolCatalog
from .drift import Drift, compare_tools
from .features import AsyncFeatures, SyncFeatures
from .llm_discovery import Discovery, meta_call
from .llm_host import LlmToolsMixin
from .options import (
    CallOptions,
    ClientOptions,
    ConnectOptions,
    HttpOptions,
    StdioOptions,
    option_names,
    split_options,
)
from .repin import ToolPins
from .servers_config import config_path, read_servers_config
from .typed_tasks import TypedTask

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..transports.memory import MemoryServable
    from .options import CallKwargs, ClientConnectKwargs, ClientHttpKwargs, ClientMemoryKwargs, ClientStdioKwargs
    from .session import ClientSession

_T = TypeVar("_T")
_P = ParamSpec("_P")
_A = TypeVar("_A", bound="AsyncClientBase")
_S = TypeVar("_S", bound="SyncClientBase[Any]")


async def _check_drift(catalog: ToolCatalog, session: ClientSession, mode: str) -> None:
    """One tools/list: are the live schemas the ones this client was generated from?"""
    if mode == "off":
        return
    drift = compare_tools(catalog.schema_hashes, await session.list_tools(), catalog.shared_tools())
    if not drift:
        return
    if mode == "strict":
        raise SchemaDriftError(drift)
    warnings.warn(SchemaDriftWarning(drift.describe()), stacklevel=2)


def _refuse(overrides: Mapping[str, Any], other: type[ConnectOptions], mine: type[ConnectOptions], why: str) -> None:
    """connect() goes one way: the other transport's own options are a mistake, not ignored."""
    stray = sorted(name for name in overrides if name in option_names(other) and name not in option_names(mine))
    if stray:
        raise TypeError(f"{why}: {', '.join(stray)} apply only to the other transport")


class AsyncClientBase(AsyncFeatures, LlmToolsMixin):
    """What a generated AsyncClient inherits: everything but its typed tool methods.

    A subclass sets `_catalog` and `_load_models` (the package's pydantic models, loaded on
    first use so that importing the client stays cheap).
    """

    _catalog: ClassVar[ToolCatalog]

    @staticmethod
    def _load_models() -> ModuleType:
        raise NotImplementedError

    def __init__(
        self, session: ClientSession, options: CallOptions | None = None, **overrides: Unpack[CallKwargs]
    ) -> None:
        self._session = session
        self._per_call = CallOptions.build(options, overrides, caller=type(self).__name__)
        # This class's tool bindings, found once: a weak dictionary's lookup makes a weakref each time.
        self._tool_bindings = _bindings_of(type(self))
        self._discovery = Discovery()  # progressive discovery: what the model loaded (llm_discovery.py)
        self._pins: ToolPins | None = None  # re-pinning on tools/list_changed (repin.py), set on connect
        # Over HTTP the catalog's x-mcp-header annotations become Mcp-Param-* headers (2026-07-28).
        session.know_tools(self._catalog.shared_tools())

    @property
    def session(self) -> ClientSession:
        """The underlying runtime session (prompts, resources, raw requests)."""
        return self._session

    @property
    def tool_drift(self) -> Drift | None:
        """What the latest mid-session tools/list_changed re-check found (None: no change seen;
        repin.py). Under drift="strict" a call to a tool it names raises ToolChangedError."""
        return self._pins.drift if self._pins is not None else None

    @classmethod
    async def _pinned(cls: type[_A], session: ClientSession, client_opts: ClientOptions) -> _A:
        """The client on a connected session: drift checked now, and again on each tools/list_changed."""
        await _check_drift(cls._catalog, session, client_opts.drift)
        client = cls(session, validate_output=client_opts.validate_output)
        if client_opts.drift != "off":
            client._pins = ToolPins(cls._catalog, session, client_opts.drift, client_opts.on_drift)
            await client._pins.listen()
        return client

    @classmethod
    @contextlib.asynccontextmanager
    async def connect_stdio(
        cls: type[_A],
        command: str,
        args: Sequence[str] = (),
        *,
        options: StdioOptions | ConnectOptions | None = None,
        **overrides: Unpack[ClientStdioKwargs],
    ) -> AsyncGenerator[_A, None]:
        """Start `command args` as a stdio MCP server and connect to it.

        Takes the runtime's connection options (StdioOptions: `timeout`, `connect_timeout`,
        `protocol`, the `on_*` callbacks, `env`, `cwd`, `wire_log`, ...), as `options=` and/or as
        keywords, and this client's own (ClientOptions): `validate_output`, how results are
        checked against outputSchema ("strict", "warn" or "off"), and `drift`, which compares the
        server's tool schemas with the generated ones after connecting: "warn" (a
        SchemaDriftWarning), "strict" (raise SchemaDriftError naming the tools) or "off" (no
        extra tools/list).
        """
        from .connect import connect_stdio

        given, own = split_options(overrides, StdioOptions, ClientOptions, caller="connect_stdio")
        opts = StdioOptions.build(options, given, caller="connect_stdio")
        client_opts = ClientOptions(**own)
        async with connect_stdio(command, list(args), options=opts) as session:
            yield await cls._pinned(session, client_opts)

    @classmethod
    @contextlib.asynccontextmanager
    async def connect_http(
        cls: type[_A],
        url: str,
        *,
        options: HttpOptions | ConnectOptions | None = None,
        **overrides: Unpack[ClientHttpKwargs],
    ) -> AsyncGenerator[_A, None]:
        """Connect to an MCP server at `url` (Streamable HTTP, or the legacy HTTP+SSE transport).

        Takes the runtime's connection options (HttpOptions: `headers`, which go on every
        request, e.g. `{"Authorization": "Bearer ..."}`, `transport`, `timeout`, ...) and this
        client's own (`drift`, `validate_output`), as for connect_stdio.
        """
        from .connect import connect_http

        given, own = split_options(overrides, HttpOptions, ClientOptions, caller="connect_http")
        opts = HttpOptions.build(options, given, caller="connect_http")
        client_opts = ClientOptions(**own)
        async with connect_http(url, options=opts) as session:
            yield await cls._pinned(session, client_opts)

    @classmethod
    @contextlib.asynccontextmanager
    async def connect_memory(
        cls: type[_A],
        server: MemoryServable,
        *,
        options: ConnectOptions | None = None,
        **overrides: Unpack[ClientMemoryKwargs],
    ) -> AsyncGenerator[_A, None]:
        """Connect to a server object in this process: a generated server's
        `build_server(Handlers())`, a `runtime.server.Server`, or a mock. No subprocess, no
        socket, either era (`protocol="legacy"` or a version); the fastest way to test handlers
        and the code that calls them. Takes the connection options and this client's own, as
        connect_stdio does.
        """
        from .connect import connect_memory

        given, own = split_options(overrides, ConnectOptions, ClientOptions, caller="connect_memory")
        opts = ConnectOptions.build(options, given, caller="connect_memory")
        client_opts = ClientOptions(**own)
        async with connect_memory(server, options=opts) as session:
            yield await cls._pinned(session, client_opts)

    @classmethod
    def connect(
        cls: type[_A], *, options: ConnectOptions | None = None, **overrides: Unpack[ClientConnectKwargs]
    ) -> contextlib.AbstractAsyncContextManager[_A]:
        """Connect the way this client was generated: the same stdio command, the same URL, or
        the same entry of the same servers config (read now: its command, args, env and cwd, or
        its url and headers).

        Takes what connect_stdio or connect_http (whichever that is) takes; options given here
        win over the config entry's env and cwd.
        """
        catalog = cls._catalog
        if catalog.source_config and catalog.package_file:
            relative, name = catalog.source_config
            entry = read_servers_config(config_path(None, catalog.package_file, relative), [name])[name]
            if entry.url is not None:
                _refuse(overrides, StdioOptions, HttpOptions, f"{cls.__name__}.connect() connects over HTTP")
                over_http = cast("ClientHttpKwargs", {"headers": entry.headers, **overrides})
                return cls.connect_http(entry.url, options=options, **over_http)
            _refuse(overrides, HttpOptions, StdioOptions, f"{cls.__name__}.connect() starts a stdio server")
            given = cast("ClientStdioKwargs", {"env": entry.env, "cwd": entry.cwd, **overrides})
            return cls.connect_stdio(entry.command, entry.args, options=options, **given)
        if catalog.source_command:
            _refuse(overrides, HttpOptions, StdioOptions, f"{cls.__name__}.connect() starts a stdio server")
            command, *args = catalog.source_command
            return cls.connect_stdio(command, args, options=options, **cast("ClientStdioKwargs", overrides))
        if catalog.source_url:
            _refuse(overrides, StdioOptions, HttpOptions, f"{cls.__name__}.connect() connects over HTTP")
            return cls.connect_http(catalog.source_url, options=options, **cast("ClientHttpKwargs", overrides))
        raise RuntimeError(
            "this client was generated from a file, not a live server: "
            f"use {cls.__name__}.connect_stdio(command, args) or {cls.__name__}.connect_http(url)"
        )

    def with_options(self: _A, **overrides: Unpack[CallKwargs]) -> _A:
        """A view of this client whose calls use these per-call options (the others unchanged)."""
        view = copy.copy(self)
        view._per_call = CallOptions.build(self._per_call, overrides, caller="with_options")
        return view

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Untyped escape hatch: the raw CallToolResult (no validation, no ToolError; under
        drift="strict" a tool changed mid-session is refused here too)."""
        pins = self._pins
        if pins is not None and pins.guarding:
            await pins.admit(name)
        per_call = self._per_call
        return await self._session.call_tool(name, arguments, timeout=per_call.timeout, progress=per_call.progress)

    def _llm_catalog(self) -> ToolCatalog:
        return self._catalog

    def _llm_discovery(self) -> Discovery:
        return self._discovery

    async def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's tool call through the typed, validated path.

        Unknown tools, bad JSON, bad arguments and tool errors come back as a
        `ToolResult` with `is_error=True` whose text explains the problem (no exception).
        The discovery meta-tools (`tool_definitions(..., discovery=True)`) are answered here.
        """
        wire = self._catalog.resolve(name)
        if wire is None and (answer := meta_call(self._discovery, self._catalog, name, arguments)) is not None:
            return answer
        if wire is None:
            return ToolResult.error(f"Unknown tool {name!r}. Available tools: {', '.join(sorted(self._catalog.table))}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return ToolResult.error(f"Arguments for tool {wire!r} are not valid JSON: {exc}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return ToolResult.error(f"Arguments for tool {wire!r} must be a JSON object")
        import pydantic

        try:
            return await self._send(self._binding(wire), wire, dict(arguments), False)
        except pydantic.ValidationError as exc:
            lines = wire_lines(problems_of(exc))
            return ToolResult.error("\n".join([f"Invalid arguments for tool {wire!r}:", *lines]))
        except ToolError as exc:
            return exc.result

    def _binding(self, wire: str) -> _ToolBinding:
        bindings = self._tool_bindings
        binding = bindings.get(wire)
        if binding is None:
            binding = bindings[wire] = _ToolBinding.of(self._load_models(), self._catalog.table[wire])
        return binding

    def _call(self, wire: str, arguments: dict[str, Any]) -> Coroutine[Any, Any, Any]:
        """What a typed method awaits: its arguments keyed by wire name, `{"a": a, "b": b}`.

        A typed method names every argument it has, set or not; an optional one the caller left
        out is UNSET, and this is the one place UNSET values drop out (left out of the request,
        never sent as null). Bad arguments raise InvalidArguments in the caller's Python names.
        Not a coroutine itself: it hands back `_send`'s, one coroutine frame less per call.
        """
        sent = {k: v for k, v in arguments.items() if not isinstance(v, Unset)}
        return self._send(self._binding(wire), wire, sent, True)

    async def _call_text(self, wire: str, arguments: dict[str, Any]) -> ToolResult:
        """`_call` for a tool without outputSchema: the result is always a ToolResult."""
        return cast(ToolResult, await self._call(wire, arguments))

    async def _send(self, binding: _ToolBinding, wire: str, sent: dict[str, Any], python_names: bool) -> Any:
        """Validate, send, parse, once the arguments the caller set are known (by wire name).
        Bad arguments raise InvalidArguments naming them as the caller's keywords
        (`python_names`), else pydantic's ValidationError (dispatch words it by wire name)."""
        pins = self._pins
        if pins is not None and pins.guarding:  # a tools/list_changed came: re-checked first (repin.py)
            await pins.admit(wire)
        arguments = binding.plain_arguments(sent)
        if arguments is None:
            arguments = binding.built_arguments(wire, sent, python_names)
        per_call = self._per_call
        # The session's call_tool directly (what call_tool does): one coroutine frame less per call.
        raw = await self._session.call_tool(wire, arguments, timeout=per_call.timeout, progress=per_call.progress)
        return self._typed_result(binding, wire, raw)

    async def mcpgen_start(self, wire: str, arguments: dict[str, Any]) -> TypedTask[Any]:
        """What a typed `start_<tool>` awaits: the call run as a task (Tasks extension), its
        result parsed as `_call` parses the plain call's. Public (a multi-server client starts
        a server client's tool through it, many.py) and `mcpgen_`-prefixed: no tool method can
        take the name (plan/naming.py CLIENT_MEMBERS)."""
        binding = self._binding(wire)
        sent = {k: v for k, v in arguments.items() if not isinstance(v, Unset)}
        built = binding.plain_arguments(sent)
        if built is None:
            built = binding.built_arguments(wire, sent, True)
        per_call = self._per_call
        task = await self._session.start_tool(wire, built, timeout=per_call.timeout, progress=per_call.progress)
        return TypedTask(task, functools.partial(self._typed_result, binding, wire))

    def _typed_result(self, binding: _ToolBinding, wire: str, raw: dict[str, Any]) -> Any:
        """A tool's raw result as the typed method returns it (ToolError on `isError`)."""
        per_call = self._per_call
        if raw.get("isError"):
            raise ToolError(wire, ToolResult.from_raw(raw))
        model = binding.result_model
        if model is None:
            return ToolResult.from_raw(raw)
        data = structured_of(raw)
        if binding.wrapped and is_object(data) and "result" in data:
            data = data["result"]
        mode = per_call.validate_output
        # "off" skips the JSON Schema check; pydantic still builds the typed value.
        checked = mode == "off" or binding.result_accepts(data)
        if checked and type(data) in binding.root_as_is:
            return data  # what the model would hand back: the very same str, int, float or bool
        try:
            parsed = validate_model(model, data, _CHECKED if checked else _CHECK)
        except ValueError as exc:  # pydantic.ValidationError
            message = f"output does not match outputSchema: {exc}"
            if mode == "strict":
                raise ToolOutputError(wire, message, ToolResult.from_raw(raw)) from exc
            if mode == "warn":
                warnings.warn(ToolOutputWarning(wire, message), stacklevel=4)
            return data  # unchecked, exactly as the server sent it
        return parsed.root if binding.is_root else parsed


# Context for a model's own exact check: run it (CHECK) or skip it, the caller ran it (CHECKED).
_CHECK = {EXACT_CONTEXT_KEY: True}
_CHECKED = {EXACT_CONTEXT_KEY: False}


@dataclass(frozen=True)
class _ToolBinding:
    """One tool's typed call path, worked out on its first call: its models and the exact checks
    they run (read from the models module)."""

    args_model: Any
    args_exact: ExactModel | None  # None: arguments always go through the Args model
    result_model: Any
    result_exact: ExactModel | None
    wrapped: bool  # the result comes as {"result": X}
    is_root: bool  # the result model is a RootModel: the caller gets its root
    # The root's types when it is a bare str, int, float, bool or int | float (a "number"): a value
    # of exactly one of them is what the model would give back (unchanged), so the model is not
    # built for it. Else empty.
    root_as_is: frozenset[type]

    @classmethod
    def of(cls, models: ModuleType, row: ToolRow) -> _ToolBinding:
        args_name, result_name, mode = row
        wrapped, is_root = mode.wrapped, mode.is_root
        schemas = getattr(models, "_EXACT_SCHEMAS", None) or NO_SCHEMAS
        args_model = getattr(models, args_name)
        result_model = getattr(models, result_name) if result_name is not None else None
        return cls(
            args_model,
            exact_model(args_model, schemas),
            result_model,
            exact_model(result_model, schemas) if result_model is not None else None,
            wrapped,
            is_root,
            _scalar_root(result_model) if is_root else frozenset(),
        )

    def plain_arguments(self, given: dict[str, Any]) -> dict[str, Any] | None:
        """`given` as sent, when it is plain JSON its schema accepts: then the Args model would
        send the same (its annotations accept every instance the schema does), so it is not built.
        None sends `given` through the model instead (to build, to dump, or to word what is wrong)."""
        exact = self.args_exact
        if exact is None or exact.renames_below or not is_plain_json(given):
            return None
        try:
            checked: dict[str, Any] = exact.check_plain(given)
        except SchemaMismatch:
            return None
        return checked

    def built_arguments(self, wire: str, given: dict[str, Any], python_names: bool) -> dict[str, Any]:
        """Validate by wire name through the Args model, then send only what the caller set."""
        import pydantic

        try:
            checked = self.args_model.model_validate(given)
        except pydantic.ValidationError as exc:
            if not python_names:
                raise
            raise InvalidArguments(wire, python_lines(self.args_model, problems_of(exc))) from None
        arguments: dict[str, Any] = checked.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return arguments

    def result_accepts(self, data: Any) -> bool:
        """Does the outputSchema accept `data` (decoded JSON)? False also when only the model's
        own check can tell (it then runs inside model_validate and words the problem)."""
        exact = self.result_exact
        if exact is None:
            return False
        try:
            exact.check_plain(data)
        except SchemaMismatch:
            return False
        return True


def _scalar_root(model: Any) -> frozenset[type]:
    """The types of a RootModel's root when it is, unconstrained, str, int, float, bool or
    int | float (what a result's "number" is typed); else empty."""
    info = getattr(model, "model_fields", {}).get("root")
    if info is None or info.metadata:
        return frozenset()
    if info.annotation in (str, int, float, bool):
        return frozenset({info.annotation})
    if set(typing.get_args(info.annotation)) == {int, float} and typing.get_origin(info.annotation) in (
        typing.Union,
        types.UnionType,
    ):
        return frozenset({int, float})
    return frozenset()


# Client class -> its tools' bindings (weak: a class made at run time may go away).
_bindings: weakref.WeakKeyDictionary[type, dict[str, _ToolBinding]] = weakref.WeakKeyDictionary()


def _bindings_of(cls: type) -> dict[str, _ToolBinding]:
    found = _bindings.get(cls)
    if found is None:
        found = _bindings[cls] = {}
    return found


class LoopThread:
    """An event loop in a daemon thread: the sync Client runs every coroutine here."""

    def __init__(self) -> None:
        import asyncio  # (with the first connection: importing a client does not load it)

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="mcp-client-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


@contextlib.contextmanager
def hold_loop(cm: contextlib.AbstractAsyncContextManager[_A]) -> Generator[tuple[_A, LoopThread], None, None]:
    """Enter and exit the async context in ONE task on the loop thread (cancel scopes need that)."""
    import asyncio
    from concurrent.futures import Future

    runner = LoopThread()
    ready: Future[_A] = Future()
    closing: list[asyncio.Event] = []

    async def hold() -> None:
        closing.append(asyncio.Event())
        try:
            async with cm as client:
                ready.set_result(client)
                await closing[0].wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    try:
        task = asyncio.run_coroutine_threadsafe(hold(), runner.loop)
        client = ready.result()
        try:
            yield client, runner
        finally:
            runner.loop.call_soon_threadsafe(closing[0].set)
            with contextlib.suppress(Exception):
                task.result()
    finally:
        runner.stop()


class SyncClientBase(SyncFeatures, LlmToolsMixin, Generic[_A]):
    """What a generated Client inherits: the async client's machinery, run on a loop thread.

    A subclass sets `_async_client` (its AsyncClient class) and wraps each typed method.
    """

    _async_client: ClassVar[type[AsyncClientBase]]

    def __init__(self, inner: _A, runner: LoopThread) -> None:
        self._inner = inner
        self._runner = runner

    # What the sync mixins (features.py, skills_client.py) and the sync_method/sync_task_method
    # wrappers reach through: public for pyright's reportPrivateUsage, `mcpgen_`-prefixed and in
    # plan/naming.py's CLIENT_MEMBERS so no tool method can shadow them.
    @property
    def mcpgen_inner(self) -> _A:
        """The async client this sync client runs (runtime plumbing, not for user code)."""
        return self._inner

    @property
    def mcpgen_runner(self) -> LoopThread:
        """The loop thread the async client runs on (runtime plumbing, not for user code)."""
        return self._runner

    @property
    def session(self) -> ClientSession:
        """The underlying runtime session (its methods are coroutines on the loop thread)."""
        return self._inner.session

    @property
    def tool_drift(self) -> Drift | None:
        """What the latest mid-session tools/list_changed re-check found (see AsyncClient.tool_drift)."""
        return self._inner.tool_drift

    @classmethod
    @contextlib.contextmanager
    def connect_stdio(
        cls: type[_S],
        command: str,
        args: Sequence[str] = (),
        *,
        options: StdioOptions | ConnectOptions | None = None,
        **overrides: Unpack[ClientStdioKwargs],
    ) -> Generator[_S, None, None]:
        """Start `command args` as a stdio MCP server and connect to it (see AsyncClient.connect_stdio;
        callbacks run on the loop thread)."""
        with hold_loop(cls._async_client.connect_stdio(command, args, options=options, **overrides)) as (inner, runner):
            yield cls(inner, runner)

    @classmethod
    @contextlib.contextmanager
    def connect_http(
        cls: type[_S],
        url: str,
        *,
        options: HttpOptions | ConnectOptions | None = None,
        **overrides: Unpack[ClientHttpKwargs],
    ) -> Generator[_S, None, None]:
        """Connect to an MCP server at `url` (see AsyncClient.connect_http; callbacks run on the loop thread)."""
        with hold_loop(cls._async_client.connect_http(url, options=options, **overrides)) as (inner, runner):
            yield cls(inner, runner)

    @classmethod
    @contextlib.contextmanager
    def connect_memory(
        cls: type[_S],
        server: MemoryServable,
        *,
        options: ConnectOptions | None = None,
        **overrides: Unpack[ClientMemoryKwargs],
    ) -> Generator[_S, None, None]:
        """Connect to a server object in this process (see AsyncClient.connect_memory); the server's
        handlers and the client's callbacks run on the client's loop thread."""
        with hold_loop(cls._async_client.connect_memory(server, options=options, **overrides)) as (inner, runner):
            yield cls(inner, runner)

    @classmethod
    @contextlib.contextmanager
    def connect(
        cls: type[_S], *, options: ConnectOptions | None = None, **overrides: Unpack[ClientConnectKwargs]
    ) -> Generator[_S, None, None]:
        """Connect the way this client was generated: the same stdio command, or the same URL."""
        with hold_loop(cls._async_client.connect(options=options, **overrides)) as (inner, runner):
            yield cls(inner, runner)

    def with_options(self: _S, **overrides: Unpack[CallKwargs]) -> _S:
        """A view of this client whose calls use these per-call options (the others unchanged)."""
        return type(self)(self._inner.with_options(**overrides), self._runner)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Untyped escape hatch: the raw CallToolResult (no validation, no ToolError)."""
        return self._runner.run(self._inner.call_tool(name, arguments))

    def _llm_catalog(self) -> ToolCatalog:
        return self._llm_catalog_of(self._inner)

    def _llm_discovery(self) -> Discovery:
        return self._llm_discovery_of(self._inner)

    def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's tool call through the typed, validated path (see AsyncClient.dispatch)."""
        return self._runner.run(self._inner.dispatch(name, arguments))


def sync_method(
    method: Callable[Concatenate[_A, _P], Coroutine[Any, Any, _T]],
) -> Callable[Concatenate[SyncClientBase[_A], _P], _T]:
    """`Client.get_forecast = sync_method(AsyncClient.get_forecast)`: the same typed signature
    (ParamSpec keeps every keyword-only argument for mypy and IDEs), run on the loop thread."""

    @functools.wraps(method)
    def call(self: SyncClientBase[_A], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return self.mcpgen_runner.run(method(self.mcpgen_inner, *args, **kwargs))

    return call
