"""Catalogs read from a running stdio server through mcpgen.runtime."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..catalog import Catalog, Problem, build_catalog

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
) -> Catalog:
    from ..runtime import connect_stdio

    progress = _Progress()
    changed = asyncio.Event()

    def on_list_changed(kind: str) -> None:
        if kind == "tools":
            changed.set()

    full_env = {**os.environ, **env} if env else None
    progress(f"starting {command} ...")
    try:
        async with connect_stdio(
            command, list(args), env=full_env, cwd=cwd, timeout=timeout,
            connect_timeout=connect_timeout, on_list_changed=on_list_changed,
        ) as session:
            progress(f"connected to {session.server_info.get('name', command)}; listing tools ...")
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
            catalog, problems = build_catalog(
                tools,
                server_info=dict(session.server_info),
                protocol_version=session.protocol_version or None,
                prompts=prompts,
                resources=resources,
                resource_templates=templates,
                source_command=(command, *args),
            )
    finally:
        progress.done()
    if not all(p.skippable for p in problems):
        from ..catalog import StageError

        raise StageError(problems)
    return replace(catalog, refused=tuple(problems))


def load_live(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout: float = 30.0,
) -> tuple[Catalog | None, list[Problem]]:
    """Errors are values: a server that cannot be started or read becomes one Problem."""
    from ..catalog import StageError
    from ..runtime import McpError

    where = " ".join([command, *args])
    try:
        catalog = asyncio.run(fetch_catalog(command, args, env=env, cwd=cwd, connect_timeout=connect_timeout))
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
