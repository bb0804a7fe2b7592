"""Reading an `mcpServers` config at connect time: what a client generated from one starts.

A client generated from a config entry (one server, or a package for many) never holds the
entry's command, args or env: they may carry tokens. It names the config file and the entry,
and this module reads them when it connects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..core.errors import ServersConfigError
from ..core.jsonrpc import is_array, is_object

MAX_CONFIG_BYTES = 1 << 20  # a config file is small; a huge one is a mistake, not read into memory


@dataclass(frozen=True)
class ServerEntry:
    """How to reach one server, exactly as the config says: a stdio `command` (its env merges
    into ours) or an HTTP `url` with its `headers`."""

    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None


def _strings(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    # (checked just above; its keys and values are anything a config file holds, checked here)
    return all(isinstance(k, str) and isinstance(v, str) for k, v in cast("dict[object, object]", value).items())


def _entry(where: str, name: str, raw: Any) -> ServerEntry:
    if not is_object(raw):
        raise ServersConfigError(f"{where}: no server named {name!r}")
    command, url = raw.get("command"), raw.get("url")
    if command is not None and url is not None:
        raise ServersConfigError(f"{where}: server {name!r} has both 'command' and 'url': give one")
    if url is not None:
        return _http_entry(where, name, url, raw.get("headers", {}))
    args, env, cwd = raw.get("args", []), raw.get("env", {}), raw.get("cwd")
    if not isinstance(command, str) or not command:
        raise ServersConfigError(f"{where}: server {name!r} has no 'command' (a stdio server) or 'url' (HTTP)")
    if not is_array(args) or not all(isinstance(a, str) for a in args):
        raise ServersConfigError(f"{where}: server {name!r}: 'args' must be a list of strings")
    if not _strings(env):
        raise ServersConfigError(f"{where}: server {name!r}: 'env' must map names to strings")
    if cwd is not None and not isinstance(cwd, str):
        raise ServersConfigError(f"{where}: server {name!r}: 'cwd' must be a string")
    return ServerEntry(command, tuple(args), dict(env) or None, cwd)


def _http_entry(where: str, name: str, url: Any, headers: Any) -> ServerEntry:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ServersConfigError(f"{where}: server {name!r}: 'url' must be an http:// or https:// URL")
    if not _strings(headers):
        raise ServersConfigError(f"{where}: server {name!r}: 'headers' must map names to strings")
    return ServerEntry(url=url, headers=dict(headers) or None)


def read_servers_config(path: str | os.PathLike[str], names: Sequence[str]) -> dict[str, ServerEntry]:
    """The entries for `names` from an `mcpServers` (or VS Code `servers`) JSON file."""
    where = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ServersConfigError(f"{where}: cannot read the servers config: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ServersConfigError(f"{where}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServersConfigError(f"{where}: not JSON: {exc}") from None
    servers = doc.get("mcpServers", doc.get("servers")) if is_object(doc) else None
    if not is_object(servers):
        raise ServersConfigError(f"{where}: no 'mcpServers' object")
    return {name: _entry(where, name, servers.get(name)) for name in names}


def config_path(given: str | os.PathLike[str] | None, package_file: str, relative: str) -> Path:
    """The config to read: the one given, else the generation-time one, relative to the package."""
    if given is not None:
        return Path(given)
    return Path(package_file).resolve().parent / relative
