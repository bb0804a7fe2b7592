"""Catalogs read from a running stdio server through mcpgen.runtime."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..catalog.build import build_catalog
from ..catalog.model import Catalog, Problem

MAX_RELISTS = 5  # a server that changes its tools on every listing is not worth waiting for


class _Progress:
    """One overwritten status line on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def __call__(self, text: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r\x1b[K{text}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


async def fetch_catalog(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout: float = 30.0,
    timeout: float = 60.0,
    record_command: bool = True,
) -> Catalog:
    from ..runtime import connect_stdio

    progress = _Progress()
    changed = asyncio.Event()
    full_env = {**os.environ, **env} if env else None
    progress(f"starting {command} ...")
    try:
        async with connect_stdio(
            command,
            list(args),
            env=full_env,
            cwd=cwd,
            timeout=timeout,
            connect_timeout=connect_timeout,
            on_list_changed=_on_tools_changed(changed),
        ) as session:
            return await _read_catalog(session, changed, progress, (command, *args) if record_command else None)
    finally:
        progress.done()


async def fetch_catalog_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    connect_timeout: float = 30.0,
    timeout: float = 60.0,
) -> Catalog:
    from ..runtime import connect_http
    from ..runtime.client.auth.environment import auth_for_run

    progress = _Progress()
    changed = asyncio.Event()
    progress(f"connecting to {url} ...")
    # A given Authorization header wins; else client credentials from the environment or the
    # login `mcpgen login URL` stored (never a new interactive login in the middle of a build).
    given = any(name.lower() == "authorization" for name in headers or {})
    try:
        async with connect_http(
            url,
            headers=headers,
            auth=None if given else auth_for_run(),
            timeout=timeout,
            connect_timeout=connect_timeout,
            on_list_changed=_on_tools_changed(changed),
        ) as session:
            # Headers (tokens) are never recorded: only the URL travels into generated code.
            return await _read_catalog(session, changed, progress, None, url)
    finally:
        progress.done()


def _on_tools_changed(changed: asyncio.Event) -> Any:
    def on_list_changed(kind: str) -> None:
        if kind == "tools":
            changed.set()

    return on_list_changed


async def _read_catalog(
    session: Any,
    changed: asyncio.Event,
    progress: _Progress,
    source_command: tuple[str, ...] | None,
    source_url: str | None = None,
) -> Catalog:
    """Everything a connected session offers: tools (re-read while they change), prompts, resources."""
    progress(f"connected to {session.server_info.get('name', 'server')}; listing tools ...")
    tools = await session.list_tools()
    for _ in range(MAX_RELISTS):  # the list changed while we read it: read it again
        if not changed.is_set():
            break
        changed.clear()
        progress("tool list changed; listing again ...")
        tools = await session.list_tools()
    caps = session.server_capabilities
    prompts = await session.list_prompts() if "prompts" in caps else []
    resources = await session.list_resources() if "resources" in caps else []
    templates = await session.list_resource_templates() if "resources" in caps else []
    instructions = session.instructions
    catalog, problems = build_catalog(
        tools,
        server_info=dict(session.server_info),
        protocol_version=session.protocol_version or None,
        prompts=prompts,
        resources=resources,
        resource_templates=templates,
        source_command=source_command,
        source_url=source_url,
        instructions=instructions if isinstance(instructions, str) else None,
    )
    if not all(p.skippable for p in problems):
        from ..catalog.model import StageError

        raise StageError(problems)
    # Invalid tools that --skip-invalid may leave out travel with the catalog.
    return replace(catalog, refused=tuple(problems))


def load_live(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout: float = 30.0,
    record_command: bool = True,
) -> tuple[Catalog | None, list[Problem]]:
    """Errors are values: a server that cannot be started or read becomes one Problem.

    record_command=False keeps the command out of the catalog (and so out of generated
    code), e.g. when it holds expanded secrets.
    """
    where = " ".join([command, *args])
    return _run(
        fetch_catalog(command, args, env=env, cwd=cwd, connect_timeout=connect_timeout, record_command=record_command),
        where,
        connect_timeout,
    )


def load_live_http(
    url: str, *, headers: Mapping[str, str] | None = None, connect_timeout: float = 30.0
) -> tuple[Catalog | None, list[Problem]]:
    """A catalog from a Streamable HTTP (or legacy HTTP+SSE) server; errors are values."""
    return _run(fetch_catalog_http(url, headers=headers, connect_timeout=connect_timeout), url, connect_timeout)


def _run(
    coro: Coroutine[Any, Any, Catalog], where: str, connect_timeout: float
) -> tuple[Catalog | None, list[Problem]]:
    from ..catalog.model import StageError
    from ..runtime import McpError

    try:
        catalog = asyncio.run(coro)
        return catalog, list(catalog.refused)
    except StageError as exc:
        return None, exc.problems
    except (McpError, OSError, TimeoutError) as exc:
        return None, [Problem(where, _describe(exc, connect_timeout))]


def _describe(exc: BaseException, connect_timeout: float) -> str:
    from ..runtime import ConnectionClosed, ProtocolError, RequestTimeout, RpcError

    if isinstance(exc, FileNotFoundError):
        return f"cannot start server: command not found ({exc.filename or exc})"
    if isinstance(exc, (RequestTimeout, TimeoutError)):
        return f"server did not answer within {connect_timeout:g}s"
    if isinstance(exc, ConnectionClosed):
        return str(exc) or "server exited or closed the connection"
    if isinstance(exc, ProtocolError):
        return f"protocol error: {exc}"
    if isinstance(exc, RpcError):
        return f"server returned an error: {exc}"
    return f"cannot read tools from server: {exc}"
