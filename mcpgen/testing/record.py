"""`mcpgen record`: a stdio MCP server that proxies a real one and writes the session to a cassette.

The proxy connects to the real server (a command or a URL) with the runtime's own client, reads
its catalog, and serves that catalog over stdio: every tools/call, prompts/get and
resources/read goes upstream and its answer, or its JSON-RPC error, is written down (redacted)
before it goes back. Recording at this level, not byte for byte, keeps cassettes independent
of the era and transport either side spoke, which is what lets `mcpgen mock --replay` serve one
over any of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog.model import Catalog, Problem
from ..runtime.client.connect import connect_http, connect_stdio
from ..runtime.client.session import ClientSession
from ..runtime.core.errors import McpError, RpcError
from ..runtime.server.server import Server
from ..sources.live import ListFailed, _describe, _Progress, _read_catalog
from ..sources.secrets import argv_secrets, public_url, scrub, shown_command, url_secrets
from .cassette import CassetteWriter, Redactor, catalog_server


@dataclass(frozen=True)
class RecordRequest:
    output: Path
    command: tuple[str, ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    redact_fields: tuple[str, ...] = ()
    connect_timeout: float = 30.0
    secrets: tuple[str, ...] = field(default=())
    # A failing prompts or resources list ends the recording (else the proxy goes on without it).
    strict_lists: bool = False


@contextlib.asynccontextmanager
async def _upstream(request: RecordRequest) -> AsyncIterator[ClientSession]:
    if request.url:
        async with connect_http(
            request.url, headers=dict(request.headers), connect_timeout=request.connect_timeout
        ) as session:
            yield session
    else:
        command, *args = request.command
        async with connect_stdio(command, args, connect_timeout=request.connect_timeout) as session:
            yield session


def source_secrets(request: RecordRequest) -> list[str]:
    """What the source itself carries that is secret: every header value (a token may go under
    any name), the URL's userinfo and token parameters, a command's secret-looking arguments.
    A server may echo any of them back (an error quoting its URL, a tool reporting its config)."""
    return [
        *(value for _name, value in request.headers),
        *(url_secrets(request.url) if request.url else ()),
        *argv_secrets(request.command),
        *request.secrets,
    ]


def redactor_for(request: RecordRequest) -> Redactor:
    return Redactor.build(request.redact_fields, source_secrets(request))


async def record(request: RecordRequest) -> None:
    """Proxy stdin/stdout to the real server until the client goes, writing the cassette."""
    async with _upstream(request) as upstream:
        catalog = await _read_catalog(upstream, asyncio.Event(), _Progress(enabled=False), request.strict_lists, None)
        writer = CassetteWriter(
            request.output,
            catalog,
            redactor_for(request),
            redacted_headers=[name for name, _value in request.headers],
        )
        try:
            await proxy_server(catalog, upstream, writer).serve_stdio()
        finally:
            writer.close()


def proxy_server(catalog: Catalog, upstream: ClientSession, writer: CassetteWriter) -> Server:
    """The catalog served over stdio: every request goes upstream and is written down on its way back."""

    async def forward(method: str, params: dict[str, Any]) -> Any:
        try:
            result = await upstream.request(method, params)
        except RpcError as exc:
            writer.exchange(method, params, error=exc)
            raise
        writer.exchange(method, params, result=result)
        return result

    return catalog_server(catalog, forward, "mcpgen-record")


def run_record(request: RecordRequest) -> list[Problem]:
    """Record until the client goes; a server that cannot be reached or read is one Problem
    naming the source (its secrets masked), as for every other live source."""
    where = public_url(request.url) if request.url else shown_command(request.command)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(record(request))
    except ListFailed as exc:
        return [Problem(where, scrub(exc.message, source_secrets(request)))]
    except (McpError, OSError, TimeoutError) as exc:
        return [Problem(where, scrub(_describe(exc, request.connect_timeout), source_secrets(request)))]
    return []


__all__ = ["RecordRequest", "proxy_server", "record", "redactor_for", "run_record", "source_secrets"]
