"""`serve_http`: one `Server` under uvicorn, as configured by a ServeOptions (blocking).

Light to import: uvicorn and the ASGI app load when `serve_http` is called, so that a server
started over stdio (which imports this module through `support.server`) never loads them.
"""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO, cast

from ...core.extras import install_hint, require_module
from ..options import ServeOptions

if TYPE_CHECKING:
    import socket

    from ..server import Server


def serve_http(
    server: Server, options: ServeOptions | None = None, *, sockets: list[socket.socket] | None = None
) -> None:
    """Run the server under uvicorn (blocking). Binds 127.0.0.1 unless told otherwise; with
    `options.auth`, an OAuth resource server (every request to the path needs a valid access token).

    With `options.announce`, one line on stderr says where it listens once the socket is bound
    (`serving MCP on http://127.0.0.1:8000/mcp`, the real port when the port is 0).
    `options.access_log` logs one line per request to stderr: off by default, since formatting
    every line costs speed. `options.store` shares sessions, stream logs and notifications with
    other workers (default: in memory). `sockets` are listening sockets bound already (a worker of
    `serve_http_workers` serves its supervisor's); host and port then only name them.
    """
    require_module("uvicorn", extra="http", feature="serving over HTTP")
    import uvicorn

    from .logs import rate_limited
    from .protocol import guarded_protocol

    options = options or ServeOptions()
    limits = options.limits
    app = _asgi_app(server, options)
    # uvicorn formats every access-log line's arguments before the logger drops them by level:
    # turned off unless asked for or that level would show it anyway.
    access_log = options.access_log or options.log_level.lower() in ("trace", "debug", "info")
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level=options.log_level,
        lifespan="off",
        access_log=access_log,
        http=guarded_protocol(limits, _connection_cap(limits.max_connections)),
        timeout_keep_alive=max(1, math.ceil(limits.keep_alive_timeout)),
        # X-Forwarded-* only rewrite the client address and scheme in the scope, which nothing but
        # the access log reads: without it, uvicorn's middleware would parse them on every request.
        proxy_headers=access_log,
        server_header=False,  # "server: uvicorn" on every response tells a client nothing it needs
    )
    # The loggers exist once uvicorn configured logging: floods of one failure become one line
    # per period (accept errors when descriptors run out, refused connections, bad requests).
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addFilter(rate_limited)
    if access_log:
        _access_log_to_stderr()
    server_class = _announcing_server(uvicorn.Server, options.path) if options.announce else uvicorn.Server
    server_class(config).run(sockets=sockets)


def _asgi_app(server: Server, options: ServeOptions) -> Any:
    """The app serving `server`, behind the resource-server checks when auth is on."""
    from .app import StreamableHttpApp

    app: Any = StreamableHttpApp(
        server,
        path=options.path,
        stateless=options.stateless,
        json_response=options.json_response,
        security=options.security,
        limits=options.limits,
        store=options.store,
    )
    if options.auth is None:
        return app
    try:
        from ..auth.resource import protect
    except ImportError as exc:  # joserfc: the `oauth` extra
        raise SystemExit(f"auth needs the oauth extra ({install_hint('joserfc', 'oauth')}): {exc}") from None
    return protect(app, server, options.auth, path=options.path, max_body_bytes=options.limits.max_body_bytes)


def _access_log_to_stderr() -> None:
    """uvicorn's access handler writes to stdout; every other line of the server goes to stderr."""
    access = logging.getLogger("uvicorn.access")
    access.setLevel(logging.INFO)
    for handler in access.handlers:
        if isinstance(handler, logging.StreamHandler):
            cast("logging.StreamHandler[TextIO]", handler).setStream(sys.stderr)  # (checked just above)


def _announcing_server(base: type[Any], path: str) -> type[Any]:
    """uvicorn's Server, saying on stderr where it listens once its sockets are bound."""

    class AnnouncingServer(base):  # type: ignore[misc]
        async def startup(self, sockets: Any = None) -> None:
            uvicorn_server: Any = super()  # (uvicorn's Server, given as type[Any])
            await uvicorn_server.startup(sockets=sockets)
            if self.should_exit:  # binding failed: uvicorn has logged why
                return
            for url in _listening_urls(self.servers, path):
                print(f"serving MCP on {url}", file=sys.stderr, flush=True)

    return AnnouncingServer


def _listening_urls(servers: Iterable[Any], path: str) -> list[str]:
    """One http:// URL per bound socket (IPv6 addresses in brackets)."""
    urls: list[str] = []
    for server in servers:
        for sock in getattr(server, "sockets", None) or ():
            address = sock.getsockname()
            if not isinstance(address, tuple):
                continue
            fields = cast(Any, address)  # (checked just above: (host, port, ...))
            host, port = str(fields[0]), int(fields[1])
            shown = f"[{host}]" if ":" in host else host
            urls.append(f"http://{shown}:{port}{path}")
    return urls


def _connection_cap(wanted: int) -> int:
    """`wanted`, kept below the process's descriptor limit so that accept() never runs out."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return wanted
    return max(1, min(wanted, soft - 64))
