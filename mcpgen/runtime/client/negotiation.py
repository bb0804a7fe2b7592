"""Agreeing on an era and a protocol version with a server: what `ClientSession.connect` runs.

protocol="auto" probes `server/discover` (the stateless 2026-07-28 era) and falls back to the
`initialize` handshake on anything that is not positive evidence of a modern server, as the
2026-07-28 versioning page asks.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from ..core import jsonrpc
from ..core.errors import McpError, ProtocolError, RequestTimeout, RpcError
from ..core.jsonrpc import JSONObject, is_array, is_object
from ..core.protocol import (
    ERA_LEGACY,
    ERA_MODERN,
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    MODERN_VERSIONS,
)
from ..core.transport import EraAwareTransport

if TYPE_CHECKING:
    from .session import ClientSession

# A probe answered by nothing at all (some legacy servers ignore unknown methods) must not
# stall the connection for the whole connect timeout.
PROBE_TIMEOUT = 10.0


def stateless_meta(client: ClientSession, version: str | None = None) -> JSONObject:
    """The `_meta` a 2026-07-28 request carries: the version, and what a handshake would have said."""
    meta: JSONObject = {
        META_PROTOCOL_VERSION: version or client.protocol_version,
        META_CLIENT_CAPABILITIES: client.capabilities(),
        META_CLIENT_INFO: client.client_info,
    }
    if client.log_level is not None:
        meta[META_LOG_LEVEL] = client.log_level
    return meta


class Negotiation:
    """One ClientSession's agreement with its server. It sets the session's era, protocol
    version, server capabilities, server info and instructions, and tells the transport."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client
        self.probe_timeout = PROBE_TIMEOUT

    async def run(self, protocol: str) -> None:
        """protocol: "auto", "legacy" or an exact version."""
        if protocol in HANDSHAKE_VERSIONS or protocol == ERA_LEGACY:
            await self.initialize(LATEST_HANDSHAKE if protocol == ERA_LEGACY else protocol)
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
                    result = await self.client.session.request(
                        "server/discover", self._discover_params(version), cancellable=False
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
                await self.initialize(LATEST_HANDSHAKE)
                return
            except RequestTimeout:
                if not fallback:
                    raise
                await self.initialize(LATEST_HANDSHAKE)
                return
            except McpError as exc:
                # An HTTP 400/404/405 without a JSON-RPC body: a handshake-era server.
                if not fallback or getattr(exc, "status", None) not in (400, 404, 405):
                    raise
                await self.initialize(LATEST_HANDSHAKE)
                return
            await self._take_discover(result, version, fallback=fallback)
            return
        raise ProtocolError("no protocol version in common with the server")

    async def _take_discover(self, result: Any, version: str, *, fallback: bool) -> None:
        """A server/discover answer: the modern era at the best mutual version, or (probing) the
        handshake for a server that lists only handshake versions."""
        if not is_object(result):
            raise ProtocolError("server/discover returned a non-object result")
        versions: list[Any] = result.get("supportedVersions") or []
        mutual = [v for v in MODERN_VERSIONS if v in versions]
        if not mutual:
            if fallback:
                # Answers discover but lists only handshake versions: a legacy advertisement.
                await self.initialize(LATEST_HANDSHAKE)
                return
            raise ProtocolError(f"the server does not support {version}")
        client = self.client
        client.era = ERA_MODERN
        client.protocol_version = mutual[0]
        self._tell_transport()
        client.server_capabilities = dict(result.get("capabilities") or {})
        meta: JSONObject = result.get("_meta") or {}
        client.server_info = dict(meta.get("io.modelcontextprotocol/serverInfo") or {})
        client.instructions = result.get("instructions")

    def _discover_params(self, version: str) -> JSONObject:
        return {"_meta": stateless_meta(self.client, version)}

    async def _probe(self, version: str) -> Any:
        """`server/discover` for protocol="auto"; None when the handshake era won instead.

        A server silent for the probe timeout also gets `initialize`, but the probe stays
        pending: a modern server that is merely slow (still importing at start, a loaded machine)
        answers the probe first, is taken at its word, and the handshake it no longer accepts
        is dropped. A legacy server ignores the probe and answers `initialize`."""
        discover = asyncio.ensure_future(
            self.client.session.request("server/discover", self._discover_params(version), cancellable=False)
        )
        initialize: asyncio.Future[None] | None = None
        try:
            done, _ = await asyncio.wait({discover}, timeout=self.probe_timeout)
            if done:
                return discover.result()  # an error goes to the caller's fallback rules
            initialize = asyncio.ensure_future(self.initialize(LATEST_HANDSHAKE))
            done, _ = await asyncio.wait({discover, initialize}, return_when=asyncio.FIRST_COMPLETED)
            # Both answers may arrive in one read. A handshake that succeeded stands (the server
            # now holds an initialized session); one it refused yields to a modern discover answer.
            handshake_refused = initialize in done and initialize.exception() is not None
            if discover in done and discover.exception() is None and (initialize not in done or handshake_refused):
                result = discover.result()
                versions = result.get("supportedVersions") if is_object(result) else None
                if is_array(versions) and any(v in MODERN_VERSIONS for v in versions):
                    return result
            await initialize  # the handshake era decides (its error, if any, is the caller's)
            initialize = None
            return None
        finally:
            for pending in (discover, initialize):
                if pending is not None and not pending.done():
                    pending.cancel()

    async def initialize(self, version: str) -> None:
        """The handshake era: initialize, then notifications/initialized (also the way back in
        after the server forgot our HTTP session)."""
        client = self.client
        params = {
            "protocolVersion": version,
            "capabilities": client.capabilities(),
            "clientInfo": client.client_info,
        }
        result = await client.session.request("initialize", params, cancellable=False)
        if not is_object(result):
            raise ProtocolError("initialize returned a non-object result")
        agreed = result.get("protocolVersion")
        if agreed not in HANDSHAKE_VERSIONS:
            raise ProtocolError(
                f"the server wants protocol version {agreed!r}; this client speaks {', '.join(HANDSHAKE_VERSIONS)}"
            )
        client.era = ERA_LEGACY
        client.protocol_version = str(agreed)
        client.server_capabilities = dict(result.get("capabilities") or {})
        client.server_info = dict(result.get("serverInfo") or {})
        client.instructions = result.get("instructions")
        self._tell_transport()
        await client.session.notify("notifications/initialized")
        # Always, whatever the client declared: the standalone GET stream is the one channel for
        # what the server sends unrelated to a request (transports, "Listening for Messages from
        # the Server"): a ping, an elicitation a tool asks without naming its call, list_changed
        # that re-pinning acts on. A server drops those while none is open; one offering none
        # answers 405 and costs a request (tests/runtime/transports/test_client_fast_path.py).
        open_listen = getattr(client.transport, "open_listen_stream", None)
        if open_listen is not None:
            open_listen()
        if client.log_level is not None and "logging" in client.server_capabilities:
            await client.set_logging_level(client.log_level)

    def _tell_transport(self) -> None:
        # HTTP transports put the version in a header and cancel differently per era.
        transport = self.client.transport
        if hasattr(transport, "protocol_version"):
            aware = cast(EraAwareTransport, transport)
            aware.protocol_version = self.client.protocol_version
            aware.modern = self.client.era == ERA_MODERN


def _supported_versions(data: Any) -> list[str]:
    if is_object(data) and is_array(data.get("supported")):
        return [v for v in data["supported"] if isinstance(v, str)]
    return []
