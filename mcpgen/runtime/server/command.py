"""`python -m PKG`: a generated server's command line, and serving what it says.

A generated `__main__.py` names only what differs between servers (its package and handlers):

    serve_main(lambda: build_server(Handlers()), prog="python -m weather_server")

Each setting comes from its flag; the limits' and `--store`'s defaults from their environment
variables (MCPGEN_MAX_BODY_BYTES..., MCPGEN_STORE), and an unset `--auth-*` flag from its
MCPGEN_AUTH_* variable, then `[tool.mcpgen.auth]` in the nearest pyproject.toml. The flags
are declared beside what they set (`http/limits.py`, `store/options.py`, `auth/settings.py`)
or here. A server started over stdio never imports the HTTP server (`http/serving.py` loads it
when called).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from ..core.errors import ServerSetupError
from .auth.settings import add_auth_arguments, auth_from_args
from .http.limits import add_limit_arguments, limits_from_args
from .http.security import HttpSecurity
from .http.workers import serve_http_workers
from .options import ServeOptions
from .server import Server
from .store.options import STORE_VARIABLE, add_store_arguments, store_from_args

# More than this is a typo, not a machine: each worker is a whole Python process.
MAX_WORKERS = 256
# The flags of the command line that mean something over stdio too.
_STDIO_DESTS = frozenset({"help", "http", "wire_log", "workers", "max_in_flight"})


def serve_main(build: Callable[[], Server], *, prog: str, argv: Sequence[str] | None = None) -> None:
    """Parse `argv` (default: sys.argv), then serve `build()`'s server over stdio or, with
    `--http`, Streamable HTTP (each worker process calls `build` itself). A bad command line
    exits 2 with one line, as argparse does."""
    parser = build_parser(prog)
    options = options_from_args(parser, parser.parse_args(argv))
    serve(build, options)


def serve(build: Callable[[], Server], options: ServeOptions) -> None:
    """Serve as `options` say (blocking): stdio, or HTTP from `options.workers` processes. A
    server that cannot be built (ServerSetupError: a bad SKILLS_DIR, TOOL_UI, TASK_SUPPORT) ends
    the process with its one line and status 1 (each worker's, under a supervisor)."""
    if options.http:  # (serve_http_workers says a ServerSetupError once, however many workers)
        serve_http_workers(build, options)
        return
    try:
        server = build()
    except ServerSetupError as refused:
        raise refused.as_exit() from None
    server.run_stdio(wire_log=options.wire_log, max_in_flight=options.max_in_flight)


def build_parser(prog: str) -> argparse.ArgumentParser:
    """Every flag of `python -m PKG`."""
    parser = argparse.ArgumentParser(prog=prog, description="Serve this MCP server.")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument("--path", default="/mcp", help="HTTP endpoint path (default: /mcp)")
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="no HTTP sessions: any worker can answer any request (for several workers or hosts)",
    )
    parser.add_argument("--allowed-host", action="append", default=[], help="extra Host header to accept")
    parser.add_argument("--allowed-origin", action="append", default=[], help="extra Origin to accept")
    parser.add_argument("--wire-log", default=None, help="append every message to this file (stdio)")
    parser.add_argument(
        "--max-in-flight",
        type=_positive,
        default=ServeOptions().max_in_flight,
        metavar="N",
        help="stdio: requests handled at once; stdin waits at N, a request beyond gets an error (default: %(default)s)",
    )
    parser.add_argument(
        "--access-log", action="store_true", help="log one line per HTTP request to stderr (off: it costs speed)"
    )
    add_limit_arguments(parser)
    add_store_arguments(parser)
    add_auth_arguments(parser)
    parser.add_argument(
        "--workers",
        type=_worker_count,
        default=None,
        metavar="N",
        help="serve --http from N worker processes on one port (default: 1); "
        "more than one needs --stateless or a store they share",
    )
    return parser


def options_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> ServeOptions:
    """The ServeOptions `build_parser`'s flags parsed to. Refused with one line and exit 2: what
    `workers_problem` refuses, and HTTP-only flags without `--http`; a bad limit, auth setting
    or store ends with its one-line reason (in that order)."""
    problem = workers_problem(args)
    if problem is not None:
        print(problem, file=sys.stderr)
        raise SystemExit(2)
    if not args.http:
        refuse_http_flags_without_http(parser, args)
        return ServeOptions(wire_log=args.wire_log, max_in_flight=args.max_in_flight)
    return ServeOptions(
        http=True,
        host=args.host,
        port=args.port,
        path=args.path,
        stateless=args.stateless,
        security=HttpSecurity(tuple(args.allowed_host), tuple(args.allowed_origin)),
        limits=limits_from_args(args),
        access_log=args.access_log,
        auth=auth_from_args(args),
        store=store_from_args(args),
        workers=args.workers or 1,
        wire_log=args.wire_log,
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def workers_problem(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> str | None:
    """Why `--workers` cannot run as asked (one line), or None. Several workers need either the
    stateless era only (`--stateless`) or a store every worker shares (`--store` or
    MCPGEN_STORE): a handshake-era session opened on one worker is unknown to the others."""
    workers: int | None = getattr(args, "workers", None)
    if workers is None:
        return None
    if not getattr(args, "http", False):
        return "--workers serves Streamable HTTP: add --http (stdio is one process, one client)"
    if workers == 1:
        return None
    if not hasattr(os, "fork"):
        return "--workers needs a POSIX system (os.fork); run one process per port instead"
    env = os.environ if environ is None else environ
    store = getattr(args, "store", None) or env.get(STORE_VARIABLE, "")
    if getattr(args, "stateless", False) or _is_shared(store):
        return None
    return (
        f"--workers {workers} would split handshake-era sessions across processes: "
        "add --stateless or --store redis://HOST:PORT/DB"
    )


def refuse_http_flags_without_http(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit 2 with one line when flags that only apply to HTTP (limits, a store, auth, host and
    port, --stateless...) are given to a server that serves stdio: ignored, they would leave its
    operator believing in limits, a shared store or a login check that are not there.

    A flag counts as given when its value differs from its default: a default read from the
    environment (MCPGEN_STORE, MCPGEN_MAX_BODY_BYTES...) is the deployment's, not a mistake on
    this command line, and is not refused. (`--workers` has its own refusal.)"""
    given = [
        action.option_strings[-1]
        for action in parser._actions  # argparse keeps the parser's actions here, in order
        if action.option_strings
        and action.dest not in _STDIO_DESTS
        and getattr(args, action.dest, action.default) != action.default
    ]
    if given:
        parser.exit(2, f"{parser.prog}: error: {', '.join(given)} only apply with --http\n")


def _is_shared(store: str) -> bool:
    """A store URL every worker can reach (anything but an in-memory one)."""
    scheme = store.strip().split("://", 1)[0].lower() if "://" in store else store.strip().lower()
    return bool(scheme) and scheme not in ("memory", "mem", "inmemory", "in-memory")


def _worker_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_WORKERS}, not {value}")
    return value
