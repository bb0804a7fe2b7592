"""Connecting a ClientSession: over stdio (a server process we start), Streamable HTTP (falling
back to the legacy HTTP+SSE transport) or memory (a server object in this event loop). Each
yields a session that has agreed on an era, and closes it (and what it started) on the way out.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING

from ..core.errors import ConnectionClosed, HttpError, RpcError
from ..core.extras import require_module
from ..core.protocol import ERA_LEGACY
from ..transports.memory import MemoryLink, MemoryServable
from ..transports.stdio import StdioClientTransport
from ..transports.wirelog import open_wire_log
from .options import ConnectKwargs, ConnectOptions, HttpKwargs, HttpOptions, StdioKwargs, StdioOptions
from .session import ClientSession

if TYPE_CHECKING:
    # Runtime code stays standard-library only; type checkers ship typing_extensions' stubs.
    from typing_extensions import Unpack


@contextlib.asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    options: StdioOptions | ConnectOptions | None = None,
    **overrides: Unpack[StdioKwargs],
) -> AsyncGenerator[ClientSession, None]:
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
) -> AsyncGenerator[ClientSession, None]:
    """Connect to an MCP server at an HTTP URL.

    Options (see HttpOptions) come as an object, as keywords, or both (keywords win).
    transport="auto" speaks Streamable HTTP and falls back to the legacy HTTP+SSE
    transport (2024-11-05) when the server refuses POSTs with 400/404/405;
    "streamable" or "sse" pick one.
    """
    opts = HttpOptions.build(options, overrides, caller="connect_http")
    require_module("httpx", extra="http", feature="connect_http")
    client, refused = await _connect_streamable(url, opts) if opts.transport in ("auto", "streamable") else (None, None)
    if client is None:
        try:
            client = await _connect_legacy_sse(url, opts)
        except HttpError as exc:
            if refused is None:
                raise
            raise HttpError(exc.status, _not_served(url, refused, exc.status)) from None
    try:
        yield client
    finally:
        await client.aclose()


def _not_served(url: str, post: int, get: int) -> str:
    """Both transports refused: most often the URL's path is not where the server serves MCP."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path or "/"
    return (
        f"nothing serves MCP at {path}: a POST (Streamable HTTP) answered {post} and a GET (legacy"
        f" HTTP+SSE) answered {get}; check the URL's path (servers usually serve /mcp, legacy ones /sse)"
    )


async def _connect_streamable(url: str, opts: HttpOptions) -> tuple[ClientSession | None, int | None]:
    """A session over Streamable HTTP; (None, the status) when transport="auto" and the server
    refused the POST with 400/404/405 (a legacy HTTP+SSE server, or the wrong path)."""
    from ..transports.http_client import StreamableHttpTransport

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
    except BaseException as exc:
        # Closed whatever failed (a timeout, a protocol error, a cancellation too): its reader and
        # POST tasks must not be left pending ("Task was destroyed but it is pending").
        await client.aclose()
        status = getattr(exc, "status", None) if isinstance(exc, (HttpError, ConnectionClosed, RpcError)) else None
        if opts.transport == "streamable" or status not in (400, 404, 405):
            raise
        return None, status
    return client, None


async def _connect_legacy_sse(url: str, opts: HttpOptions) -> ClientSession:
    """A session over the legacy HTTP+SSE transport (2024-11-05), in the handshake era."""
    from ..transports.http_client import LegacySseTransport

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
    return client


@contextlib.asynccontextmanager
async def connect_memory(
    server: MemoryServable,
    *,
    options: ConnectOptions | None = None,
    **overrides: Unpack[ConnectKwargs],
) -> AsyncGenerator[ClientSession, None]:
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
