"""Bounded JSON requests to the authorization server: a timeout, no redirects, a size cap."""

from __future__ import annotations

import json
from typing import Any

import httpx

from ...core.errors import AuthServerUnavailable, MessageTooLarge, ProtocolError
from ...core.jsonrpc import is_object
from ...transports import guard

MAX_DOCUMENT_BYTES = 256 * 1024  # a JWKS, a metadata document or an introspection answer
TIMEOUT = 10.0


async def fetch_json(
    client: httpx.AsyncClient, method: str, url: str, *, data: dict[str, str] | None = None, auth: Any = None
) -> dict[str, Any]:
    """The JSON object at `url`; anything else (a status other than 200, too big, not an object)
    raises AuthServerUnavailable with a one-line reason that never includes credentials."""
    try:
        async with client.stream(
            method,
            url,
            data=data,
            auth=auth,
            timeout=TIMEOUT,
            follow_redirects=False,
            headers={"accept": "application/json"},
        ) as response:
            if response.status_code != 200:
                raise AuthServerUnavailable(f"{url} answered {response.status_code}")
            # Decoded a piece at a time against the cap, as every body the runtime reads.
            body = await guard.read_body(response, MAX_DOCUMENT_BYTES)
    except MessageTooLarge:
        raise AuthServerUnavailable(f"{url} sent more than {MAX_DOCUMENT_BYTES} bytes") from None
    except ProtocolError as exc:
        raise AuthServerUnavailable(f"{url}: {exc}") from None
    except httpx.HTTPError as exc:
        raise AuthServerUnavailable(f"{url}: {type(exc).__name__}") from None
    try:
        document = json.loads(body)
    except ValueError:
        raise AuthServerUnavailable(f"{url} did not send JSON") from None
    if not is_object(document):
        raise AuthServerUnavailable(f"{url} did not send a JSON object")
    return document


async def discover_jwks_url(client: httpx.AsyncClient, issuer: str) -> str:
    """jwks_uri from the issuer's RFC 8414 metadata, else its OpenID configuration. The document
    must name this exact issuer (RFC 8414 section 3.3), and the keys must live on https or loopback."""
    base = issuer.rstrip("/")
    split = httpx.URL(base)
    path = split.path if split.path != "/" else ""
    origin = f"{split.scheme}://{split.netloc.decode()}"
    # The order MCP clients use too: RFC 8414 path insertion, then OpenID Connect's two forms.
    candidates = [f"{origin}/.well-known/oauth-authorization-server{path}"]
    if path:
        candidates.append(f"{origin}/.well-known/openid-configuration{path}")
    candidates.append(f"{base}/.well-known/openid-configuration")
    problems: list[str] = []
    for url in candidates:
        try:
            metadata = await fetch_json(client, "GET", url)
        except AuthServerUnavailable as exc:
            problems.append(str(exc))
            continue
        if metadata.get("issuer") != issuer:
            raise AuthServerUnavailable(f"{url} names issuer {str(metadata.get('issuer'))[:200]!r}, not {issuer!r}")
        jwks_uri = metadata.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not _trusted_url(jwks_uri):
            raise AuthServerUnavailable(f"{url} has no usable jwks_uri")
        return jwks_uri
    raise AuthServerUnavailable("; ".join(problems))


def _trusted_url(url: str) -> bool:
    parsed = httpx.URL(url)
    return parsed.scheme == "https" or (parsed.scheme == "http" and parsed.host in ("127.0.0.1", "localhost", "::1"))
