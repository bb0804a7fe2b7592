"""The MCP server: tools (and prompts, resources, extra methods) registered once, advertised
exactly as given, served in both eras over any transport, and over stdio by `serve_stdio`.

One job a module: `context.py` is what a handler is handed (RequestContext), `connection.py`
one client connection and its two eras (ServerConnection), `tool_serving.py` the guard around a
tool handler. Their public names are re-exported here, where they always were.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..core.errors import ProtocolError
from ..core.headers import param_headers_of
from ..core.jsonrpc import JSONObject
from ..core.protocol import ERA_MODERN, EXTENSION_TASKS, EXTENSION_UI, LIST_KINDS
from ..core.transport import Transport
from ..transports.stdio import StdioServerTransport
from ..transports.wirelog import open_wire_log
from .cache_hints import CacheHint, hints_by_method
from .connection import ConnectionState, ServerConnection
from .context import RequestContext
from .features import CompletionHandler, Features, PromptHandler, ResourceHandler, SubscribeHandler, TemplateHandler
from .subscriptions import SubscriptionHub
from .tasks import TASK_METHODS, TaskManager, task_support
from .tool_serving import error_result

ToolHandler = Callable[[JSONObject, "RequestContext"], Awaitable[JSONObject]]
MethodHandler = Callable[[JSONObject, "RequestContext"], Awaitable[Any]]

# Requests a stdio session handles at once (`--max-in-flight`): at the bound stdin is not read
# until one is answered, and one already read beyond it gets SERVER_BUSY.
MAX_IN_FLIGHT = 1000
# tools/list answers in one page up to this many tools (clients that never follow nextCursor
# still see every tool of a typical server); bigger catalogs are paginated at this size.
TOOLS_PAGE_SIZE = 100


class _Tool:
    """A registered tool. What every call would read again from its definition (whether it may
    run as a task, which arguments 2026-07-28 mirrors in Mcp-Param-* headers) is read once, here:
    the definition is this tool's own copy and never changes once registered."""

    __slots__ = ("definition", "handler", "task_support", "param_headers")

    def __init__(self, definition: JSONObject, handler: ToolHandler) -> None:
        self.definition = definition
        self.handler = handler
        self.task_support = task_support(definition)
        # {argument: header}; None when an x-mcp-header is invalid (core/headers.py's rule).
        self.param_headers = param_headers_of(definition)


class Server:
    """Tools (and any extra methods) served in both eras over any transport."""

    def __init__(
        self,
        name: str,
        version: str,
        *,
        title: str | None = None,
        instructions: str | None = None,
        capabilities: JSONObject | None = None,
        tools_page_size: int = TOOLS_PAGE_SIZE,
        server_info: Mapping[str, Any] | None = None,
        cache_hints: Mapping[str, CacheHint] | None = None,
    ) -> None:
        """`server_info`: what else `initialize` says about the server in serverInfo (title,
        websiteUrl, icons, description); `name`, `version` and `title` win over its keys.
        `cache_hints`: the ttlMs/cacheScope of each cacheable method's results (cache_hints.py)."""
        if tools_page_size < 1:
            raise ValueError("tools_page_size must be at least 1")
        self.info: JSONObject = {**(server_info or {}), "name": name, "version": version}
        self.tools_page_size = tools_page_size
        self.cache_hints = hints_by_method(cache_hints)
        if title is not None:
            self.info["title"] = title
        self.instructions = instructions
        self.extra_capabilities = dict(capabilities or {})
        self._tools: dict[str, _Tool] = {}
        # OAuth scopes each tool needs beyond the server-wide ones (enforced by the HTTP auth layer).
        self.tool_scopes: dict[str, frozenset[str]] = {}
        self._methods: dict[str, MethodHandler] = {}
        self.features = Features()
        self.subscriptions = SubscriptionHub()
        # Tools whose definition allows running as a task (Tasks extension, tasks.py); those of
        # `task_input_first` gather input before they continue as a task (continue_as_task).
        self.tasks = TaskManager(publish=self.subscriptions.publish)
        self.task_input_first: set[str] = set()

    # -- registration --------------------------------------------------------------

    def add_tool(self, definition: Mapping[str, Any], handler: ToolHandler) -> None:
        name = definition.get("name")
        if not isinstance(name, str):
            raise ValueError("a tool definition needs a string name")
        if name in self._tools:
            raise ValueError(f"tool {name!r} is registered twice")
        tool = self._tools[name] = _Tool(dict(definition), handler)
        if tool.task_support is not None:
            for method, serve in zip(TASK_METHODS, (self.tasks.get, self.tasks.update, self.tasks.cancel), strict=True):
                self._methods.setdefault(method, serve)

    def add_tool_made_on_first_call(self, definition: Mapping[str, Any], make: Callable[[], ToolHandler]) -> None:
        """A tool whose handler `make()` returns when the tool is first called, then serves every
        call: what the handler needs (a generated server's models) loads then, not at start."""
        name = str(definition.get("name"))  # (add_tool refuses a definition without a string name)

        async def first_call(arguments: JSONObject, context: RequestContext) -> JSONObject:
            handler = make()  # (two first calls at once make it twice: the same handler)
            self._tools[name].handler = handler
            return await handler(arguments, context)

        self.add_tool(definition, first_call)

    def registered_tool(self, name: str) -> _Tool | None:
        """The tool registered as `name` (what tools/call runs), None for an unknown one."""
        return self._tools.get(name)

    def registered_tools(self) -> list[_Tool]:
        """Every registered tool, in registration order (what tools/list pages through)."""
        return list(self._tools.values())

    def method_handler(self, method: str) -> MethodHandler | None:
        """What add_method (or a tool's task methods) registered for `method`, else None."""
        return self._methods.get(method)

    def tool_definition(self, name: str) -> JSONObject | None:
        """The advertised definition of a tool (the HTTP transport checks Mcp-Param-* by it)."""
        tool = self._tools.get(name)
        return tool.definition if tool is not None else None

    def tool_param_headers(self, name: str) -> dict[str, str] | None:
        """{argument: header} of a tool's `x-mcp-header` arguments (read once, at registration);
        None for an unknown tool or an invalid annotation (then nothing is checked, as before)."""
        tool = self._tools.get(name)
        return tool.param_headers if tool is not None else None

    def add_prompt(self, definition: Mapping[str, Any], handler: PromptHandler) -> None:
        """A prompt advertised as given; the handler gets its string arguments."""
        self.features.add_prompt(dict(definition), handler)

    def add_resource(self, definition: Mapping[str, Any], handler: ResourceHandler) -> None:
        """A resource at a fixed URI; the handler returns a ReadResourceResult."""
        self.features.add_resource(dict(definition), handler)

    def add_resource_template(self, definition: Mapping[str, Any], handler: TemplateHandler) -> None:
        """Resources matching an RFC 6570 level-1 `uriTemplate`; the handler gets the variables."""
        self.features.add_template(dict(definition), handler)

    def set_completion(self, handler: CompletionHandler) -> None:
        self.features.completion = handler

    def set_subscribe(self, handler: SubscribeHandler) -> None:
        """Called with (uri, subscribed?, ctx) for resources/subscribe and unsubscribe."""
        self.features.subscribe = handler

    async def resource_updated(self, uri: str) -> None:
        """notifications/resources/updated to every client subscribed to `uri`, in either era."""
        await self.subscriptions.publish("notifications/resources/updated", {"uri": uri})

    async def list_changed(self, kind: str) -> None:
        """notifications/<kind>/list_changed ("tools", "prompts", "resources") to clients that want it."""
        if kind not in LIST_KINDS:
            raise ValueError(f"kind must be one of {LIST_KINDS}, not {kind!r}")
        await self.subscriptions.publish(f"notifications/{kind}/list_changed", {})

    def close_subscriptions(self) -> None:
        """End every subscriptions/listen stream gracefully (shutdown): each gets its result."""
        self.subscriptions.close()

    def offered_kinds(self) -> set[str]:
        """What a listen filter can ask for here: the kinds of things this server serves."""
        methods = self.features.methods()
        kinds: set[str] = {"tools"} if self._tools else set()
        if "prompts/list" in methods:
            kinds.add("prompts")
        if "resources/list" in methods:
            kinds.add("resources")
        return kinds

    def add_method(self, method: str, handler: MethodHandler) -> None:
        """Serve another request method (prompts/get, resources/read, ...)."""
        self._methods[method] = handler

    def capabilities(self, era: str = ERA_MODERN) -> JSONObject:
        """What this server declares in `era`: server/discover's, or initialize's (ERA_LEGACY)."""
        caps: JSONObject = {"logging": {}}
        if self._tools:
            caps["tools"] = {"listChanged": True}
        caps.update(self.features.capabilities())
        caps.update(self.extra_capabilities)
        # Extensions this server serves, merged with those declared by other means (Skills).
        # Both eras declare them here, initialize's and server/discover's capabilities, but Tasks,
        # which the handshake era does not define (tasks.py).
        extensions: JSONObject = {}
        if TASK_METHODS[0] in self._methods and era == ERA_MODERN:
            extensions[EXTENSION_TASKS] = {}
        if self.features.serves_app_ui():  # MCP Apps: at least one ui:// page served
            extensions[EXTENSION_UI] = {}
        if extensions:
            caps["extensions"] = {**caps.get("extensions", {}), **extensions}
        return caps

    # -- serving -------------------------------------------------------------------

    def connection(self, transport: Transport) -> ServerConnection:
        return ServerConnection(self, transport)

    async def serve_stdio(self, *, wire_log: str | None = None, max_in_flight: int | None = MAX_IN_FLIGHT) -> None:
        """Serve this process's stdin/stdout until stdin closes or SIGTERM arrives. At
        `max_in_flight` requests being handled, stdin is not read until one is answered."""
        transport = StdioServerTransport(wire_log=open_wire_log(wire_log))
        await transport.start()
        connection = ServerConnection(self, transport, max_in_flight=max_in_flight)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, stop.set)
        connection.session.start()
        closed = asyncio.ensure_future(connection.session.wait_closed())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({closed, stopping}, return_when=asyncio.FIRST_COMPLETED)
        closed.cancel()
        stopping.cancel()
        await connection.session.close("server shutting down")

    def run_stdio(self, *, wire_log: str | None = None, max_in_flight: int | None = MAX_IN_FLIGHT) -> None:
        """Blocking entry point for `python -m pkg`."""
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(self.serve_stdio(wire_log=wire_log, max_in_flight=max_in_flight))


__all__ = [
    "ConnectionState",
    "ProtocolError",
    "RequestContext",
    "Server",
    "ServerConnection",
    "TOOLS_PAGE_SIZE",
    "error_result",
]
