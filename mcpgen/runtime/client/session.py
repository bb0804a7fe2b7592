"""The MCP client: era negotiation, the request methods generated code calls, callbacks.

Connecting probes `server/discover` (the stateless 2026-07-28 era) and falls back to
the `initialize` handshake on anything that is not positive evidence of a modern
server, as the 2026-07-28 versioning page asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..core import jsonrpc
from ..core.errors import ConnectionClosed, McpError, ProtocolError, RequestTimeout, RpcError, SessionExpired
from ..core.headers import param_headers_of
from ..core.jsonrpc import JSONObject, RequestId
from ..core.protocol import (
    ERA_LEGACY,
    ERA_MODERN,
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
    MODERN_VERSIONS,
    SUBSCRIPTION_ACKNOWLEDGED,
)
from ..core.session import Session
from ..core.transport import EraAwareTransport, Transport
from ..transports.memory import MemoryLink, MemoryServable
from ..transports.stdio import StdioClientTransport
from ..transports.wirelog import open_wire_log
from .options import ConnectKwargs, ConnectOptions, HttpKwargs, HttpOptions, ProgressCallback, StdioKwargs, StdioOptions
from .subscriptions import Subscription

if TYPE_CHECKING:
    # Runtime code stays standard-library only; type checkers ship typing_extensions' stubs.
    from typing_extensions import Unpack

DEFAULT_CLIENT_INFO: JSONObject = {"name": "mcpgen", "version": "0.1.0"}
# A probe answered by nothing at all (some legacy servers ignore unknown methods) must not
# stall the connection for the whole connect timeout.
PROBE_TIMEOUT = 10.0
MAX_INPUT_ROUNDS = 8

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
        self._probe_timeout = PROBE_TIMEOUT
        # One queue per open resource_updates() iterator; notifications/resources/updated fans out.
        self._update_queues: set[asyncio.Queue[str]] = set()
        # Open subscriptions/listen streams by request id (2026-07-28), and the one that carries
        # subscribe_resource()'s uris.
        self._listens: dict[RequestId, Subscription] = {}
        self._resource_uris: dict[str, None] = {}
        self._resource_listen: Subscription | None = None
        # Tools whose x-mcp-header annotation is invalid: never called over HTTP.
        self._refused_tools: set[str] = set()
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
            caps["elicitation"] = {"form": {}}
        if self.options.on_roots is not None:
            caps["roots"] = {"listChanged": False}
        return caps

    async def connect(self, protocol: str | None = None, *, connect_timeout: float | None = None) -> None:
        """Agree on an era and a version. protocol: "auto", "legacy" or an exact version;
        both default to this session's options."""
        if protocol is None:
            protocol = self.options.protocol
        if connect_timeout is None:
            connect_timeout = self.options.connect_timeout
        # A legacy server may ignore the probe: leave most of the connect time for initialize.
        self._probe_timeout = min(PROBE_TIMEOUT, connect_timeout / 3)
        self.session.start()
        try:
            await asyncio.wait_for(self._negotiate(protocol), connect_timeout)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"the server did not complete the MCP handshake within {connect_timeout:g}s") from None
        except ConnectionClosed:
            wait_exit = getattr(self.transport, "wait_exit", None)
            if wait_exit is None:
                raise
            # Let a dying server report its exit code and last stderr line.
            await wait_exit(1.0)
            raise ConnectionClosed(self.transport.describe_close()) from None

    async def _negotiate(self, protocol: str) -> None:
        if protocol in HANDSHAKE_VERSIONS or protocol == ERA_LEGACY:
            await self._initialize(LATEST_HANDSHAKE if protocol == ERA_LEGACY else protocol)
            return
        if protocol in MODERN_VERSIONS:
            await self._discover(protocol, fallback=False)
            return
        if protocol != "auto":
            raise ProtocolError(f"unknown protocol {protocol!r}")
        await self._discover(MODERN_VERSIONS[0], fallback=True)

    async def _discover(self, version: str, *, fallback: bool) -> None:
        for _attempt in range(2):
            try:
                if fallback:
                    result = await self._probe(version)
                    if result is None:
                        return  # the handshake era answered first: initialized
                else:
                    result = await self.session.request(
                        "server/discover", {"_meta": self._meta(version)}, cancellable=False
                    )
            except RpcError as exc:
                if exc.code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
                    supported = _supported_versions(exc.data)
                    mutual = [v for v in MODERN_VERSIONS if v in supported]
                    if mutual and _attempt == 0:
                        # Retry once with the best version the server names, even the one just
                        # sent: a server may reject a first choice it supports (SEP-2575).
                        version = mutual[0]
                        continue
                    if supported and not any(v in HANDSHAKE_VERSIONS for v in supported):
                        raise ProtocolError(
                            f"the server supports only {', '.join(supported)}; this client speaks "
                            f"{', '.join(MODERN_VERSIONS + HANDSHAKE_VERSIONS)}"
                        ) from None
                if not fallback:
                    raise
                await self._initialize(LATEST_HANDSHAKE)
                return
            except RequestTimeout:
                if not fallback:
                    raise
                await self._initialize(LATEST_HANDSHAKE)
                return
            except McpError as exc:
                # An HTTP 400/404/405 without a JSON-RPC body: a handshake-era server.
                if not fallback or getattr(exc, "status", None) not in (400, 404, 405):
                    raise
                await self._initialize(LATEST_HANDSHAKE)
                return
            if not isinstance(result, dict):
                raise ProtocolError("server/discover returned a non-object result")
            versions = result.get("supportedVersions") or []
            mutual = [v for v in MODERN_VERSIONS if v in versions]
            if not mutual:
                if fallback:
                    # Answers discover but lists only handshake versions: a legacy advertisement.
                    await self._initialize(LATEST_HANDSHAKE)
                    return
                raise ProtocolError(f"the server does not support {version}")
            self.era = ERA_MODERN
            self.protocol_version = mutual[0]
            self._tell_transport()
            self.server_capabilities = dict(result.get("capabilities") or {})
            meta = result.get("_meta") or {}
            self.server_info = dict(meta.get("io.modelcontextprotocol/serverInfo") or {})
            self.instructions = result.get("instructions")
            return
        raise ProtocolError("no protocol version in common with the server")

    async def _probe(self, version: str) -> Any:
        """`server/discover` for protocol="auto"; None when the handshake era won instead.

        A server silent for the probe timeout also gets `initialize`, but the probe stays
        pending: a modern server that is merely slow (still importing at start, a loaded machine)
        answers the probe first, is taken at its word, and the handshake it no longer accepts
        is dropped. A legacy server ignores the probe and answers `initialize`."""
        discover = asyncio.ensure_future(
            self.session.request("server/discover", {"_meta": self._meta(version)}, cancellable=False)
        )
        initialize: asyncio.Future[None] | None = None
        try:
            done, _ = await asyncio.wait({discover}, timeout=self._probe_timeout)
            if done:
                return discover.result()  # an error goes to the caller's fallback rules
            initialize = asyncio.ensure_future(self._initialize(LATEST_HANDSHAKE))
            done, _ = await asyncio.wait({discover, initialize}, return_when=asyncio.FIRST_COMPLETED)
            # Both answers may arrive in one read. A handshake that succeeded stands (the server
            # now holds an initialized session); one it refused yields to a modern discover answer.
            handshake_refused = initialize in done and initialize.exception() is not None
            if discover in done and discover.exception() is None and (initialize not in done or handshake_refused):
                result = discover.result()
                versions = result.get("supportedVersions") if isinstance(result, dict) else None
                if isinstance(versions, list) and any(v in MODERN_VERSIONS for v in versions):
                    return result
            await initialize  # the handshake era decides (its error, if any, is the caller's)
            initialize = None
            return None
        finally:
            for pending in (discover, initialize):
                if pending is not None and not pending.done():
                    pending.cancel()

    async def _initialize(self, version: str) -> None:
        params = {
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "clientInfo": self.client_info,
        }
        result = await self.session.request("initialize", params, cancellable=False)
        if not isinstance(result, dict):
            raise ProtocolError("initialize returned a non-object result")
        agreed = result.get("protocolVersion")
        if agreed not in HANDSHAKE_VERSIONS:
            raise ProtocolError(
                f"the server wants protocol version {agreed!r}; this client speaks {', '.join(HANDSHAKE_VERSIONS)}"
            )
        self.era = ERA_LEGACY
        self.protocol_version = str(agreed)
        self.server_capabilities = dict(result.get("capabilities") or {})
        self.server_info = dict(result.get("serverInfo") or {})
        self.instructions = result.get("instructions")
        self._tell_transport()
        await self.session.notify("notifications/initialized")
        open_listen = getattr(self.transport, "open_listen_stream", None)
        if open_listen is not None:
            open_listen()
        if self.log_level is not None and "logging" in self.server_capabilities:
            await self.set_logging_level(self.log_level)

    def _tell_transport(self) -> None:
        # HTTP transports put the version in a header and cancel differently per era.
        if hasattr(self.transport, "protocol_version"):
            transport = cast(EraAwareTransport, self.transport)
            transport.protocol_version = self.protocol_version
            transport.modern = self.era == ERA_MODERN

    def _meta(self, version: str | None = None) -> JSONObject:
        meta: JSONObject = {
            META_PROTOCOL_VERSION: version or self.protocol_version,
            META_CLIENT_CAPABILITIES: self.capabilities(),
            META_CLIENT_INFO: self.client_info,
        }
        if self.log_level is not None:
            meta[META_LOG_LEVEL] = self.log_level
        return meta

    def _request_meta(self) -> JSONObject:
        """`_meta()` for a request of this era, built once for each version and log level and then
        shared by every request (nothing changes it: the messages are only encoded)."""
        cached = self._meta_cache
        if (
            cached is None
            or cached[0] != self.protocol_version
            or cached[1] != self.log_level
            or cached[2] is not self.options  # (the capabilities come from the callbacks given)
        ):
            cached = self._meta_cache = (self.protocol_version, self.log_level, self.options, self._meta())
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
        """Send any request in the negotiated era; returns the result object."""
        if self.era == ERA_MODERN:
            params = dict(params or {})
            given = params.get("_meta")
            meta = self._request_meta()
            params["_meta"] = {**given, **meta} if given else meta
        try:
            result = await self.session.request(method, params, timeout=timeout, progress=progress)
        except SessionExpired:
            # The server dropped our HTTP session: a new handshake, then the same request once more.
            await self._initialize(self.protocol_version or LATEST_HANDSHAKE)
            result = await self.session.request(method, params, timeout=timeout, progress=progress)
        if self.era == ERA_MODERN and isinstance(result, dict) and not _completed(result):
            result = await self._complete_input_rounds(method, params or {}, result, timeout, progress)
        return result

    async def _complete_input_rounds(
        self,
        method: str,
        params: JSONObject,
        result: JSONObject,
        timeout: float | None,
        progress: ProgressCallback | None,
    ) -> JSONObject:
        """Stateless-era servers ask for input by result, then expect a retry with answers."""
        for _round in range(MAX_INPUT_ROUNDS):
            if _completed(result):
                return result
            kind = result.get("resultType")
            if kind != "input_required":
                raise ProtocolError(f"{method} returned an unknown resultType {kind!r}")
            answers: JSONObject = {}
            for key, embedded in (result.get("inputRequests") or {}).items():
                answers[key] = await self._answer_embedded(embedded)
            retry = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
            retry["inputResponses"] = answers
            if "requestState" in result:
                retry["requestState"] = result["requestState"]
            result = await self.session.request(method, retry, timeout=timeout, progress=progress)
            if not isinstance(result, dict):
                raise ProtocolError(f"{method} returned a non-object result")
        raise ProtocolError(f"{method} asked for input more than {MAX_INPUT_ROUNDS} times")

    async def _answer_embedded(self, embedded: Any) -> Any:
        if not isinstance(embedded, dict):
            raise ProtocolError("an input request is not an object")
        method = embedded.get("method")
        params = embedded.get("params")
        return await self._serve(str(method), params if isinstance(params, dict) else {})

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        await self.session.notify(method, params)

    async def list_all(self, method: str, key: str) -> list[JSONObject]:
        """Follow nextCursor to the end (an empty-string cursor is not the end)."""
        items: list[JSONObject] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            result = await self.request(method, {"cursor": cursor} if cursor is not None else None)
            page = result.get(key) if isinstance(result, dict) else None
            if not isinstance(page, list):
                raise ProtocolError(f"{method} returned no {key!r} list")
            items.extend(page)
            cursor = result.get("nextCursor")
            if cursor is None:
                return items
            if not isinstance(cursor, str) or cursor in seen:
                raise ProtocolError(f"{method} returned a repeating or invalid cursor")
            seen.add(cursor)

    async def list_tools(self) -> list[JSONObject]:
        tools = await self.list_all("tools/list", "tools")
        if getattr(self.transport, "param_headers", None) is None:
            return tools
        kept: list[JSONObject] = []
        for tool in tools:
            if not self._learn_tool(tool, live=True):
                # 2026-07-28: a client on HTTP must drop tools with an invalid x-mcp-header.
                log.warning("dropping tool %r: invalid x-mcp-header annotation", tool.get("name"))
                continue
            kept.append(tool)
        return kept

    def know_tools(self, tools: Sequence[JSONObject]) -> None:
        """Tool definitions known ahead of a live listing (a generated client's catalog): their
        x-mcp-header annotations give the Mcp-Param-* headers, and tools whose annotation is
        invalid are refused over HTTP. A later list_tools() overrides what it lists."""
        if getattr(self.transport, "param_headers", None) is None:
            return
        for tool in tools:
            if isinstance(tool, dict):
                self._learn_tool(tool, live=False)

    def _learn_tool(self, tool: JSONObject, *, live: bool) -> bool:
        """Record one tool's Mcp-Param-* headers; False if its x-mcp-header is invalid."""
        param_headers = cast(EraAwareTransport, self.transport).param_headers
        name = str(tool.get("name"))
        headers = param_headers_of(tool)
        if not live and (name in param_headers or name in self._refused_tools):
            return headers is not None  # the live listing already spoke for this tool
        param_headers.pop(name, None)
        self._refused_tools.discard(name)
        if headers is None:
            self._refused_tools.add(name)
            return False
        if headers:
            param_headers[name] = headers
        return True

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
        if name in self._refused_tools:
            raise ProtocolError(f"tool {name!r} has an invalid x-mcp-header annotation; it is not called over HTTP")
        params: JSONObject = {"name": name, "arguments": dict(arguments or {})}
        result = await self.request("tools/call", params, timeout=timeout, progress=progress)
        if not isinstance(result, dict):
            raise ProtocolError("tools/call returned a non-object result")
        return result

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
        self._resource_uris[uri] = None
        try:
            honored = await self._relisten_resources()
        except BaseException:
            self._resource_uris.pop(uri, None)
            raise
        if uri not in honored:
            self._resource_uris.pop(uri, None)
            await self._relisten_resources()
            raise ProtocolError(f"the server does not offer updates of {uri}")

    async def unsubscribe_resource(self, uri: str) -> None:
        if self.era != ERA_MODERN:
            await self.request("resources/unsubscribe", {"uri": uri})
            return
        if self._resource_uris.pop(uri, 0) is None:
            await self._relisten_resources()

    async def _relisten_resources(self) -> list[str]:
        """Open a stream for the current uris before closing the old one, so nothing is missed."""
        old = self._resource_listen
        self._resource_listen = None
        if self._resource_uris:
            wanted: JSONObject = {"resourceSubscriptions": list(self._resource_uris)}
            self._resource_listen = await self._open_listen(wanted, collect=False)
        if old is not None:
            await old.aclose()
        honored = self._resource_listen.honored.get("resourceSubscriptions") if self._resource_listen else None
        return [u for u in honored or () if isinstance(u, str)]

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
        return await self._open_listen(wanted, collect=True)

    async def _open_listen(self, wanted: JSONObject, *, collect: bool) -> Subscription:
        if self.era != ERA_MODERN:
            raise ProtocolError(
                f"subscriptions/listen is a 2026-07-28 method; this server speaks {self.protocol_version}: "
                "use subscribe_resource() and on_list_changed"
            )
        request_id = self.session.next_id()
        subscription = Subscription(request_id, collect=collect)
        self._listens[request_id] = subscription
        params: JSONObject = {"notifications": wanted, "_meta": self._meta()}
        task = asyncio.get_running_loop().create_task(
            self.session.request("subscriptions/listen", params, timeout=math.inf, request_id=request_id)
        )
        task.add_done_callback(lambda _t: self._listens.pop(request_id, None))
        subscription.attach(task)
        try:
            await asyncio.wait_for(asyncio.shield(subscription.acknowledged), self.session.timeout)
        except asyncio.TimeoutError:
            await subscription.aclose()
            raise RequestTimeout("the server did not acknowledge subscriptions/listen") from None
        except BaseException:
            await subscription.aclose()
            raise
        return subscription

    def listen_resource_updates(self) -> asyncio.Queue[str]:
        """A queue that receives the uri of every notifications/resources/updated from now on."""
        queue: asyncio.Queue[str] = asyncio.Queue()
        self._update_queues.add(queue)
        return queue

    def stop_listening(self, queue: asyncio.Queue[str]) -> None:
        self._update_queues.discard(queue)

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
        return await self._serve(method, params)

    async def _serve(self, method: str, params: JSONObject) -> Any:
        if method == "ping":
            return {}
        opts = self.options
        if method == "sampling/createMessage" and opts.on_sampling is not None:
            return await opts.on_sampling(params)
        if method == "elicitation/create" and opts.on_elicitation is not None:
            return await opts.on_elicitation(params)
        if method == "roots/list" and opts.on_roots is not None:
            return {"roots": await opts.on_roots()}
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")

    async def _on_notification(self, method: str, params: JSONObject) -> None:
        meta = params.get("_meta")
        tag = meta.get(META_SUBSCRIPTION_ID) if isinstance(meta, dict) else None
        subscription = self._listens.get(tag) if isinstance(tag, (int, str)) else None
        if subscription is not None:
            subscription.on_frame(method, params)
        if method == SUBSCRIPTION_ACKNOWLEDGED:
            return
        if method == "notifications/message":
            if self.options.on_log is not None:
                await _maybe_await(self.options.on_log(params))
            else:
                log.info("server log [%s] %s", params.get("level"), params.get("data"))
        elif method == "notifications/resources/updated":
            uri = params.get("uri")
            if isinstance(uri, str):
                for queue in list(self._update_queues):
                    queue.put_nowait(uri)
        elif method.endswith("/list_changed") and method.startswith("notifications/"):
            kind = method[len("notifications/") : -len("/list_changed")]
            if self.options.on_list_changed is not None:
                await _maybe_await(self.options.on_list_changed(kind))


async def _maybe_await(value: Any) -> None:
    if inspect.isawaitable(value):
        await value


def _completed(result: JSONObject) -> bool:
    """Is this stateless-era result the complete answer (its resultType dropped), rather than a
    request for input? Checked before any input round is started: nearly every result is."""
    if result.get("resultType", "complete") != "complete":
        return False
    result.pop("resultType", None)
    return True


def _supported_versions(data: Any) -> list[str]:
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return [v for v in data["supported"] if isinstance(v, str)]
    return []


@contextlib.asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    options: StdioOptions | ConnectOptions | None = None,
    **overrides: Unpack[StdioKwargs],
) -> AsyncIterator[ClientSession]:
    """Spawn a stdio MCP server, agree on a protocol, yield the session, then stop the server.

    Options (see StdioOptions) come as an object, as keywords, or both (keywords win).
    """
    opts = StdioOptions.build(options, overrides, caller="connect_stdio")
    transport = StdioClientTransport(
        command,
        args,
        env=opts.env,
        cwd=opts.cwd,
        wire_log=open_wire_log(opts.wire_log),
        shutdown_grace=opts.shutdown_grace,
    )
    await transport.start()
    client = ClientSession(transport, opts)
    try:
        await client.connect()
        yield client
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def connect_http(
    url: str,
    *,
    options: HttpOptions | ConnectOptions | None = None,
    **overrides: Unpack[HttpKwargs],
) -> AsyncIterator[ClientSession]:
    """Connect to an MCP server at an HTTP URL.

    Options (see HttpOptions) come as an object, as keywords, or both (keywords win).
    transport="auto" speaks Streamable HTTP and falls back to the legacy HTTP+SSE
    transport (2024-11-05) when the server refuses POSTs with 400/404/405;
    "streamable" or "sse" pick one.
    """
    from ..transports.http_client import HttpError, LegacySseTransport, StreamableHttpTransport

    opts = HttpOptions.build(options, overrides, caller="connect_http")
    client: ClientSession | None = None
    if opts.transport in ("auto", "streamable"):
        streamable = StreamableHttpTransport(
            url,
            headers=opts.headers,
            wire_log=open_wire_log(opts.wire_log),
            timeout=opts.timeout,
            max_message_bytes=opts.max_message_bytes,
            auth=opts.auth,
        )
        client = ClientSession(streamable, opts)
        try:
            await client.connect()
        except (HttpError, ConnectionClosed, RpcError) as exc:
            await client.aclose()
            status = getattr(exc, "status", None)
            if opts.transport == "streamable" or status not in (400, 404, 405):
                raise
            client = None
    if client is None:
        legacy = LegacySseTransport(
            url,
            headers=opts.headers,
            wire_log=open_wire_log(opts.wire_log),
            timeout=opts.timeout,
            max_message_bytes=opts.max_message_bytes,
        )
        try:
            await legacy.start(timeout=opts.connect_timeout)
        except BaseException:
            await legacy.close()
            raise
        client = ClientSession(legacy, opts)
        try:
            await client.connect(ERA_LEGACY if opts.protocol == "auto" else opts.protocol)
        except BaseException:
            await client.aclose()
            raise
    try:
        yield client
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def connect_memory(
    server: MemoryServable,
    *,
    options: ConnectOptions | None = None,
    **overrides: Unpack[ConnectKwargs],
) -> AsyncIterator[ClientSession]:
    """Connect to a `runtime.server.Server` (a generated server's `build_server(...)`, a mock) in
    this process and event loop: no subprocess, no socket, either era (`protocol=`).

    Messages still travel as encoded JSON, so the server sees exactly what a wire would carry.
    `wire_log` is ignored: nothing crosses a process boundary.
    """
    opts = ConnectOptions.build(options, overrides, caller="connect_memory")
    link = MemoryLink(server)
    client = ClientSession(link.client, opts)
    try:
        await client.connect()
        yield client
    finally:
        await client.aclose()
        await link.close()


__all__ = ["ClientSession", "connect_http", "connect_memory", "connect_stdio", "McpError"]
