"""Catalogs read from a running stdio server through mcpgen.runtime."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..catalog.build import build_catalog
from ..catalog.model import Catalog, FailedList, Problem
from .secrets import argv_secrets, public_url, scrub, shown_command, url_secrets

MAX_RELISTS = 5  # a server that changes its tools on every listing is not worth waiting for
# A server being read only has to list its catalog: once stdin is closed it gets this long to
# exit before SIGTERM (and as long again before SIGKILL), so a failure or Ctrl-C ends at once.
SHUTDOWN_GRACE = 0.1
# At most this much of what a server printed instead of MCP is quoted in an error.
QUOTED_OUTPUT_CHARS = 200


class _PeerOutput(logging.Handler):
    """The runtime's log records while a catalog is read: kept, not printed (on failure stderr
    holds only error lines), and what the server wrote to stdout that was not MCP remembered
    for the error message."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.stdout = ""

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.endswith(".session") and str(record.msg).startswith("skipping a non-JSON line"):
            if len(self.stdout) < QUOTED_OUTPUT_CHARS and record.args:
                args = record.args if isinstance(record.args, tuple) else (record.args,)
                self.stdout += str(args[0]) + "\n"

    @contextlib.contextmanager
    def capturing(self) -> Iterator[_PeerOutput]:
        logger = logging.getLogger("mcpgen.runtime")
        saved = logger.propagate, logger.level
        logger.addHandler(self)
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
        try:
            yield self
        finally:
            logger.removeHandler(self)
            logger.propagate, logger.level = saved

    def quoted(self) -> str:
        """What the server printed, escaped (control characters shown as \\x..) and bounded."""
        text = self.stdout[:QUOTED_OUTPUT_CHARS]
        return repr(text) + ("..." if len(self.stdout) > QUOTED_OUTPUT_CHARS else "")


class _Progress:
    """Notes while a live server is read: the console's updating line (a terminal only).
    `enabled=False` for callers that are themselves a stdio server (mcpgen record)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled

    def __call__(self, text: str) -> None:
        if not self.enabled:
            return
        from ..console import console

        console.status(text)

    def done(self) -> None:
        pass


async def fetch_catalog(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout: float = 30.0,
    timeout: float = 60.0,
    record_command: bool = True,
    strict_lists: bool = False,
) -> Catalog:
    from ..runtime import connect_stdio

    progress = _Progress()
    changed = asyncio.Event()
    full_env = {**os.environ, **env} if env else None
    progress(f"starting {shown_command([command])} ...")
    try:
        async with connect_stdio(
            command,
            list(args),
            env=full_env,
            cwd=cwd,
            timeout=timeout,
            connect_timeout=connect_timeout,
            shutdown_grace=SHUTDOWN_GRACE,
            on_list_changed=_on_tools_changed(changed),
        ) as session:
            # A command holding a token is not recorded: connect() then needs it given.
            recorded = record_command and not argv_secrets([command, *args])
            command_kept = (command, *args) if recorded else None
            return await _read_catalog(session, changed, progress, strict_lists, command_kept)
    finally:
        progress.done()


async def fetch_catalog_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    connect_timeout: float = 30.0,
    timeout: float = 60.0,
    strict_lists: bool = False,
) -> Catalog:
    from ..runtime import connect_http
    from ..runtime.client.auth.environment import auth_for_run

    progress = _Progress()
    changed = asyncio.Event()
    progress(f"connecting to {public_url(url)} ...")
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
            return await _read_catalog(session, changed, progress, strict_lists, None, public_url(url))
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
    strict_lists: bool,
    source_command: tuple[str, ...] | None,
    source_url: str | None = None,
) -> Catalog:
    """Everything a connected session offers: tools (re-read while they change), prompts, resources."""
    progress(f"connected to {session.server_info.get('name', 'server')}; listing tools ...")
    tools = await _required(session.list_tools(), "tools/list")
    for _ in range(MAX_RELISTS):  # the list changed while we read it: read it again
        if not changed.is_set():
            break
        changed.clear()
        progress("tool list changed; listing again ...")
        tools = await _required(session.list_tools(), "tools/list")
    caps = session.server_capabilities
    failed: list[FailedList] = []
    lists: dict[str, list[Any]] = {}
    for method, (capability, _) in _LISTERS.items():
        lists[method] = await _optional(session, method, strict_lists, failed) if capability in caps else []
    instructions = session.instructions
    catalog, problems = build_catalog(
        tools,
        server_info=dict(session.server_info),
        protocol_version=session.protocol_version or None,
        prompts=lists["prompts/list"],
        resources=lists["resources/list"],
        resource_templates=lists["resources/templates/list"],
        source_command=source_command,
        source_url=source_url,
        instructions=instructions if isinstance(instructions, str) else None,
        failed_lists=tuple(failed),
        extensions=caps.get("extensions"),
    )
    if not all(p.skippable for p in problems):
        from ..catalog.model import StageError

        raise StageError(problems)
    # Invalid tools that --skip-invalid may leave out travel with the catalog.
    return replace(catalog, refused=tuple(problems))


class ListFailed(Exception):
    """A list the catalog cannot go without failed (tools/list, or any list under --strict-lists)."""

    def __init__(self, method: str, cause: BaseException) -> None:
        super().__init__(method)
        self.method = method
        self.cause = cause

    @property
    def message(self) -> str:
        hint = "" if self.method == "tools/list" else " (--strict-lists is set: without it the rest is generated)"
        return f"{self.method} failed: {_said(self.cause)}{hint}"


# What a failing list answers; the session is still usable after each (a closed one is not).
def _list_errors() -> tuple[type[BaseException], ...]:
    from ..runtime import ProtocolError, RequestTimeout, RpcError

    return (RpcError, ProtocolError, RequestTimeout)


async def _required(listing: Coroutine[Any, Any, list[Any]], method: str) -> list[Any]:
    try:
        return await listing
    except _list_errors() as exc:
        raise ListFailed(method, exc) from exc


# Each optional list: the capability that offers it, and the session's method that reads it
# (catalog.model.OPTIONAL_LISTS says what they hold).
_LISTERS = {
    "prompts/list": ("prompts", "list_prompts"),
    "resources/list": ("resources", "list_resources"),
    "resources/templates/list": ("resources", "list_resource_templates"),
}


async def _optional(session: Any, method: str, strict: bool, failed: list[FailedList]) -> list[Any]:
    """The rule for optional lists, in one place: tools are the contract, so a prompts or
    resources list the server fails is left out and recorded (catalog.failed_lists, a warning
    wherever the catalog is used); `strict` (--strict-lists) makes it an error instead."""
    try:
        return list(await getattr(session, _LISTERS[method][1])())
    except _list_errors() as exc:
        if strict:
            raise ListFailed(method, exc) from exc
        failed.append(FailedList(method, _said(exc)))
        return []


def load_live(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout: float = 30.0,
    record_command: bool = True,
    shown: str | None = None,
    strict_lists: bool = False,
) -> tuple[Catalog | None, list[Problem]]:
    """Errors are values: a server that cannot be started or read becomes one Problem.

    record_command=False keeps the command out of the catalog (and so out of generated
    code), e.g. when it holds expanded secrets; one whose arguments look like secrets is never
    recorded. `shown` names the source in problems (else the command, its secrets masked);
    no env value and no secret argument appears in a problem.
    """
    argv = [command, *args]
    secrets = [*argv_secrets(argv), *(env or {}).values()]
    return _run(
        fetch_catalog(
            command,
            args,
            env=env,
            cwd=cwd,
            connect_timeout=connect_timeout,
            record_command=record_command,
            strict_lists=strict_lists,
        ),
        shown or shown_command(argv),
        connect_timeout,
        secrets,
    )


def load_live_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    connect_timeout: float = 30.0,
    strict_lists: bool = False,
    shown: str | None = None,
) -> tuple[Catalog | None, list[Problem]]:
    """A catalog from a Streamable HTTP (or legacy HTTP+SSE) server; errors are values (naming
    the URL without its userinfo and token parameters, and no header value)."""
    secrets = [*url_secrets(url), *(headers or {}).values()]
    return _run(
        fetch_catalog_http(url, headers=headers, connect_timeout=connect_timeout, strict_lists=strict_lists),
        shown or public_url(url),
        connect_timeout,
        secrets,
    )


def _run(
    coro: Coroutine[Any, Any, Catalog], where: str, connect_timeout: float, secrets: Sequence[str] = ()
) -> tuple[Catalog | None, list[Problem]]:
    from ..catalog.model import StageError
    from ..runtime import McpError

    output = _PeerOutput()
    try:
        with output.capturing():
            catalog = asyncio.run(coro)
        return catalog, list(catalog.refused)
    except StageError as exc:
        return None, exc.problems
    except ListFailed as exc:
        return None, [Problem(where, scrub(exc.message, secrets))]
    except (McpError, OSError, TimeoutError) as exc:
        message = _describe(exc, connect_timeout)
        if output.stdout:
            message += f"; it printed this instead of MCP messages on stdout: {output.quoted()}"
        return None, [Problem(where, scrub(message, secrets))]


def _said(exc: BaseException) -> str:
    """What a failed list's answer was, in a few words."""
    from ..runtime import RequestTimeout, RpcError

    if isinstance(exc, RpcError):
        return f"the server returned an error: {exc}"
    if isinstance(exc, RequestTimeout):
        return "the server did not answer in time"
    return f"protocol error: {exc}"


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
