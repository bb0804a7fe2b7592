"""The MCP client session: one connection in whichever era the server speaks, the request methods
generated code calls, and what the server sends back (requests, notifications).

Its collaborators each hold one job: `negotiation` agrees on the era and version, `connect`
builds a session per transport, `server_requests` answers the server (callbacks, 2026-07-28
input rounds), `subscriptions` holds the change streams, `param_headers` the per-tool HTTP
headers.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import ConnectionClosed, ProtocolError, RequestTimeout, RpcError, SessionExpired
from ..core.jsonrpc import JSONObject, RequestId, is_array, is_object
from ..core.protocol import ERA_LEGACY, ERA_MODERN, LATEST_HANDSHAKE, SUBSCRIPTION_ACKNOWLEDGED
from ..core.session import Session
from ..core.trace_context import outgoing_trace_context
from ..core.transport import Transport
from ..version import __version__ as RUNTIME_VERSION
from . import apps, server_requests, skills, tasks, url_elicitation
from .negotiation import PROBE_TIMEOUT, Negotiation, stateless_meta
from .options import ConnectKwargs, ConnectOptions, ProgressCallback
from .param_headers import ToolHeaders
from .result_cache import ResultCache
from .subscriptions import Listens, Subscription

# A listing ends within this many pages: past it the server is paging forever (each page a new
# cursor), and a reader waiting for the end would wait for ever.
MAX_LIST_PAGES = 1000

if TYPE_CHECKING:
    # Runtime code stays standard-library only; type checkers ship typing_extensions' stubs.
    from typing_extensions import Unpack

# Who the client says it is in `initialize` (clientInfo): the runtime, at its own release.
DEFAULT_CLIENT_INFO: JSONObject = {"name": "mcpgen", "version": RUNTIME_VERSION}

log = logging.getLogger("mcpgen.runtime.client")


class ClientSession:
    """One connection to an MCP server, in whichever era it speaks.

    Configured by `options` (a ConnectOptions) and/or the same options as keywords, which
    override it. The transport is already built, so `wire_log` is not this class's to open:
    connect_stdio/connect_http give it to the transport.
    """

    def __init__(
        self, transport: Transport, options: ConnectOptions | None = None, **overrides: Unpack[ConnectKwargs]
    ) -> None:
        self.transport = transport
        self.options = opts = ConnectOptions.build(options, overrides, caller="ClientSession")
        self.client_info = dict(opts.client_info or DEFAULT_CLIENT_INFO)
        # Changed by set_logging_level(); the options keep the level asked for at connect.
        self.log_level = opts.log_level
        self.session = Session(
            transport,
            on_request=self._on_request,
            on_notification=self._on_notification,
            timeout=opts.timeout,
            max_timeout=opts.max_timeout,
        )
        self.protocol_version: str = ""
        self.era: str = ""
        self.server_info: JSONObject = {}
        self.server_capabilities: JSONObject = {}
        self.instructions: str | None = None
        self._negotiation = Negotiation(self)
        self._listens = Listens(self)
        self._tool_headers = ToolHeaders(transport)
        self.cache = ResultCache()
        # Called (no arguments) on each notifications/tools/list_changed: a typed client's re-pinning (repin.py).
        self.tool_watchers: list[Callable[[], None]] = []
        # (protocol version, log level, options, the _meta of a stateless-era request): _request_meta.
        self._meta_cache: tuple[str, str | None, ConnectOptions, JSONObject] | None = None

    # -- connection ----------------------------------------------------------------

    @property
    def process_pid(self) -> int | None:
        return getattr(self.transport, "pid", None)

    def capabilities(self) -> JSONObject:
        """What this client can do for the server, from the callbacks it was given."""
        caps: JSONObject = {}
        if self.options.on_sampling is not None:
            caps["sampling"] = {}
        if self.options.on_elicitation is not None:
            modes: JSONObject = {"form": {}, "url": {}} if self.options.url_elicitation else {"form": {}}
            caps["elicitation"] = modes
        if self.options.on_roots is not None:
            caps["roots"] = {"listChanged": False}
        if self.options.mcp_apps:
            caps["extensions"] = apps.capability()
        if self.options.skills:
            caps["extensions"] = {**caps.get("extensions", {}), **skills.capability()}
        return caps

    async def connect(self, protocol: str | None = None, *, connect_timeout: float | None = None) -> None:
        """Agree on an era and a version. protocol: "auto", "legacy" or an exact version;
        both default to this session's options."""
        if protocol is None:
            protocol = self.options.protocol
        if connect_timeout is None:
            connect_timeout = self.options.connect_timeout
        # A legacy server may ignore the probe: leave most of the connect time for initialize.
        self._negotiation.probe_timeout = min(PROBE_TIMEOUT, connect_timeout / 3)
        self.session.start()
        try:
            await asyncio.wait_for(self._negotiation.run(protocol), connect_timeout)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"the server did not complete the MCP handshake within {connect_timeout:g}s") from None
        except ConnectionClosed:
            wait_exit = getattr(self.transport, "wait_exit", None)
            if wait_exit is None:
                raise
            # Let a dying server report its exit code and last stderr line.
            await wait_exit(1.0)
            raise ConnectionClosed(self.transport.describe_close()) from None

    def _request_meta(self) -> JSONObject:
        """The `_meta` of a request of this era, built once for each version and log level and
        then shared by every request (nothing changes it: the messages are only encoded)."""
        cached = self._meta_cache
        if (
            cached is None
            or cached[0] != self.protocol_version
            or cached[1] != self.log_level
            or cached[2] is not self.options  # (the capabilities come from the callbacks given)
        ):
            cached = self._meta_cache = (self.protocol_version, self.log_level, self.options, stateless_meta(self))
        return cached[3]

    async def aclose(self) -> None:
        await self.session.close()

    async def __aenter__(self) -> ClientSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- requests ------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> Any:
        """Send any request in the negotiated era; returns the result object. A -32042 refusal
        whose URL elicitations the user all accepted (url_elicitation.py) is sent once more; a
        cacheable result is answered from the cache while its ttlMs lasts (result_cache.py)."""
        key = self.cache.key(method, params) if self.era == ERA_MODERN and self.options.cache_results else None
        cached = self.cache.get(key) if key is not None else None
        if cached is not None:
            return cached
        try:
            result = await self._request_once(method, params, timeout, progress)
        except RpcError as refused:
            if not await url_elicitation.satisfied(self.options, refused):
                raise
            result = await self._request_once(method, params, timeout, progress)
        if key is not None:
            self.cache.put(key, result)
        return result

    async def _request_once(
        self, method: str, params: JSONObject | None, timeout: float | None, progress: ProgressCallback | None
    ) -> Any:
        trace = outgoing_trace_context(self.options.trace_context)
        if trace is not None:  # W3C trace context in _meta (core/trace_context.py); the caller's keys win
            params = dict(params or {})
            given = params.get("_meta")
            params["_meta"] = {**trace.as_meta(), **given} if is_object(given) else trace.as_meta()
        if self.era == ERA_MODERN:
            params = dict(params or {})
            given = params.get("_meta")
            meta = self._request_meta()
            params["_meta"] = {**given, **meta} if given else meta
        try:
            result = await self.session.request(method, params, timeout=timeout, progress=progress)
        except SessionExpired:
            # The server dropped our HTTP session: a new handshake, then the same request once more.
            await self._negotiation.initialize(self.protocol_version or LATEST_HANDSHAKE)
            result = await self.session.request(method, params, timeout=timeout, progress=progress)
        if self.era == ERA_MODERN and is_object(result) and not server_requests.completed(result):
            result = await server_requests.complete_input_rounds(self, method, params or {}, result, timeout, progress)
        return result

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        await self.session.notify(method, params)

    async def list_all(self, method: str, key: str) -> list[JSONObject]:
        """Follow nextCursor to the end (an empty-string cursor is not the end), at most
        MAX_LIST_PAGES pages: a server that pages forever, or repeats a cursor, is an error."""
        items: list[JSONObject] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            result = await self.request(method, {"cursor": cursor} if cursor is not None else None)
            page = result.get(key) if is_object(result) else None
            if not is_array(page):
                raise ProtocolError(f"{method} returned no {key!r} list")
            items.extend(page)
            next_cursor: object = result.get("nextCursor")  # (the server's: anything)
            if next_cursor is None:
                return items
            if not isinstance(next_cursor, str):
                raise ProtocolError(f"{method} returned a nextCursor that is not a string: {next_cursor!r:.60}")
            cursor = next_cursor
            if cursor in seen:
                raise ProtocolError(f"{method} returned the cursor {cursor!r:.60} twice (a list that never ends)")
            seen.add(cursor)
        raise ProtocolError(f"{method} still had a nextCursor after {MAX_LIST_PAGES} pages (a list that never ends)")

    async def list_tools(self) -> list[JSONObject]:
        return self._tool_headers.keep_listed(await self.list_all("tools/list", "tools"))

    def know_tools(self, tools: Sequence[JSONObject]) -> None:
        """Tool definitions known ahead of a live listing (a generated client's catalog): their
        x-mcp-header annotations give the Mcp-Param-* headers, and tools whose annotation is
        invalid are refused over HTTP. A later list_tools() overrides what it lists."""
        self._tool_headers.know(tools)

    async def list_prompts(self) -> list[JSONObject]:
        return await self.list_all("prompts/list", "prompts")

    async def list_resources(self) -> list[JSONObject]:
        return await self.list_all("resources/list", "resources")

    async def list_resource_templates(self) -> list[JSONObject]:
        return await self.list_all("resources/templates/list", "resourceTemplates")

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> JSONObject:
        self._tool_headers.check_callable(name)
        params: JSONObject = {"name": name, "arguments": dict(arguments or {})}
        result = await self.request("tools/call", params, timeout=timeout, progress=progress)
        if not is_object(result):
            raise ProtocolError("tools/call returned a non-object result")
        if result.get("resultType") == "task":
            # A server that made a task unasked (we never declared the extension): wait for it.
            return await tasks.task_of(self, name, result).wait(timeout)
        return result

    async def start_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> tasks.ToolTask:
        """Call a tool as a task (Tasks extension, client/tasks.py): a ToolTask to poll, wait()
        for or cancel(); completed at once when the server answered without making a task."""
        self._tool_headers.check_callable(name)
        return await tasks.start_tool(self, name, arguments, timeout, progress)

    async def tool_ui(self, name: str) -> apps.AppUi | None:
        """The MCP Apps UI of the tool `name` (its `_meta.ui.resourceUri`, read and checked:
        apps.py); None for a tool without one. LookupError if the server has no such tool."""
        for tool in await self.list_tools():
            if is_object(tool) and tool.get("name") == name:
                return await apps.read_app(self, tool)
        raise LookupError(f"the server has no tool {name!r:.80}")

    async def list_skills(self) -> list[skills.Skill]:
        """The server's skills (skills/list, every page), each entry checked; no file is read."""
        return await skills.list_skills(self)

    async def get_skill(self, name_or_uri: str) -> skills.Skill:
        """One skill: by its SKILL.md URI (skills/get) or by its name among those listed."""
        return await skills.get_skill(self, name_or_uri)

    async def read_skill_file(self, skill: skills.Skill, path: str = "SKILL.md") -> skills.SkillFileContent:
        """One file of `skill`, verified (size, digest, frontmatter) before it is returned."""
        return await skills.read_skill_file(self, skill, path)

    async def read_skill_directory(self, skill: skills.Skill, path: str = "") -> list[skills.SkillDirectoryEntry]:
        """The entries of one folder of `skill` (resources/directory/read; "" for its own), checked."""
        return await skills.read_skill_directory(self, skill, path)

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        result: JSONObject = await self.request("prompts/get", params, timeout=timeout)
        return result

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> JSONObject:
        result: JSONObject = await self.request("resources/read", {"uri": uri}, timeout=timeout)
        return result

    async def complete(self, ref: JSONObject, argument: JSONObject, context: JSONObject | None = None) -> JSONObject:
        params: JSONObject = {"ref": ref, "argument": argument}
        if context is not None:
            params["context"] = context
        result: JSONObject = await self.request("completion/complete", params)
        return result

    async def subscribe_resource(self, uri: str) -> None:
        """Updates of `uri` from now on, to every listen_resource_updates() queue: resources/subscribe
        in the handshake era, a subscriptions/listen stream (re-opened with every uri) in 2026-07-28."""
        if self.era != ERA_MODERN:
            await self.request("resources/subscribe", {"uri": uri})
            return
        await self._listens.add_resource(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        if self.era != ERA_MODERN:
            await self.request("resources/unsubscribe", {"uri": uri})
            return
        await self._listens.remove_resource(uri)

    async def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resource_uris: Sequence[str] = (),
    ) -> Subscription:
        """subscriptions/listen (2026-07-28): returns once the server acknowledged the stream;
        `async for event in subscription` then yields what was asked for and honored."""
        wanted: JSONObject = {}
        for key, on in (
            ("toolsListChanged", tools_list_changed),
            ("promptsListChanged", prompts_list_changed),
            ("resourcesListChanged", resources_list_changed),
        ):
            if on:
                wanted[key] = True
        if resource_uris:
            wanted["resourceSubscriptions"] = list(resource_uris)
        return await self._listens.open(wanted, collect=True)

    async def watch_tools(self) -> Subscription:
        """A listen stream (2026-07-28) that only makes tools/list_changed reach tool_watchers
        (its events are not queued: nobody reads them)."""
        return await self._listens.open({"toolsListChanged": True}, collect=False)

    async def watch_tasks(self, task_ids: Sequence[str], meta: JSONObject, wake: asyncio.Event) -> Subscription:
        """A listen stream (2026-07-28) for these tasks' status notifications (the Tasks
        extension, which `meta` declares): each one sets `wake`, none is queued."""
        return await self._listens.open({"taskIds": list(task_ids)}, collect=False, meta=meta, wake=wake)

    def listen_resource_updates(self) -> asyncio.Queue[str]:
        """A queue that receives the uri of every notifications/resources/updated from now on."""
        return self._listens.updates_queue()

    def stop_listening(self, queue: asyncio.Queue[str]) -> None:
        self._listens.discard(queue)

    async def ping(self) -> None:
        if self.era == ERA_MODERN:
            # Removed in 2026-07-28; discover is the cheapest round trip that proves liveness.
            await self.request("server/discover")
        else:
            await self.request("ping")

    async def set_logging_level(self, level: str) -> None:
        self.log_level = level
        if self.era == ERA_LEGACY:
            await self.request("logging/setLevel", {"level": level})

    # -- what the server sends us --------------------------------------------------

    async def _on_request(self, method: str, params: JSONObject, request_id: RequestId) -> Any:
        return await server_requests.answer(self.options, method, params)

    async def _on_notification(self, method: str, params: JSONObject) -> None:
        self._listens.route(method, params)
        if method == SUBSCRIPTION_ACKNOWLEDGED:
            return
        if method == "notifications/elicitation/complete":
            # The user finished a URL elicitation out of band; the retry already waited on the user.
            log.debug("the server reports URL elicitation %.64r complete", params.get("elicitationId"))
        elif method == "notifications/message":
            if self.options.on_log is not None:
                await _maybe_await(self.options.on_log(params))
            else:
                log.info("server log [%s] %s", params.get("level"), params.get("data"))
        elif method == "notifications/resources/updated":
            uri = params.get("uri")
            if isinstance(uri, str):
                self.cache.resource_updated(uri)
                self._listens.resource_updated(uri)
        elif method.endswith("/list_changed") and method.startswith("notifications/"):
            kind = method[len("notifications/") : -len("/list_changed")]
            self.cache.list_changed(kind)
            if kind == "tools":
                for watcher in self.tool_watchers:
                    watcher()
            if self.options.on_list_changed is not None:
                await _maybe_await(self.options.on_list_changed(kind))


async def _maybe_await(value: Any) -> None:
    if inspect.isawaitable(value):
        await value
