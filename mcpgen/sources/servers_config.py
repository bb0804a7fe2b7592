"""`mcpServers` config files (Claude Desktop / Cursor style; VS Code's `servers` too): stdio
entries (`command`, `args`, `env`, `cwd`) and HTTP ones (`url`, `headers`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..catalog.model import Catalog, Problem
from .files import read_document
from .live import load_live, load_live_http


def _servers(config: str | Path) -> tuple[dict[str, object] | None, list[Problem]]:
    doc, problems = read_document(Path(config))
    if problems:
        return None, problems
    servers = None
    if isinstance(doc, dict):
        servers = doc.get("mcpServers", doc.get("servers"))
    if not isinstance(servers, dict):
        return None, [Problem(str(config), "no 'mcpServers' object in config file")]
    return {str(k): v for k, v in servers.items()}, []


def server_names(config: str | Path, chosen: tuple[str, ...] = ()) -> tuple[list[str], list[Problem]]:
    """The servers a multi-server package serves: those chosen (each must exist), else all, sorted."""
    servers, problems = _servers(config)
    if servers is None:
        return [], problems
    known = ", ".join(sorted(servers)) or "none"
    missing = [Problem(str(config), f"no server named {n!r} (known: {known})") for n in chosen if n not in servers]
    if missing:
        return [], missing
    names = sorted(set(chosen) if chosen else servers)
    if not names:
        return [], [Problem(str(config), "no servers in config file")]
    return names, []


def load_server(
    config: str | Path, server: str, *, connect_timeout: float = 30.0, strict_lists: bool = False
) -> tuple[Catalog | None, list[Problem]]:
    """The catalog of one entry's server. The entry's command, args and env stay out of it (they
    may hold tokens): it records the config file and the entry's name, which connect() reads again."""
    where = str(config)
    servers, problems = _servers(config)
    if servers is None:
        return None, problems
    entry = servers.get(server)
    if not isinstance(entry, dict):
        known = ", ".join(sorted(str(k) for k in servers)) or "none"
        return None, [Problem(where, f"no server named {server!r} (known: {known})", f"/mcpServers/{server}")]
    if "url" in entry:
        return _http_server(where, config, server, entry, connect_timeout, strict_lists)
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        return None, [
            Problem(
                where, f"server {server!r} has no 'command' (a stdio server) or 'url' (HTTP)", f"/mcpServers/{server}"
            )
        ]
    args = entry.get("args", [])
    env = entry.get("env", {})
    cwd = entry.get("cwd")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None, [Problem(where, "'args' must be a list of strings", f"/mcpServers/{server}/args")]
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        return None, [Problem(where, "'env' must map names to strings", f"/mcpServers/{server}/env")]
    if cwd is not None and not isinstance(cwd, str):
        # Ignoring it would start the server in the wrong folder and fail somewhere less clear.
        return None, [Problem(where, "'cwd' must be a string", f"/mcpServers/{server}/cwd")]
    catalog, problems = load_live(
        command,
        args,
        env=env,
        cwd=cwd,
        connect_timeout=connect_timeout,
        record_command=False,
        shown=f"{where} --server {server}",
        strict_lists=strict_lists,
    )
    return (replace(catalog, source_config=(str(config), server)) if catalog else None), problems


def _http_server(
    where: str, config: str | Path, server: str, entry: dict[str, object], connect_timeout: float, strict_lists: bool
) -> tuple[Catalog | None, list[Problem]]:
    """An entry with `url` (and `headers`): the catalog records the file and entry only, as for
    stdio entries, so neither the URL nor a header (a token) enters generated code."""
    url, headers = entry.get("url"), entry.get("headers", {})
    pointer = f"/mcpServers/{server}"
    if "command" in entry:
        return None, [Problem(where, f"server {server!r} has both 'command' and 'url': give one", pointer)]
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None, [Problem(where, "'url' must be an http:// or https:// URL", f"{pointer}/url")]
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        return None, [Problem(where, "'headers' must map names to strings", f"{pointer}/headers")]
    catalog, problems = load_live_http(
        url,
        headers={str(k): v for k, v in headers.items()},
        connect_timeout=connect_timeout,
        strict_lists=strict_lists,
        shown=f"{where} --server {server}",
    )
    kept = replace(catalog, source_config=(str(config), server), source_url=None) if catalog else None
    return kept, problems
