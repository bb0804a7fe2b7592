"""A protected server's auth settings, read when it starts: flags, then MCPGEN_AUTH_* variables,
then `[tool.mcpgen.auth]` in the nearest pyproject.toml. Never generated into code: the settings
name the deployment and may carry a secret."""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from ...core.binding import Binding, may_send
from ...core.errors import AuthError
from ...core.jsonrpc import is_object
from .info import is_scope_token

# Asymmetric signatures only: a shared-secret (HS*) or unsigned ("none") token is never accepted.
DEFAULT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
ALLOWED_ALGORITHMS = frozenset(DEFAULT_ALGORITHMS) | {"Ed25519"}


@dataclass(frozen=True)
class AuthSettings:
    """How a protected server checks access tokens, and what it tells clients about it."""

    issuer: str  # the authorization server; tokens must carry exactly this `iss`
    resource: str  # this server's canonical URL; tokens must name it in `aud`
    jwks_url: str | None = None  # signing keys; None (and no introspection): from the issuer's metadata
    introspection_url: str | None = None  # RFC 7662 instead of local JWT checks
    client_id: str | None = None  # this server's credentials at the introspection endpoint
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()  # needed for every request (tools add theirs with requires_scopes)
    algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    leeway: float = 30.0  # seconds of clock skew allowed on exp and nbf
    # How long an introspection answer is kept (never past the token's exp): a revocation takes
    # effect within this; 0 asks the authorization server on every request.
    introspection_cache: float = 60.0

    def __repr__(self) -> str:  # the secret never reaches a log or a traceback
        return f"AuthSettings(issuer={self.issuer!r}, resource={self.resource!r}, scopes={self.scopes!r})"

    @property
    def metadata_url(self) -> str:
        """RFC 9728 protected resource metadata: the well-known path with the resource's path after it."""
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path.rstrip('/')}"


# name -> (flag, environment variable, pyproject key, help). Lists are space-separated in the
# environment, repeated flags on the command line, TOML arrays in pyproject.
_OPTIONS: dict[str, tuple[str, str, str, str]] = {
    "issuer": ("--auth-issuer", "MCPGEN_AUTH_ISSUER", "issuer", "authorization server (turns auth on)"),
    "resource": ("--auth-resource", "MCPGEN_AUTH_RESOURCE", "resource", "this server's URL, the token audience"),
    "jwks_url": ("--auth-jwks-url", "MCPGEN_AUTH_JWKS_URL", "jwks_url", "signing keys (default: issuer metadata)"),
    "introspection_url": (
        "--auth-introspection-url",
        "MCPGEN_AUTH_INTROSPECTION_URL",
        "introspection_url",
        "check tokens by RFC 7662 introspection instead",
    ),
    "client_id": ("--auth-client-id", "MCPGEN_AUTH_CLIENT_ID", "client_id", "client id for introspection"),
    "client_secret": (
        "--auth-client-secret",
        "MCPGEN_AUTH_CLIENT_SECRET",
        "",  # never from pyproject: it is committed
        "client secret for introspection (prefer the environment variable)",
    ),
    "scopes": ("--auth-scope", "MCPGEN_AUTH_SCOPES", "scopes", "scope every request needs (repeatable)"),
    "algorithms": ("--auth-algorithm", "MCPGEN_AUTH_ALGORITHMS", "algorithms", "accepted JWT algorithm (repeatable)"),
    "leeway": ("--auth-leeway", "MCPGEN_AUTH_LEEWAY", "leeway", "seconds of clock skew allowed (default 30)"),
    "introspection_cache": (
        "--auth-introspection-cache",
        "MCPGEN_AUTH_INTROSPECTION_CACHE",
        "introspection_cache",
        "seconds an introspection answer is kept, at most until exp (default 60; 0: ask every time)",
    ),
}
_LISTS = ("scopes", "algorithms")


def add_auth_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per setting; unset flags fall back to the environment, then pyproject."""
    group = parser.add_argument_group(
        "OAuth (HTTP only; each also MCPGEN_AUTH_* or [tool.mcpgen.auth] in pyproject.toml)"
    )
    for name, (flag, var, _key, text) in _OPTIONS.items():
        if name in _LISTS:
            group.add_argument(flag, action="append", dest=f"auth_{name}", metavar="VALUE", help=f"{text} (env {var})")
        else:
            group.add_argument(flag, dest=f"auth_{name}", metavar="VALUE", help=f"{text} (env {var})")


def auth_from_args(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None, cwd: Path | None = None
) -> AuthSettings | None:
    """The settings the flags, environment and pyproject give, or None when no issuer is set
    (auth off). A bad value exits with a one-line reason."""
    env = os.environ if environ is None else environ
    project = _project_table(cwd or Path.cwd())
    raw: dict[str, Any] = {}
    for name, (flag, var, key, _text) in _OPTIONS.items():
        given = getattr(args, f"auth_{name}", None)
        if given is not None:
            raw[name] = (tuple(given), flag) if name in _LISTS else (given, flag)
        elif env.get(var, "").strip():
            raw[name] = (tuple(env[var].split()), var) if name in _LISTS else (env[var].strip(), var)
        elif key and key in project:
            raw[name] = (project[key], f"[tool.mcpgen.auth] {key}")
    if "client_secret" not in raw and "client_secret" in project:
        raise SystemExit("[tool.mcpgen.auth] must not hold client_secret: set MCPGEN_AUTH_CLIENT_SECRET instead")
    if "issuer" not in raw:
        return None
    return _settings(raw)


def _settings(raw: dict[str, tuple[Any, str]]) -> AuthSettings:
    def text(name: str) -> str | None:
        if name not in raw:
            return None
        value, source = raw[name]
        if not isinstance(value, str) or not value.strip():
            raise SystemExit(f"{source} must be a non-empty string")
        return value.strip()

    def words(name: str) -> tuple[str, ...] | None:
        if name not in raw:
            return None
        value, source = raw[name]
        if not isinstance(value, (list, tuple)):
            raise SystemExit(f"{source} must be a list of words (printable ASCII, no spaces or quotes)")
        listed = cast("list[object] | tuple[object, ...]", value)  # (checked just above; items: anything)
        if not all(isinstance(v, str) and is_scope_token(v) for v in listed):
            raise SystemExit(f"{source} must be a list of words (printable ASCII, no spaces or quotes)")
        return tuple(v for v in listed if isinstance(v, str))

    issuer = _url(text("issuer"), raw["issuer"][1])
    resource_text = text("resource")
    if resource_text is None:
        raise SystemExit("auth needs this server's URL: --auth-resource (or MCPGEN_AUTH_RESOURCE)")
    resource = _url(resource_text, raw["resource"][1])
    jwks_url = text("jwks_url")
    introspection_url = text("introspection_url")
    if jwks_url and introspection_url:
        raise SystemExit("give either a JWKS URL or an introspection URL, not both")
    client_id, client_secret = text("client_id"), text("client_secret")
    if introspection_url and not (client_id and client_secret):
        raise SystemExit(
            "introspection needs this server's credentials: --auth-client-id and MCPGEN_AUTH_CLIENT_SECRET"
        )
    if introspection_url:
        _bound_to_issuer(introspection_url, issuer)
    algorithms = words("algorithms") or DEFAULT_ALGORITHMS
    refused = [a for a in algorithms if a not in ALLOWED_ALGORITHMS]
    if refused:
        raise SystemExit(
            f"JWT algorithm(s) {', '.join(refused)} not accepted: use asymmetric ones ({', '.join(DEFAULT_ALGORITHMS)})"
        )
    leeway = _seconds(raw, "leeway", 30.0, 300)
    introspection_cache = _seconds(raw, "introspection_cache", 60.0, 3600)
    return AuthSettings(
        issuer=issuer,
        resource=resource,
        jwks_url=_url(jwks_url, raw["jwks_url"][1]) if jwks_url else None,
        introspection_url=_url(introspection_url, raw["introspection_url"][1]) if introspection_url else None,
        client_id=client_id,
        client_secret=client_secret,
        scopes=words("scopes") or (),
        algorithms=algorithms,
        leeway=leeway,
        introspection_cache=introspection_cache,
    )


def _seconds(raw: dict[str, tuple[Any, str]], name: str, default: float, ceiling: float) -> float:
    if name not in raw:
        return default
    value, source = raw[name]
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise SystemExit(f"{source} must be a number of seconds, not {value!r}") from None
    if not math.isfinite(seconds) or not 0 <= seconds <= ceiling:
        raise SystemExit(f"{source} must be between 0 and {ceiling:g} seconds")
    return seconds


def _bound_to_issuer(introspection_url: str, issuer: str) -> None:
    """This server's client secret goes to its issuer's origin only (core/binding.py, rule 3)."""
    try:
        may_send("the introspection client secret", introspection_url, Binding(issuer, named_by=introspection_url))
    except AuthError as exc:
        raise SystemExit(str(exc)) from None


def _url(value: str | None, source: str) -> str:
    """An absolute https URL (http only on loopback, for development), without a fragment."""
    assert value is not None
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.fragment or parts.username:
        raise SystemExit(f"{source} must be an absolute https URL, not {value!r}")
    if parts.scheme == "http" and not _loopback(parts.hostname):
        raise SystemExit(f"{source} must use https (http only for localhost), not {value!r}")
    return value


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _project_table(start: Path) -> dict[str, Any]:
    """[tool.mcpgen.auth] of the nearest pyproject.toml from `start` upward that has [tool.mcpgen]."""
    # Imported here: only an HTTP server reads its auth settings, and a stdio one starts without it.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only (tomli is a dependency there)
        import tomli as tomllib

    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            tool = tomllib.loads(candidate.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise SystemExit(f"{candidate}: cannot read it: {exc}") from None
        if "mcpgen" not in tool:
            continue
        table: object = tool["mcpgen"].get("auth", {}) if is_object(tool["mcpgen"]) else {}
        if not is_object(table):
            raise SystemExit(f"{candidate} [tool.mcpgen.auth] must be a table")
        unknown = sorted(set(table) - {key for _f, _v, key, _t in _OPTIONS.values() if key} - {"client_secret"})
        if unknown:
            raise SystemExit(f"{candidate} [tool.mcpgen.auth]: unknown key {unknown[0]!r}")
        return table
    return {}
