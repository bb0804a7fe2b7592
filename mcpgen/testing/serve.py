"""`mcpgen mock`: build the fake (from a catalog, or a cassette) and serve it over stdio or HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..catalog.model import Catalog, Problem
from ..runtime.server.server import Server
from .overrides import OverridesError, load_overrides


@dataclass(frozen=True)
class MockRequest:
    """What the command line asked for. `catalog` may be None only with a cassette."""

    catalog: Catalog | None
    seed: int = 0
    overrides: Path | None = None
    cassette: Path | None = None
    http: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"


def build_fake(request: MockRequest, *, in_process: bool) -> tuple[Server | None, list[Problem]]:
    """The server `request` describes, or the problems that stop it (bad overrides, a cassette
    that no longer fits its catalog)."""
    if request.cassette is not None:
        from .cassette import load_cassette, replay_server

        if request.overrides is not None:
            return None, [Problem("--overrides", "does not apply to --replay (the cassette holds the answers)")]
        cassette, problems = load_cassette(request.cassette, request.catalog)
        if cassette is None:
            return None, problems
        return replay_server(cassette), []
    from .mock import MockOptions, mock_server

    catalog = request.catalog
    if catalog is None:
        return None, [Problem("usage", "give a SOURCE (or --replay CASSETTE)")]
    try:
        overrides = load_overrides(request.overrides, catalog) if request.overrides is not None else None
    except OverridesError as exc:
        return None, [Problem("--overrides", str(exc))]
    return mock_server(catalog, MockOptions(seed=request.seed, overrides=overrides, in_process=in_process)), []


def serve_mock(request: MockRequest) -> list[Problem]:
    """Serve until the client goes (stdio) or the process is stopped (HTTP); problems otherwise."""
    server, problems = build_fake(request, in_process=False)
    if server is None:
        return problems
    if request.http:
        from ..runtime.server.http.serving import serve_http
        from ..runtime.server.options import ServeOptions

        serve_http(server, ServeOptions(host=request.host, port=request.port, path=request.path))
    else:
        server.run_stdio()
    return []


__all__ = ["MockRequest", "build_fake", "serve_mock"]
