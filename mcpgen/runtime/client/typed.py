"""The machinery every generated client shares: connecting, per-call options, dispatch, the sync twin.

A generated `AsyncClient` subclasses `AsyncClientBase` and adds one typed method per tool that
calls `_invoke`; its `Client` subclasses `SyncClientBase` and runs those methods on a loop
thread. Keeping this here, not in each generated package, keeps generated code to what differs
from server to server (and black's work with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
import threading
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Generic, Literal, ParamSpec, TypeVar, cast

from .drift import SchemaDriftError, SchemaDriftWarning, compare_tools
from ..core.results import ToolError, ToolOutputError, ToolOutputWarning, ToolResult, Unset, structured_of
from .features import AsyncFeatures, SyncFeatures

if TYPE_CHECKING:
    from .session import ClientSession

_T = TypeVar("_T")
_P = ParamSpec("_P")
_A = TypeVar("_A", bound="AsyncClientBase")
_S = TypeVar("_S", bound="SyncClientBase[Any]")

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
LogCallback = Callable[[dict[str, Any]], Awaitable[None] | None]
RequestCallback = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
RootsCallback = Callable[[], Awaitable[list[dict[str, Any]]]]

# How results are checked against outputSchema: "strict" raises ToolOutputError, "warn" warns
# (ToolOutputWarning) and returns the unchecked result, "off" skips the JSON Schema check.
ValidateOutput = Literal["strict", "warn", "off"]
_VALIDATE_OUTPUT = ("strict", "warn", "off")
_DRIFT_MODES = ("warn", "strict", "off")


def _output_mode(value: str) -> ValidateOutput:
    if value not in _VALIDATE_OUTPUT:
        raise ValueError(f"validate_output must be one of {_VALIDATE_OUTPUT}, not {value!r}")
    return cast(ValidateOutput, value)


@dataclass
class ToolCatalog:
    """The tool catalog a client was generated from (the tools kept verbatim as JSON text)."""

    tools_json: str
    # wire name -> (Args model, Result model or None, unwrap {"result": X}, result is a RootModel)
    table: dict[str, tuple[str, str | None, bool, bool]]
    # wire name -> hash of its inputSchema + outputSchema; compared with the live server on connect
    schema_hashes: dict[str, str]
    # Python method name -> wire name (LLMs sometimes call a tool by its method name)
    method_names: dict[str, str]
    source_command: tuple[str, ...] | None = None  # `connect()` starts this again
    source_url: str | None = None  # or connects here (never the headers: tokens stay out of code)
    server_info: dict[str, Any] = field(default_factory=dict)
    _parsed: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def tools(self) -> list[dict[str, Any]]:
        """The original tool objects, exactly as the server listed them (a fresh copy)."""
        return copy.deepcopy(self.shared_tools())

    def shared_tools(self) -> list[dict[str, Any]]:
        """The same, parsed once and shared: for readers that never change them."""
        if not self._parsed:
            self._parsed.extend(json.loads(self.tools_json))
        return self._parsed

    def tool_definitions(self) -> list[dict[str, Any]]:
        """Function-calling definitions: name, description and input schema of every tool."""
        return [
            {
                "name": t["name"],
                "description": t.get("description") or t.get("title") or "",
                "input_schema": t.get("inputSchema", {"type": "object"}),
            }
            for t in self.tools()
        ]

    def resolve(self, name: str) -> str | None:
        """The wire name for a wire name or a generated method name; None if unknown."""
        if name in self.table:
            return name
        return self.method_names.get(name)


async def _check_drift(catalog: ToolCatalog, session: ClientSession, mode: str) -> None:
    """One tools/list: are the live schemas the ones this client was generated from?"""
    if mode == "off":
        return
    drift = compare_tools(catalog.schema_hashes, await session.list_tools())
    if not drift:
        return
    if mode == "strict":
        raise SchemaDriftError(drift)
    warnings.warn(SchemaDriftWarning(drift.describe()), stacklevel=2)


def _drift_mode(value: str) -> str:
    if value not in _DRIFT_MODES:
        raise ValueError(f"drift must be one of {_DRIFT_MODES}, not {value!r}")
    return value


class AsyncClientBase(AsyncFeatures):
    """What a generated AsyncClient inherits: everything but its typed tool methods.

    A subclass sets `_catalog` and `_load_models` (the package's pydantic models, loaded on
    first use so that importing the client stays cheap).
    """

    _catalog: ClassVar[ToolCatalog]

    @staticmethod
    def _load_models() -> ModuleType:
        raise NotImplementedError

    def __init__(
        self,
        session: ClientSession,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
        validate_output: ValidateOutput = "strict",
    ) -> None:
        self._session = session
        self._timeout = timeout
        self._progress = progress
        self._validate_output = _output_mode(validate_output)
        # Over HTTP the catalog's x-mcp-header annotations become Mcp-Param-* headers (2026-07-28).
        session.know_tools(self._catalog.shared_tools())

    @property
    def session(self) -> ClientSession:
        """The underlying runtime session (prompts, resources, raw requests)."""
        return self._session

    @classmethod
    @contextlib.asynccontextmanager
    async def connect_stdio(
        cls: type[_A],
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float = 60.0,
        on_log: LogCallback | None = None,
        on_sampling: RequestCallback | None = None,
        on_elicitation: RequestCallback | None = None,
        on_roots: RootsCallback | None = None,
        wire_log: str | None = None,
        drift: str = "warn",
        validate_output: ValidateOutput = "strict",
        **options: Any,
    ) -> AsyncIterator[_A]:
        """Start `command args` as a stdio MCP server and connect to it.

        `timeout` is the default per-call timeout; `validate_output` how results are checked
        against outputSchema ("strict", "warn" or "off"); `options` go to the runtime's
        connect_stdio (e.g. `connect_timeout`, `protocol`, `client_info`). `drift` compares the
        server's tool schemas with the generated ones after connecting: "warn" (a
        SchemaDriftWarning), "strict" (raise SchemaDriftError naming the tools) or "off" (no
        extra tools/list).
        """
        from .session import connect_stdio

        drift_mode, mode = _drift_mode(drift), _output_mode(validate_output)
        async with connect_stdio(
            command, list(args), env=env, cwd=cwd, timeout=timeout, on_log=on_log, on_sampling=on_sampling,
            on_elicitation=on_elicitation, on_roots=on_roots, wire_log=wire_log, **options,
        ) as session:  # fmt: skip
            await _check_drift(cls._catalog, session, drift_mode)
            yield cls(session, validate_output=mode)

    @classmethod
    @contextlib.asynccontextmanager
    async def connect_http(
        cls: type[_A],
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        on_log: LogCallback | None = None,
        on_sampling: RequestCallback | None = None,
        on_elicitation: RequestCallback | None = None,
        on_roots: RootsCallback | None = None,
        wire_log: str | None = None,
        drift: str = "warn",
        validate_output: ValidateOutput = "strict",
        **options: Any,
    ) -> AsyncIterator[_A]:
        """Connect to an MCP server at `url` (Streamable HTTP, or the legacy HTTP+SSE transport).

        `headers` go on every request (e.g. `{"Authorization": "Bearer ..."}`); `options` go to
        the runtime's connect_http (e.g. `connect_timeout`, `protocol`, `transport`). `drift`
        and `validate_output` work as for connect_stdio.
        """
        from .session import connect_http

        drift_mode, mode = _drift_mode(drift), _output_mode(validate_output)
        async with connect_http(
            url, headers=headers, timeout=timeout, on_log=on_log, on_sampling=on_sampling,
            on_elicitation=on_elicitation, on_roots=on_roots, wire_log=wire_log, **options,
        ) as session:  # fmt: skip
            await _check_drift(cls._catalog, session, drift_mode)
            yield cls(session, validate_output=mode)

    @classmethod
    def connect(cls: type[_A], **options: Any) -> contextlib.AbstractAsyncContextManager[_A]:
        """Connect the way this client was generated: the same stdio command, or the same URL."""
        catalog = cls._catalog
        if catalog.source_command:
            return cls.connect_stdio(catalog.source_command[0], catalog.source_command[1:], **options)
        if catalog.source_url:
            return cls.connect_http(catalog.source_url, **options)
        raise RuntimeError(
            "this client was generated from a file, not a live server: "
            f"use {cls.__name__}.connect_stdio(command, args) or {cls.__name__}.connect_http(url)"
        )

    def with_options(
        self: _A,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
        validate_output: ValidateOutput | None = None,
    ) -> _A:
        """A view of this client whose calls use these per-call options."""
        view = copy.copy(self)
        if timeout is not None:
            view._timeout = timeout
        if progress is not None:
            view._progress = progress
        if validate_output is not None:
            view._validate_output = _output_mode(validate_output)
        return view

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Untyped escape hatch: the raw CallToolResult (no validation, no ToolError)."""
        return await self._session.call_tool(name, arguments, timeout=self._timeout, progress=self._progress)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The catalog as function-calling definitions (name, description, input_schema)."""
        return self._catalog.tool_definitions()

    async def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's tool call through the typed, validated path.

        Unknown tools, bad JSON, bad arguments and tool errors come back as a
        `ToolResult` with `is_error=True` whose text explains the problem (no exception).
        """
        wire = self._catalog.resolve(name)
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
            return await self._invoke(wire, dict(arguments))
        except pydantic.ValidationError as exc:
            return ToolResult.error(f"Invalid arguments for tool {wire!r}: {exc}")
        except ToolError as exc:
            return exc.result

    async def _call(self, wire: str, local_vars: Mapping[str, Any]) -> Any:
        """What a typed method runs: its `locals()` (Python argument names) sent by wire name.

        The method's arguments are its Args model's fields (the one naming pass gives both),
        so each field's alias is the argument's wire name; `self` and UNSET values drop out.
        """
        fields = getattr(self._load_models(), self._catalog.table[wire][0]).model_fields
        given = {(fields[k].alias or k): v for k, v in local_vars.items() if k in fields}
        return await self._invoke(wire, given)

    async def _call_text(self, wire: str, local_vars: Mapping[str, Any]) -> ToolResult:
        """`_call` for a tool without outputSchema: the result is always a ToolResult."""
        return cast(ToolResult, await self._call(wire, local_vars))

    async def _invoke(self, wire: str, given: Mapping[str, Any]) -> Any:
        models = self._load_models()
        args_model, result_model, wrapped, is_root = self._catalog.table[wire]
        # Validate by wire name, then send only what the caller set, by wire name.
        checked = getattr(models, args_model).model_validate(
            {k: v for k, v in given.items() if not isinstance(v, Unset)}
        )
        arguments = checked.model_dump(mode="json", by_alias=True, exclude_unset=True)
        raw = await self.call_tool(wire, arguments)
        result = ToolResult.from_raw(raw)
        if result.is_error:
            raise ToolError(wire, result)
        if result_model is None:
            return result
        data = structured_of(raw)
        if wrapped and isinstance(data, dict) and "result" in data:
            data = data["result"]
        model = getattr(models, result_model)
        mode = self._validate_output
        try:
            # "off" skips the JSON Schema check; pydantic still builds the typed value.
            parsed = model.model_validate(data, context={"mcpgen_exact": mode != "off"})
        except ValueError as exc:  # pydantic.ValidationError
            message = f"output does not match outputSchema: {exc}"
            if mode == "strict":
                raise ToolOutputError(wire, message, result) from exc
            if mode == "warn":
                warnings.warn(ToolOutputWarning(wire, message), stacklevel=3)
            return data  # unchecked, exactly as the server sent it
        return parsed.root if is_root else parsed


class LoopThread:
    """An event loop in a daemon thread: the sync Client runs every coroutine here."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="mcp-client-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


@contextlib.contextmanager
def _hold(cm: contextlib.AbstractAsyncContextManager[_A]) -> Iterator[tuple[_A, LoopThread]]:
    """Enter and exit the async context in ONE task on the loop thread (cancel scopes need that)."""
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


class SyncClientBase(SyncFeatures, Generic[_A]):
    """What a generated Client inherits: the async client's machinery, run on a loop thread.

    A subclass sets `_async_client` (its AsyncClient class) and wraps each typed method.
    """

    _async_client: ClassVar[type[AsyncClientBase]]

    def __init__(self, inner: _A, runner: LoopThread) -> None:
        self._inner = inner
        self._runner = runner

    @property
    def session(self) -> ClientSession:
        """The underlying runtime session (its methods are coroutines on the loop thread)."""
        return self._inner.session

    @classmethod
    @contextlib.contextmanager
    def connect_stdio(
        cls: type[_S],
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float = 60.0,
        on_log: LogCallback | None = None,
        on_sampling: RequestCallback | None = None,
        on_elicitation: RequestCallback | None = None,
        on_roots: RootsCallback | None = None,
        wire_log: str | None = None,
        drift: str = "warn",
        validate_output: ValidateOutput = "strict",
        **options: Any,
    ) -> Iterator[_S]:
        """Start `command args` as a stdio MCP server and connect to it (callbacks run on the loop thread)."""
        cm = cls._async_client.connect_stdio(
            command, args, env=env, cwd=cwd, timeout=timeout, on_log=on_log, on_sampling=on_sampling,
            on_elicitation=on_elicitation, on_roots=on_roots, wire_log=wire_log, drift=drift,
            validate_output=validate_output, **options,
        )  # fmt: skip
        with _hold(cm) as (inner, runner):
            yield cls(inner, runner)

    @classmethod
    @contextlib.contextmanager
    def connect_http(
        cls: type[_S],
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        on_log: LogCallback | None = None,
        on_sampling: RequestCallback | None = None,
        on_elicitation: RequestCallback | None = None,
        on_roots: RootsCallback | None = None,
        wire_log: str | None = None,
        drift: str = "warn",
        validate_output: ValidateOutput = "strict",
        **options: Any,
    ) -> Iterator[_S]:
        """Connect to an MCP server at `url` (callbacks run on the loop thread)."""
        cm = cls._async_client.connect_http(
            url, headers=headers, timeout=timeout, on_log=on_log, on_sampling=on_sampling,
            on_elicitation=on_elicitation, on_roots=on_roots, wire_log=wire_log, drift=drift,
            validate_output=validate_output, **options,
        )  # fmt: skip
        with _hold(cm) as (inner, runner):
            yield cls(inner, runner)

    @classmethod
    @contextlib.contextmanager
    def connect(cls: type[_S], **options: Any) -> Iterator[_S]:
        """Connect the way this client was generated: the same stdio command, or the same URL."""
        with _hold(cls._async_client.connect(**options)) as (inner, runner):
            yield cls(inner, runner)

    def with_options(
        self: _S,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
        validate_output: ValidateOutput | None = None,
    ) -> _S:
        """A view of this client whose calls use these per-call options."""
        view = self._inner.with_options(timeout=timeout, progress=progress, validate_output=validate_output)
        return type(self)(view, self._runner)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Untyped escape hatch: the raw CallToolResult (no validation, no ToolError)."""
        return self._runner.run(self._inner.call_tool(name, arguments))

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The catalog as function-calling definitions (name, description, input_schema)."""
        return self._inner.tool_definitions()

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
        return self._runner.run(method(self._inner, *args, **kwargs))

    return call
