"""Finding the authorization server: protected resource metadata (RFC 9728), then the
authorization server's metadata (RFC 8414 / OpenID Connect Discovery), in the MCP spec's order.

Every document is untrusted: read with a size cap, never following redirects, and checked
(the resource it names must be the server we talk to; the issuer it names must be the one we
asked about) before anything is sent to the endpoints it lists.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ...core.binding import same_origin
from ...core.errors import AuthError
from ...core.jsonrpc import is_array, is_object
from ...transports import guard

if TYPE_CHECKING:
    import httpx

_MAX_DOCUMENT = 1024 * 1024


@dataclass(frozen=True)
class ResourceMetadata:
    resource: str | None
    authorization_servers: list[str]
    scopes_supported: list[str] | None
    url: str = ""  # where it was read: the MCP server's own origin (resource_metadata_urls)


@dataclass(frozen=True)
class ServerMetadata:
    issuer: str
    authorization_endpoint: str | None
    token_endpoint: str
    registration_endpoint: str | None = None
    device_authorization_endpoint: str | None = None
    revocation_endpoint: str | None = None  # RFC 7009: `mcpgen logout` revokes the tokens there
    scopes_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    client_id_metadata_document_supported: bool = False
    iss_parameter_supported: bool = False
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)


def _optional_endpoint(data: dict[str, Any], name: str) -> str | None:
    """An endpoint only an extra step uses (revocation): a bad one is left out, not fatal to a login."""
    value = data.get(name)
    if not isinstance(value, str):
        return None
    try:
        return check_endpoint(value, name)
    except AuthError:
        return None


def canonical_resource(url: str) -> str:
    """The MCP server's canonical URI (RFC 8707 / the MCP spec): lower-case scheme and host, no
    fragment, no query, no userinfo; the path kept as given (no trailing slash added).

    The userinfo goes because this URI is sent to the authorization server (the `resource`
    parameter) and kept as the login's name: a `user:password@` in the server's URL must reach
    neither another origin nor `mcpgen auth status`."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal keeps its brackets
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, "", ""))


def check_endpoint(url: str, what: str) -> str:
    """An endpoint a document names: https, or http on a loopback host only (OAuth 2.1 §1.5)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and host:
        return url
    if parts.scheme == "http" and _loopback(host):
        return url
    raise AuthError(f"refusing the {what} {url[:200]!r}: it must be https (or http on a loopback host)")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def get_json(client: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    """A JSON object from url, or None when there is none there (any status but 200, any error)."""
    try:
        async with client.stream("GET", url, headers={"accept": "application/json"}, follow_redirects=False) as reply:
            if reply.status_code != 200:
                return None
            body = await guard.read_body(reply, _MAX_DOCUMENT)
    except Exception:  # refused, reset, too large: the next candidate is tried
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if is_object(data) else None


def _strings(value: Any) -> list[str] | None:
    if not is_array(value):
        return None
    return [v for v in value if isinstance(v, str)][:256]


def resource_metadata_urls(server_url: str, from_challenge: str | None) -> list[str]:
    """Where to look, in order: the challenge's resource_metadata, the path-aware well-known URI,
    the root one (RFC 9728 §3.1, MCP authorization "Protected Resource Metadata Discovery").

    A resource_metadata URL on another origin (another host, scheme or port: a loopback port is
    another service) is ignored: the metadata decides where credentials go (binding.py), so only
    the MCP server's own origin may serve it, and mcpgen fetches nothing else a header names."""
    parts = urlsplit(server_url)
    root = f"{parts.scheme}://{parts.netloc}"
    found = [from_challenge] if from_challenge and same_origin(from_challenge, server_url) else []
    path = parts.path.rstrip("/")
    if path:
        found.append(f"{root}/.well-known/oauth-protected-resource{path}")
    found.append(f"{root}/.well-known/oauth-protected-resource")
    return found


async def discover_resource(
    client: httpx.AsyncClient, server_url: str, from_challenge: str | None
) -> ResourceMetadata | None:
    for url in resource_metadata_urls(server_url, from_challenge):
        try:
            check_endpoint(url, "resource metadata URL")
        except AuthError:
            continue
        data = await get_json(client, url)
        if data is None:
            continue
        resource = data.get("resource")
        servers = _strings(data.get("authorization_servers")) or []
        metadata = ResourceMetadata(
            resource=resource if isinstance(resource, str) else None,
            authorization_servers=servers,
            scopes_supported=_strings(data.get("scopes_supported")),
            url=url,
        )
        check_resource(server_url, metadata.resource, url)
        return metadata
    return None


def check_resource(server_url: str, named: str | None, fetched_from: str | None = None) -> None:
    """The metadata's `resource` must be the identifier its URL was made from (RFC 9728 §3.3):
    this server's canonical URL exactly (a trailing slash aside), or, for the root well-known URL
    only, the server's origin. A missing one, any other parent URL or another server's could be
    metadata written for another resource: its tokens would be another server's too."""
    ours = canonical_resource(server_url).rstrip("/")
    allowed = {ours}
    parts = urlsplit(server_url)
    root = f"{parts.scheme}://{parts.netloc}"
    if fetched_from == f"{root}/.well-known/oauth-protected-resource":
        allowed.add(canonical_resource(root).rstrip("/"))
    if named is not None and canonical_resource(named).rstrip("/") in allowed:
        return
    shown = "no resource" if named is None else f"the resource {named[:200]!r}"
    raise AuthError(f"the protected resource metadata names {shown}, not {ours[:200]!r}: refusing to log in to it")


def server_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 then OpenID Connect discovery, path-aware first (the MCP spec's order)."""
    parts = urlsplit(issuer)
    root = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if not path:
        return [f"{root}/.well-known/oauth-authorization-server", f"{root}/.well-known/openid-configuration"]
    return [
        f"{root}/.well-known/oauth-authorization-server{path}",
        f"{root}/.well-known/openid-configuration{path}",
        f"{root}{path}/.well-known/openid-configuration",
    ]


async def discover_server(client: httpx.AsyncClient, issuer: str) -> ServerMetadata | None:
    check_endpoint(issuer, "authorization server")
    for url in server_metadata_urls(issuer):
        data = await get_json(client, url)
        if data is None:
            continue
        return parse_server_metadata(data, issuer)
    return None


def parse_server_metadata(data: dict[str, Any], issuer: str) -> ServerMetadata:
    named = data.get("issuer")
    # RFC 8414 §3.3: the issuer in the document is exactly the one it was fetched for; else an
    # attacker's metadata could send the user's code and tokens to its own endpoints.
    if named != issuer:
        raise AuthError(
            f"the authorization server metadata names the issuer {str(named)[:200]!r}, not {issuer[:200]!r}"
        )
    token = data.get("token_endpoint")
    if not isinstance(token, str):
        raise AuthError(f"the authorization server {issuer[:200]!r} names no token_endpoint")

    def endpoint(name: str) -> str | None:
        value = data.get(name)
        return check_endpoint(value, name) if isinstance(value, str) else None

    return ServerMetadata(
        issuer=issuer,
        authorization_endpoint=endpoint("authorization_endpoint"),
        token_endpoint=check_endpoint(token, "token_endpoint"),
        registration_endpoint=endpoint("registration_endpoint"),
        device_authorization_endpoint=endpoint("device_authorization_endpoint"),
        revocation_endpoint=_optional_endpoint(data, "revocation_endpoint"),
        scopes_supported=_strings(data.get("scopes_supported")),
        token_endpoint_auth_methods_supported=_strings(data.get("token_endpoint_auth_methods_supported")),
        grant_types_supported=_strings(data.get("grant_types_supported")),
        code_challenge_methods_supported=_strings(data.get("code_challenge_methods_supported")),
        client_id_metadata_document_supported=data.get("client_id_metadata_document_supported") is True,
        iss_parameter_supported=data.get("authorization_response_iss_parameter_supported") is True,
        raw=data,
    )


def legacy_server_metadata(server_url: str) -> ServerMetadata:
    """2025-03-26 back-compat: no metadata anywhere, so the MCP server's origin is the
    authorization server and its endpoints are the default paths."""
    parts = urlsplit(server_url)
    root = f"{parts.scheme}://{parts.netloc}"
    return ServerMetadata(
        issuer=root,
        authorization_endpoint=f"{root}/authorize",
        token_endpoint=f"{root}/token",
        registration_endpoint=f"{root}/register",
    )
