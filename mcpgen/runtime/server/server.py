"""The MCP server: serves both eras on one connection, dispatches tools to handlers.

A request whose `params._meta` names a protocol version is served statelessly
(2026-07-28); `initialize` switches the connection to the handshake era. Tool
definitions are advertised exactly as given.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core import jsonrpc, trace_context
from ..core.errors import InputRequired, McpError, ProtocolError, RpcError
from ..core.jsonrpc import JSONObject, RequestId
from ..core.protocol import (
    BATCH_VERSION,
    ERA_LEGACY,
    ERA_MODERN,
    EXTENSION_TASKS,
    HANDSHAKE_VERSIONS,
    LIST_KINDS,
    LOG_LEVELS,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    MODERN_VERSIONS,
)
from ..core.session import Session
from ..core.transport import Transport
from ..transports.stdio import StdioServerTransport
from ..transports.wirelog import open_wire_log
from .auth.info import AuthInfo, current_auth
from .cache_hints import CacheHint, hints_by_method
from .features import CompletionHandler, Features, PromptHandler, ResourceHandler, SubscribeHandler, TemplateHandler
from .request_state import issue_request_state, open_request_state
from .subscriptions import SubscriptionHub, honored_filter
from .tasks import TASK_METHODS, TaskManager, TaskRun, task_support
from .tool_serving import run_tool, tools_cursor, tools_cursor_offset

ToolHandler = Callable[[JSONObject, "RequestContext"], Awaitable[JSONObject]]
MethodHandler = Callable[[JSONObject, "RequestContext"], Awaitable[Any]]

log = logging.getLogger("mcpgen.runtime.server")

# At the end of stdin, requests already read get this long to answer before the server exits.
DRAIN_TIMEOUT = 30.0
# Requests a stdio session handles at once (`--max-in-flight`): at the bound stdin is not read
# until one is answered, and one already read beyond it gets SERVER_BUSY.
MAX_IN_FLIGHT = 1000
# Methods a client may send before the handshake completes.
_PRE_INIT = frozenset({"initialize", "ping"})
# tools/list answers in one page up to this many tools (clients that never follow nextCursor
# still see every tool of a typical server); bigger catalogs are paginated at this size.
TOOLS_PAGE_SIZE = 100
# server/discover's cache hints (those of lists and reads are options: cache_hints.py).
_CACHE_HINTS: JSONObject = {"ttlMs": 0, "cacheScope": "public"}
# Handshake-era methods that 2026-07-28 removed (subscriptions/listen replaces subscribe).
_REMOVED_IN_MODERN = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)


@dataclass
class ConnectionState:
    """What one connection (a stdio process, an HTTP session) agreed in the handshake era."""

    protocol_version: str | None = None
    initialized: bool = False
    client_capabilities: JSONObject = field(default_factory=dict)
    client_info: JSONObject = field(default_factory=dict)
    log_level: str | None = None


class RequestContext:
    """Handed to every handler: who is asking, and ways to talk back while working."""

    def __init__(
        self,
        session: Session,
        request_id: RequestId,
        params: JSONObject,
        *,
        era: str,
        protocol_version: str,
        client_capabilities: JSONObject,
        log_level: str | None,
        carried: JSONObject | None = None,
        hub: SubscriptionHub | None = None,
    ) -> None:
        self._session = session
        self._hub = hub
        self.request_id = request_id
        self.era = era
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities
        self.log_level = log_level
        # The caller's verified access token on a protected HTTP server; None otherwise.
        self.auth: AuthInfo | None = current_auth.get()
        meta = params.get("_meta")
        self.meta: JSONObject = meta if isinstance(meta, dict) else {}
        self.trace = trace_context.trace_context_of(self.meta)  # W3C trace context, checked (or None)
        token = self.meta.get("progressToken")
        # A token is a string or an integer; anything else (NaN, 1.5, an object) means no progress.
        self.progress_token = token if token is not None and jsonrpc.is_valid_id(token) else None
        self._last_progress: float | None = None
        # Answers to input requests: earlier rounds' (carried in the signed requestState), then
        # this retry's inputResponses. Only those a handler actually used go into the next state.
        responses = params.get("inputResponses")
        if isinstance(responses, dict):
            self._responses: JSONObject = {**carried, **responses} if carried else dict(responses)
        else:
            self._responses = dict(carried) if carried else {}
        self.answered: JSONObject = {}
        self._asks = 0
        # The task this call runs as (Tasks extension, tasks.py); None for a plain call.
        self.task: TaskRun | None = None
        # The handshake-era connection's (session's) key: who owns its tasks (task_owner.py).
        self.connection_key: str | None = None

    async def continue_as_task(self) -> None:
        """A `task_input_first` tool's input is gathered (plain input_required rounds): the rest
        runs as a task, the client gets its CreateTaskResult now. A no-op anywhere else."""
        if self.task is not None:
            await self.task.escalate()

    async def drop_connection(self) -> None:
        """End this connection without answering anything more, as a crashing server would (for
        fault injection: the client sees the connection close)."""
        # The transport, not the session: closing the session would cancel this very handler.
        await self._session.transport.close()

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send notifications/progress if the client asked for it; progress must increase. In a
        running task it becomes the task's status message instead."""
        if self.progress_token is None and not (self.task is not None and self.task.active):
            return
        if self._last_progress is not None and progress <= self._last_progress:
            return
        self._last_progress = progress
        if self.task is not None and self.task.active:
            await self.task.progress(progress, total, message)
            return
        params: JSONObject = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._quiet_notify("notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """notifications/message, sent only at or above the level the client asked for."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        threshold = self.log_level
        if threshold is None:
            # Stateless era: no logLevel in _meta means the client wants no log messages.
            if self.era == ERA_MODERN:
                return
        elif LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        params: JSONObject = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._quiet_notify("notifications/message", params)

    async def resource_updated(self, uri: str) -> None:
        """Tell subscribers `uri` changed (resources/subscribe or subscriptions/listen)."""
        if self._hub is not None:
            await self._hub.publish("notifications/resources/updated", {"uri": uri})

    async def list_changed(self, kind: str) -> None:
        """Tell clients the list of `kind` ("tools", "prompts" or "resources") changed."""
        if kind not in LIST_KINDS:
            raise ValueError(f"kind must be one of {LIST_KINDS}, not {kind!r}")
        if self._hub is not None:
            await self._hub.publish(f"notifications/{kind}/list_changed", {})

    async def _quiet_notify(self, method: str, params: JSONObject) -> None:
        # ValueError: something in params is not JSON (a NaN progress value); the tool goes on.
        with contextlib.suppress(McpError, ValueError):
            await self._session.notify(method, params)

    async def _ask_client(self, capability: str, method: str, params: JSONObject | None, key: str | None) -> Any:
        if key is None:
            self._asks += 1
            key = f"{capability}-{self._asks}"
        embedded: JSONObject = {"method": method}
        if params is not None:
            embedded["params"] = params
        return (await self.request_inputs({key: embedded}))[key]

    async def request_inputs(self, requests: Mapping[str, JSONObject]) -> dict[str, Any]:
        """Several client inputs at once: {key: {"method": ..., "params": ...}} -> {key: answer}.

        The methods are elicitation/create, sampling/createMessage and roots/list. In the
        stateless era every unanswered one goes out in a single input_required result and the
        handler runs again on the retry; in the handshake era each is a request to the client.
        """
        missing: JSONObject = {}
        for request in requests.values():
            capability = _CAPABILITY_OF.get(str(request.get("method")))
            if capability is None:
                raise ValueError(f"not a client input method: {request.get('method')!r}")
            if capability not in self.client_capabilities:
                missing[capability] = {}
        if missing:
            # Never ask for what the client did not declare (-32021 names every missing one).
            names = ", ".join(missing)
            raise RpcError(
                jsonrpc.MISSING_CLIENT_CAPABILITY,
                f"the client did not declare the {names} capability",
                {"requiredCapabilities": missing},
            )
        if self.task is not None and self.task.active:
            # A running task parks in input_required; tasks/update brings the answers.
            return await self.task.request_inputs(requests)
        if self.era != ERA_MODERN:
            return {
                key: await self._session.request(str(r["method"]), r.get("params"), timeout=None)
                for key, r in requests.items()
            }
        # No server->client requests in the stateless era: answers come with a retry of this
        # very request (inputResponses), which runs the handler again from the start.
        answers = {key: self._responses[key] for key in requests if isinstance(self._responses.get(key), dict)}
        # Kept even when some are still missing: the retry will answer only the missing ones.
        self.answered.update(answers)
        unanswered = {key: dict(r) for key, r in requests.items() if key not in answers}
        if unanswered:
            raise InputRequired(unanswered)
        return answers

    async def request_sampling(self, params: JSONObject, *, key: str | None = None) -> JSONObject:
        """sampling/createMessage; `key` names the input request in the stateless era."""
        result: JSONObject = await self._ask_client("sampling", "sampling/createMessage", params, key)
        return result

    async def request_elicitation(self, params: JSONObject, *, key: str | None = None) -> JSONObject:
        """elicitation/create; `key` names the input request in the stateless era."""
        result: JSONObject = await self._ask_client("elicitation", "elicitation/create", params, key)
        return result

    async def list_roots(self, *, key: str | None = None) -> list[JSONObject]:
        """roots/list; `key` names the input request in the stateless era."""
        result = await self._ask_client("roots", "roots/list", None, key)
        roots = result.get("roots") if isinstance(result, dict) else None
        return roots if isinstance(roots, list) else []


# Which client capability each client input method needs.
_CAPABILITY_OF = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


@dataclass
class _Tool:
    definition: JSONObject
    handler: ToolHandler


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
        self._tools[name] = _Tool(dict(definition), handler)
        if task_support(definition) is not None:
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

    def tool_definition(self, name: str) -> JSONObject | None:
        """The advertised definition of a tool (the HTTP transport checks Mcp-Param-* by it)."""
        tool = self._tools.get(name)
        return tool.definition if tool is not None else None

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
        kinds = {"tools"} if self._tools else set()
        if "prompts/list" in methods:
            kinds.add("prompts")
        if "resources/list" in methods:
            kinds.add("resources")
        return kinds

    def add_method(self, method: str, handler: MethodHandler) -> None:
        """Serve another request method (prompts/get, resources/read, ...)."""
        self._methods[method] = handler

    def capabilities(self) -> JSONObject:
        caps: JSONObject = {"logging": {}}
        if self._tools:
            caps["tools"] = {"listChanged": True}
        caps.update(self.features.capabilities())
        caps.update(self.extra_capabilities)
        if TASK_METHODS[0] in self._methods:  # merged: other extensions stay declared
            caps["extensions"] = {**caps.get("extensions", {}), EXTENSION_TASKS: {}}
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


class ServerConnection:
    """One client connection: its handshake state and its JSON-RPC session."""

    def __init__(
        self, server: Server, transport: Transport, *, stateless_only: bool = False, max_in_flight: int | None = None
    ) -> None:
        self.server = server
        self.state = ConnectionState()
        # Resources this (handshake-era) connection subscribed to.
        self.subscribed: set[str] = set()
        # A request that declared the 2026-07-28 era by other means (the HTTP version header) is
        # served statelessly even when its _meta is missing or broken, so it gets that era's errors.
        self.stateless_only = stateless_only
        # Whose tasks this handshake-era connection reaches (task_owner.py): its own, by default;
        # an HTTP session's on any worker (sessions.py sets it to the session's).
        self.owner_key = secrets.token_urlsafe(18)
        self.session = Session(
            transport,
            on_request=self.handle_request,
            on_notification=self._on_notification,
            on_invalid=self._on_invalid,
            on_batch=self._on_batch,
            timeout=None,
            answer_invalid=True,
            drain_timeout=DRAIN_TIMEOUT,
            max_in_flight=max_in_flight,
        )

    async def _on_invalid(self, line: bytes) -> None:
        with contextlib.suppress(McpError):
            await self.session.transport.send(jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, "Parse error"))

    async def _on_batch(self, batch: list[Any]) -> bool:
        if self.state.protocol_version != BATCH_VERSION or not batch:
            with contextlib.suppress(McpError):
                await self.session.transport.send(
                    jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Batches are not supported")
                )
            return True
        replies = await asyncio.gather(*(self._batch_item(item) for item in batch))
        answered = [reply for reply in replies if reply is not None]
        if answered:
            with contextlib.suppress(McpError):
                await self.session.transport.send(answered)
        return True

    async def _batch_item(self, item: Any) -> JSONObject | None:
        kind = jsonrpc.classify(item)
        if kind == "notification":
            self.session.dispatch(item)
            return None
        if kind != "request":
            return jsonrpc.error_response(None, jsonrpc.INVALID_REQUEST, "Invalid request")
        params = item.get("params") if isinstance(item.get("params"), dict) else {}
        try:
            return jsonrpc.response(item["id"], await self.handle_request(item["method"], params, item["id"]))
        except RpcError as exc:
            return jsonrpc.error_response(item["id"], exc.code, exc.message, exc.data)
        except Exception:
            log.exception("handler for %s failed", item["method"])
            return jsonrpc.error_response(item["id"], jsonrpc.INTERNAL_ERROR, "Internal error")

    async def _on_notification(self, method: str, params: JSONObject) -> None:
        if method == "notifications/initialized" and self.state.protocol_version is not None:
            self.state.initialized = True

    def handle_request(self, method: str, params: JSONObject, request_id: RequestId) -> Awaitable[Any]:
        """The answer to one request (a coroutine: this only picks the era that serves it)."""
        meta = params.get("_meta")
        if self.stateless_only or (isinstance(meta, dict) and META_PROTOCOL_VERSION in meta and method != "initialize"):
            return self._modern(method, params, meta if isinstance(meta, dict) else None, request_id)
        return self._legacy(method, params, request_id)

    # -- the stateless era ---------------------------------------------------------

    async def _modern(self, method: str, params: JSONObject, meta: JSONObject | None, request_id: RequestId) -> Any:
        if method in _REMOVED_IN_MODERN or not self._serves(method):
            raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
        if meta is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, "params._meta is required in protocol version 2026-07-28")
        version = meta.get(META_PROTOCOL_VERSION)
        if not isinstance(version, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, f"params._meta must carry {META_PROTOCOL_VERSION}")
        if version not in MODERN_VERSIONS:
            raise RpcError(
                jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version: {version}",
                {"supported": [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS], "requested": version},
            )
        capabilities = meta.get(META_CLIENT_CAPABILITIES)
        if not isinstance(capabilities, dict):
            raise RpcError(jsonrpc.INVALID_PARAMS, f"params._meta must carry {META_CLIENT_CAPABILITIES}")
        level = meta.get(META_LOG_LEVEL)
        carried = open_request_state(method, params) if method != "server/discover" else {}
        context = RequestContext(
            self.session,
            request_id,
            params,
            era=ERA_MODERN,
            protocol_version=str(version),
            client_capabilities=capabilities,
            log_level=level if level in LOG_LEVELS else None,
            carried=carried,
            hub=self.server.subscriptions,
        )
        if method == "server/discover":
            result: Any = {
                "supportedVersions": [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS],
                "capabilities": self._modern_capabilities(),
                **_CACHE_HINTS,
            }
            if self.server.instructions is not None:
                result["instructions"] = self.server.instructions
        elif method == "subscriptions/listen":
            honored = honored_filter(params.get("notifications"), self.server.offered_kinds())
            honored.update(await self.server.tasks.listen_filter(params.get("notifications"), context))
            result = await self.server.subscriptions.serve_listen(self.session, request_id, honored)
        else:
            try:
                if method == "tools/call" and context.trace is None:  # (_dispatch's first step, a frame less)
                    result = await self._call_tool(params, context)
                else:
                    result = await self._dispatch(method, params, context)
            except InputRequired as need:
                return self._input_required(method, params, need, context)
            hints = self.server.cache_hints.get(method)
            if hints is not None:
                result = {**hints, **result}
        if isinstance(result, dict):
            # One copy: the handler's dict may be one it keeps (and answers with again).
            meta = result.get("_meta")
            result = {
                **result,
                "resultType": result.get("resultType", "complete"),
                "_meta": {**meta, META_SERVER_INFO: self.server.info} if meta else {META_SERVER_INFO: self.server.info},
            }
        return result

    def _input_required(
        self, method: str, params: JSONObject, need: InputRequired, context: RequestContext
    ) -> JSONObject:
        # The retry answers only these requests: the state keeps the answers used so far.
        return {
            "resultType": "input_required",
            "inputRequests": need.requests,
            "requestState": issue_request_state(method, params, context.answered),
            "_meta": {META_SERVER_INFO: self.server.info},
        }

    def _modern_capabilities(self) -> JSONObject:
        """What server/discover declares: only what this era serves. Resource subscriptions
        are delivered by subscriptions/listen there (resources/subscribe is gone)."""
        caps = self.server.capabilities()
        resources = caps.get("resources")
        if isinstance(resources, dict) and resources.get("subscribe") and not self._serves("subscriptions/listen"):
            caps["resources"] = {**resources, "subscribe": False}
        return caps

    # -- the handshake era ---------------------------------------------------------

    async def _legacy(self, method: str, params: JSONObject, request_id: RequestId) -> Any:
        state = self.state
        if method == "initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        if method == "server/discover":
            # A handshake-era client never sends this without _meta; be explicit for probes.
            raise RpcError(jsonrpc.INVALID_PARAMS, f"server/discover needs params._meta.{META_PROTOCOL_VERSION}")
        if state.protocol_version is None and method not in _PRE_INIT:
            raise RpcError(jsonrpc.INVALID_REQUEST, "Received a request before initialize")
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in LOG_LEVELS:
                raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown log level: {level}")
            state.log_level = str(level)
            return {}
        context = RequestContext(
            self.session,
            request_id,
            params,
            era=ERA_LEGACY,
            protocol_version=state.protocol_version or "",
            client_capabilities=state.client_capabilities,
            log_level=state.log_level,
            hub=self.server.subscriptions,
        )
        context.connection_key = self.owner_key
        result = await self._dispatch(method, params, context)
        uri = params.get("uri")
        if method in ("resources/subscribe", "resources/unsubscribe") and isinstance(uri, str):
            if method == "resources/subscribe":
                self.subscribed.add(uri)
            else:
                self.subscribed.discard(uri)
        return result

    async def deliver_legacy(self, method: str, params: JSONObject) -> None:
        """A change event, sent if this handshake-era connection wants it."""
        if not self.state.initialized or self.session.is_closed:
            return
        if method == "notifications/resources/updated" and params.get("uri") not in self.subscribed:
            return
        await self.session.notify(method, params)

    def _initialize(self, params: JSONObject) -> JSONObject:
        requested = params.get("protocolVersion")
        version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
        caps = params.get("capabilities")
        info = params.get("clientInfo")
        self.server.subscriptions.add_legacy(self)
        self.state = ConnectionState(
            protocol_version=str(version),
            client_capabilities=caps if isinstance(caps, dict) else {},
            client_info=info if isinstance(info, dict) else {},
        )
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": self.server.capabilities(),
            "serverInfo": self.server.info,
        }
        if self.server.instructions is not None:
            result["instructions"] = self.server.instructions
        return result

    # -- methods shared by both eras -----------------------------------------------

    def _serves(self, method: str) -> bool:
        return (
            method in ("server/discover", "tools/list", "tools/call", "subscriptions/listen")
            or method in self.server._methods
            or method in self.server.features.methods()
        )

    async def _dispatch(self, method: str, params: JSONObject, context: RequestContext) -> Any:
        with trace_context.otel_context(context.trace):  # the handler runs in the caller's trace
            if method == "tools/list":
                return self._list_tools(params)
            if method == "tools/call":
                return await self._call_tool(params, context)
            handler = self.server._methods.get(method) or self.server.features.methods().get(method)
            if handler is None:
                raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
            return await handler(params, context)

    def _list_tools(self, params: JSONObject) -> JSONObject:
        tools = list(self.server._tools.values())
        start = tools_cursor_offset(params.get("cursor"), len(tools))
        end = start + self.server.tools_page_size
        result: JSONObject = {"tools": [tool.definition for tool in tools[start:end]]}
        if end < len(tools):
            result["nextCursor"] = tools_cursor(end)
        return result

    async def _call_tool(self, params: JSONObject, context: RequestContext) -> JSONObject:
        name = params.get("name")
        tool = self.server._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return error_result("Invalid arguments: expected an object")
        support = task_support(tool.definition)
        if support is not None:
            return await self.server.tasks.call(
                functools.partial(run_tool, tool.handler, str(name)),
                arguments,
                context,
                support,
                name in self.server.task_input_first,
            )
        return await run_tool(tool.handler, str(name), arguments, context)


def error_result(message: str) -> JSONObject:
    """A tool execution error: the model reads it, the protocol call still succeeds."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


__all__ = ["Server", "ServerConnection", "RequestContext", "TOOLS_PAGE_SIZE", "error_result", "ProtocolError"]
