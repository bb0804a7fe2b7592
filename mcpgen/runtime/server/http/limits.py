"""What one HTTP server process grants its clients (HttpLimits), and the flags and environment
variables the command line (`server/command.py`) reads them from.

Apart from the app so that a server started over stdio builds its command line (which lists the
HTTP flags too) without importing the HTTP server.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class HttpLimits:
    """What one HTTP server process grants its clients. Every field has a flag and an environment
    variable on the command line (see `add_limit_arguments`)."""

    # A POST body over this gets 413: at once when Content-Length says so, else when the
    # (chunked) body passes it. The official SDK's default, 4 MiB.
    max_body_bytes: int = 4 * 1024 * 1024
    # Handshake-era sessions open at once; an initialize beyond them gets 503 (the SDK's 10,000).
    max_sessions: int = 10_000
    # A session with no request in flight and no open GET stream for this long is closed; its id
    # then answers 404 like an unknown one (the SDK's 30 minutes). 0 turns expiry off.
    session_idle_timeout: float = 30 * 60.0
    # A request head over this many bytes, or with more header fields, gets 431 and its
    # connection is closed (0: no limit). A head is counted over the reads that leave it
    # incomplete, so one read (at most 256 KiB) may carry it past the bytes limit once.
    max_header_bytes: int = 64 * 1024
    max_headers: int = 100
    # A connection that has not sent a request's complete headers this long after it opened (or
    # after its previous response) is closed: slowloris sockets cannot pile up.
    header_timeout: float = 10.0
    # A request body that sends nothing for this long (idle), or is not complete this long after
    # its head (total), has its connection closed: a slow body costs a slot for a bounded time.
    body_timeout: float = 10.0
    body_total_timeout: float = 60.0
    # An idle keep-alive connection is closed after this long (uvicorn's default, 5 s).
    keep_alive_timeout: float = 5.0
    # Connections open at once; one more is closed as soon as it is accepted (kept below the
    # process's file descriptor limit by serve_http).
    max_connections: int = 1000


# Each limit's flag, environment variable and help text, declared once.
_LIMIT_OPTIONS: dict[str, tuple[str, str, str]] = {
    "max_body_bytes": ("--max-body-bytes", "MCPGEN_MAX_BODY_BYTES", "largest POST body; more gets 413"),
    "max_sessions": ("--max-sessions", "MCPGEN_MAX_SESSIONS", "most open HTTP sessions; one more gets 503"),
    "session_idle_timeout": (
        "--session-idle-timeout",
        "MCPGEN_SESSION_IDLE_TIMEOUT",
        "seconds a session may sit idle before it is closed (0: never)",
    ),
    "max_header_bytes": (
        "--max-header-bytes",
        "MCPGEN_MAX_HEADER_BYTES",
        "largest request head in bytes; more gets 431 (0: no limit)",
    ),
    "max_headers": (
        "--max-headers",
        "MCPGEN_MAX_HEADERS",
        "most header fields in a request; more gets 431 (0: no limit)",
    ),
    "header_timeout": (
        "--header-timeout",
        "MCPGEN_HEADER_TIMEOUT",
        "seconds a connection gets to send complete request headers",
    ),
    "body_timeout": (
        "--body-timeout",
        "MCPGEN_BODY_TIMEOUT",
        "seconds a request body may send nothing before its connection is closed",
    ),
    "body_total_timeout": (
        "--body-total-timeout",
        "MCPGEN_BODY_TOTAL_TIMEOUT",
        "seconds a request body may take in all, from its head",
    ),
    "keep_alive_timeout": (
        "--keep-alive-timeout",
        "MCPGEN_KEEP_ALIVE_TIMEOUT",
        "seconds an idle keep-alive connection stays open",
    ),
    "max_connections": ("--max-connections", "MCPGEN_MAX_CONNECTIONS", "most connections open at once"),
}


def add_limit_arguments(parser: argparse.ArgumentParser, environ: Mapping[str, str] | None = None) -> None:
    """Add a flag for every HttpLimits field; its default comes from its environment variable."""
    env = os.environ if environ is None else environ
    defaults = HttpLimits()
    group = parser.add_argument_group("HTTP limits (each also read from the environment variable named)")
    for item in fields(HttpLimits):
        flag, var, text = _LIMIT_OPTIONS[item.name]
        kind = int if isinstance(getattr(defaults, item.name), int) else float
        raw = env.get(var)
        default = getattr(defaults, item.name)
        if raw is not None and raw.strip():
            try:
                default = kind(raw)
            except ValueError:
                parser.error(f"{var} must be a number, not {raw!r}")
        group.add_argument(
            flag,
            type=kind,
            default=default,
            dest=f"limit_{item.name}",
            metavar="N" if kind is int else "SECONDS",
            help=f"{text} (env {var}; default: {getattr(defaults, item.name):{'d' if kind is int else 'g'}})",
        )


def limits_from_args(args: argparse.Namespace) -> HttpLimits:
    """The HttpLimits that `add_limit_arguments`' flags parsed to; refuses negative values."""
    values = {item.name: getattr(args, f"limit_{item.name}") for item in fields(HttpLimits)}
    for name, value in values.items():
        if not math.isfinite(value) or value < 0:
            raise SystemExit(f"{_LIMIT_OPTIONS[name][0]} must be a non-negative number, not {value}")
    return HttpLimits(**values)
