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
from .llm_discovery import Discovery, meta_call
from .llm_host import LlmToolsMixin
from .many_catalog import merged_catalog
from .servers_config import read_servers_config
from .typed import AsyncClientBase, LoopThread, SyncClientBase, hold_loop
from .typed_tasks import SyncTypedTask, TypedTask

if TYPE_CHECKING:
    from .catalog import ToolCatalog
    from .options import ClientHttpKwargs, ClientStdioKwargs


class AsyncManyClientBase(LlmToolsMixin):
    """What a generated multi-server AsyncClient inherits: routing by prefixed tool name.

    A subclass sets `_servers` (namespace -> server name in the config), `_tool_names`
    (prefixed name -> (namespace, wire name)) and builds itself from `_clients`.
    `tool_definitions()` (every option, `discovery=True` too) and `refused_tools()` are the
    single-server client's, over every server's tools by prefixed name (many_catalog.py).
    """

    _servers: ClassVar[Mapping[str, str]]
    _tool_names: ClassVar[Mapping[str, tuple[str, str]]]

    def __init__(self, clients: Mapping[str, AsyncClientBase]) -> None:
        self._clients = dict(clients)
        self._llm_tools = merged_catalog(
            {ns: self._llm_catalog_of(c) for ns, c in self._clients.items()}, self._tool_names
        )
        self._discovery = Discovery()  # what the model loaded through the meta-tools

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

    def _llm_catalog(self) -> ToolCatalog:
        return self._llm_tools

    def _llm_discovery(self) -> Discovery:
        return self._discovery

    async def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's call of a prefixed tool (by any name `tool_definitions` gave it) on its
        server (see AsyncClient.dispatch of each); the discovery meta-tools are answered here."""
        prefixed = self._llm_tools.resolve(name)
        if prefixed is None and (answer := meta_call(self._discovery, self._llm_tools, name, arguments)) is not None:
            return answer
        target = self._tool_names.get(prefixed) if prefixed is not None else None
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
        return await self._clients[ns].mcpgen_start(wire, dict(arguments or {}))


class SyncManyClientBase(LlmToolsMixin):
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
        with hold_loop(connecting) as (inner, runner):
            clients = {ns: sync_cls(inner._clients[ns], runner) for ns, sync_cls in cls._sync_classes.items()}
            yield cls(inner, clients, runner)

    def _llm_catalog(self) -> ToolCatalog:
        return self._llm_catalog_of(self._inner)

    def _llm_discovery(self) -> Discovery:
        return self._llm_discovery_of(self._inner)

    def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run an LLM's call of a prefixed tool on its server."""
        return self._runner.run(self._inner.dispatch(name, arguments))

    def start(self, name: str, arguments: Mapping[str, Any] | None = None) -> SyncTypedTask[Any]:
        """Run a prefixed tool as a task on its server (see AsyncManyClientBase.start)."""
        return SyncTypedTask(self._runner.run(self._inner.start(name, arguments)), self._runner)
