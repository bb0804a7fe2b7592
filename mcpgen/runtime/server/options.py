"""How a server is served: every setting of `python -m PKG`, in one frozen object.

`command.py` builds it once from the command line (flags; the environment and
`[tool.mcpgen.auth]` where a flag says so: see `serve_main`'s help); `serve_http`,
`serve_http_workers` and stdio serving take it. Light on purpose: a server started over stdio
builds one without importing the HTTP server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .http.limits import HttpLimits
from .http.security import HttpSecurity

if TYPE_CHECKING:
    from .auth.settings import AuthSettings
    from .store import Store


@dataclass(frozen=True)
class ServeOptions:
    """Every serving setting; the defaults are `python -m PKG`'s (stdio, or HTTP on 127.0.0.1:8000/mcp)."""

    http: bool = False  # Streamable HTTP; stdio otherwise (the HTTP settings then do not apply)
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    # No handshake-era sessions: any worker answers any request (2026-07-28 requests never have one).
    stateless: bool = False
    json_response: bool = False  # every answer one JSON body, never an SSE stream
    security: HttpSecurity = field(default_factory=HttpSecurity)  # Host / Origin headers accepted
    limits: HttpLimits = field(default_factory=HttpLimits)
    # What the workers share (sessions, stream logs, notifications); None: in memory, this process.
    store: Store | None = None
    auth: AuthSettings | None = None  # an OAuth resource server when set
    workers: int = 1  # HTTP worker processes serving one port (`serve_http_workers`)
    log_level: str = "warning"  # uvicorn's
    access_log: bool = False  # one stderr line per HTTP request (costs speed)
    announce: bool = True  # `serving MCP on URL` on stderr once listening
    wire_log: str | None = None  # stdio: append every message to this file (or MCPGEN_WIRE_LOG)
    # stdio: requests handled at once; at the bound stdin waits and the excess gets an error.
    max_in_flight: int = 1000
