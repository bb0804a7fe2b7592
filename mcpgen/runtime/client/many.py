"""One client for every server of an `mcpServers` config: what a generated multi-server package runs on.

The generated package holds one typed client per server (a namespace each) and a table of
prefixed tool names; this module connects them all and routes an LLM's calls. The config is
read here, at connect time, and never at generation time into code: its `env` values and
headers (tokens) never appear in a generated file.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Generator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ..core.results import ToolResult
from .llm_tools import LlmFormat, definition_name, renamed
from .servers_config import read_servers_config
from .typed import AsyncClientBase, LoopThread, SyncClientBase, _hold
from .typed_tasks import SyncTypedTask, TypedTask

if TYPE_CHECKING:
    from .options import ClientHttpKwargs, ClientStdioKwargs


class AsyncManyClientBase:
    """What a generated multi-server AsyncClient inherits: routing by prefixed tool name.

    A subclass sets `_servers` (namespace -> server name in the config), `_tool_names`
    (prefixed name -> (namespace, wire name)) and builds itself from `_clients`.
    """

    _servers: ClassVar[Mapping[str, str]]
    _tool_names: ClassVar[Mapping[str, tuple[str, str]]]

    def __init__(self, clients: Mapping[str, AsyncClientBase]) -> None:
        self._clients = dict(clients)

    @classmethod
    @contextlib.asynccontextmanager
    async def _connect_all(
        cls,
        config: Path,
        classes: Mapping[str, type[AsyncClientBase]],
        options: Mapping[str, Any],
    ) -> AsyncGenerator[dict[str, AsyncClientBase], None]:
        """Start every server (in namespace order); all of them are closed however this ends."""
        entries = read_servers_config(config, [cls._servers[ns] for ns in classes])
        async with contextlib.AsyncExitStack() as stack:
            clients: dict[str, AsyncClientBase] = {}
            for ns, client_cls in classes.items():
                e = entries[cls._servers[ns]]
                if e.url is not None:
                    over_http = cast("ClientHttpKwargs", {**options, "headers": e.headers})
                    clients[ns] = await stack.enter_async_context(client_cls.connect_http(e.url, **over_http))
                    continue
                given = cast("ClientStdioKwargs", {**options, "env": e.env, "cwd": e.cwd})
                clients[ns] = await stack.enter_async_context(client_cls.connect_stdio(e.command, e.args, **given))
            yield clients

    def tool_definitions(self, format: LlmFormat = "anthropic") -> list[dict[str, Any]]:
        """Every server's tools as function-calling definitions for `format`'s API, named
        `server__tool` (a name every API accepts); a tool that API refuses is left out."""
        by_ns: dict[str, dict[str, Any]] = {}
        for ns, c in self._clients.items():
            catalog = c._catalog
            made = catalog.llm_definitions(format).tools
            names = catalog.llm_names()
            by_ns[ns] = {names.to_wire[definition_name(d, format)]: d for d in made}
        return [
            renamed(by_ns[ns][wire], format, prefixed)
            for prefixed, (ns, wire) in self._tool_names.items()
            if wire in by_ns[ns]
        ]

    async def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's call of a prefixed tool on its server (see AsyncClient.dispatch of each)."""
        target = self._tool_names.get(name)
        if target is None:
            return ToolResult.error(f"Unknown tool {name!r}. Available tools: {', '.join(sorted(self._tool_names))}")
        ns, wire = target
        return await self._clients[ns].dispatch(wire, arguments)

    async def start(self, name: str, arguments: Mapping[str, Any] | None = None) -> TypedTask[Any]:
        """Run a prefixed tool (`server__tool`) as a task on its server (Tasks extension), its
        arguments by wire name, validated as its `start_<tool>` validates them (InvalidArguments);
        the typed form is `c.<server>.start_<tool>(...)`. KeyError for a name no server has."""
        target = self._tool_names.get(name)
        if target is None:
            raise KeyError(f"unknown tool {name!r}")
        ns, wire = target
        return await self._clients[ns]._start(wire, dict(arguments or {}))


class SyncManyClientBase:
    """The synchronous twin: every server's sync client shares one loop thread."""

    _async_client: ClassVar[type[AsyncManyClientBase]]
    _sync_classes: ClassVar[Mapping[str, type[SyncClientBase[Any]]]]

    def __init__(
        self, inner: AsyncManyClientBase, clients: Mapping[str, SyncClientBase[Any]], runner: LoopThread
    ) -> None:
        self._inner = inner
        self._clients = dict(clients)
        self._runner = runner

    @classmethod
    @contextlib.contextmanager
    def _connect_sync(cls, connecting: contextlib.AbstractAsyncContextManager[Any]) -> Generator[Any, None, None]:
        with _hold(connecting) as (inner, runner):
            clients = {ns: sync_cls(inner._clients[ns], runner) for ns, sync_cls in cls._sync_classes.items()}
            yield cls(inner, clients, runner)

    def tool_definitions(self, format: LlmFormat = "anthropic") -> list[dict[str, Any]]:
        """Every server's tools as function-calling definitions, named `server__tool`."""
        return self._inner.tool_definitions(format)

    def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's call of a prefixed tool on its server."""
        return self._runner.run(self._inner.dispatch(name, arguments))

    def start(self, name: str, arguments: Mapping[str, Any] | None = None) -> SyncTypedTask[Any]:
        """Run a prefixed tool as a task on its server (see AsyncManyClientBase.start)."""
        return SyncTypedTask(self._runner.run(self._inner.start(name, arguments)), self._runner)
