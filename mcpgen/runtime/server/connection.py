"""ServerConnection: one client connection (a stdio process, an HTTP session) and the two
protocol eras it serves — the 2026-07-28 stateless era (a request whose `params._meta` names a
protocol version) and the handshake era (`initialize` switches the connection to it)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core import jsonrpc, trace_context
from ..core.errors import InputRequired, McpError, RpcError
from ..core.jsonrpc import JSONObject, RequestId, is_object
from ..core.protocol import (
    BATCH_VERSION,
    ERA_LEGACY,
    ERA_MODERN,
    HANDSHAKE_VERSIONS,
    LOG_LEVELS,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    MODERN_VERSIONS,
)
from ..core.session import Session
from ..core.transport import Transport
from .context import RequestContext
from .request_state import issue_request_state, open_request_state
from .subscriptions import honored_filter
from .tool_serving import error_result, run_tool, tools_cursor, tools_cursor_offset

if TYPE_CHECKING:
    from .server import Server

log = logging.getLogger("mcpgen.runtime.server")

# At the end of stdin, requests already read get this long to answer before the server exits.
DRAIN_TIMEOUT = 30.0
# Methods a client may send before the handshake completes.
_PRE_INIT = frozenset({"initialize", "ping"})
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
    client_capabilities: JSONObject = field(default_factory=dict[str, Any])
    client_info: JSONObject = field(default_factory=dict[str, Any])
    log_level: str | None = None


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
        params: JSONObject = item.get("params") if is_object(item.get("params")) else {}
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
        if self.stateless_only or (is_object(meta) and META_PROTOCOL_VERSION in meta and method != "initialize"):
            return self._modern(method, params, meta if is_object(meta) else None, request_id)
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
        if not is_object(capabilities):
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
        if is_object(result):
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
        if is_object(resources) and resources.get("subscribe") and not self._serves("subscriptions/listen"):
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
            client_capabilities=caps if is_object(caps) else {},
            client_info=info if is_object(info) else {},
        )
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": self.server.capabilities(ERA_LEGACY),
            "serverInfo": self.server.info,
        }
        if self.server.instructions is not None:
            result["instructions"] = self.server.instructions
        return result

    # -- methods shared by both eras -----------------------------------------------

    def _serves(self, method: str) -> bool:
        return (
            method in ("server/discover", "tools/list", "tools/call", "subscriptions/listen")
            or self.server.method_handler(method) is not None
            or method in self.server.features.methods()
        )

    async def _dispatch(self, method: str, params: JSONObject, context: RequestContext) -> Any:
        with trace_context.otel_context(context.trace):  # the handler runs in the caller's trace
            if method == "tools/list":
                return self._list_tools(params)
            if method == "tools/call":
                return await self._call_tool(params, context)
            handler = self.server.method_handler(method) or self.server.features.methods().get(method)
            if handler is None:
                raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
            return await handler(params, context)

    def _list_tools(self, params: JSONObject) -> JSONObject:
        tools = self.server.registered_tools()
        start = tools_cursor_offset(params.get("cursor"), len(tools))
        end = start + self.server.tools_page_size
        result: JSONObject = {"tools": [tool.definition for tool in tools[start:end]]}
        if end < len(tools):
            result["nextCursor"] = tools_cursor(end)
        return result

    async def _call_tool(self, params: JSONObject, context: RequestContext) -> JSONObject:
        name = params.get("name")
        tool = self.server.registered_tool(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}")
        arguments: object = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not is_object(arguments):
            return error_result("Invalid arguments: expected an object")
        support = tool.task_support
        if support is not None:
            return await self.server.tasks.call(
                functools.partial(run_tool, tool.handler, str(name)),
                arguments,
                context,
                support,
                name in self.server.task_input_first,
            )
        return await run_tool(tool.handler, str(name), arguments, context)


__all__ = ["ConnectionState", "ServerConnection"]
