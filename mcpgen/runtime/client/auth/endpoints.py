"""The requests an OAuth login makes to an authorization server's endpoints: a form POST read
under a size cap with no redirect followed, the client's authentication of it (after the
binding rule let the credential go there, core/binding.py), dynamic client registration
(RFC 7591), and the short, secret-free reading of an error answer."""

from __future__ import annotations

import base64
import json
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ...core.binding import Binding, may_send
from ...core.errors import AuthError
from ...core.jsonrpc import is_object
from ...transports import guard
from .discovery import ServerMetadata
from .tokens import Client

if TYPE_CHECKING:
    import httpx

MAX_ANSWER = 1024 * 1024
_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@dataclass(frozen=True)
class FormRequest:
    form: dict[str, str]
    headers: dict[str, str]


@dataclass(frozen=True)
class Signer:
    """A private_key_jwt key: the PEM text and its algorithm."""

    private_key: str | None
    algorithm: str = "RS256"


def authenticate(
    client: Client, metadata: ServerMetadata, body: dict[str, str], binding: Binding, signer: Signer
) -> FormRequest:
    """The request's body and headers, with the client authenticated its way: every request that
    carries a client credential or a token to an authorization server is made from here, after
    the binding rule let it go there."""
    may_send(_what(client, body), metadata.issuer, binding)
    headers: dict[str, str] = {}
    form = dict(body)
    method = client.token_endpoint_auth_method
    if method == "client_secret_basic" and client.client_secret is not None:
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif method == "client_secret_post" and client.client_secret is not None:
        form.update(client_id=client.client_id, client_secret=client.client_secret)
    elif method == "private_key_jwt":
        form.update(
            client_id=client.client_id,
            client_assertion_type=_JWT_BEARER,
            client_assertion=_assertion(client.client_id, metadata, signer),
        )
    else:
        form["client_id"] = client.client_id
    return FormRequest(form, headers)


def _assertion(client_id: str, metadata: ServerMetadata, signer: Signer) -> str:
    """A private_key_jwt client assertion (RFC 7523 §3), signed by joserfc, for this issuer only."""
    from joserfc import jwt
    from joserfc.jwk import import_key  # (typed on every supported Python: server/auth/jwks.py)

    if signer.private_key is None:
        raise AuthError("private_key_jwt needs a private_key")
    try:
        key = import_key(signer.private_key, "EC" if signer.algorithm.startswith("ES") else "RSA")
    except Exception:
        raise AuthError("the private key for private_key_jwt could not be read") from None
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": metadata.issuer,
        "jti": uuid.uuid4().hex,
        "iat": now,
        "exp": now + 300,
    }
    return jwt.encode({"alg": signer.algorithm, "typ": "JWT"}, claims, key)


async def post_form(http: httpx.AsyncClient, url: str, request: FormRequest) -> tuple[int, dict[str, Any]]:
    status, answer, _nonce = await post_form_noting_nonce(http, url, request)
    return status, answer


async def post_form_noting_nonce(
    http: httpx.AsyncClient, url: str, request: FormRequest
) -> tuple[int, dict[str, Any], str | None]:
    """post_form, and the answer's DPoP-Nonce header (RFC 9449 §8), if any."""
    try:
        async with http.stream(
            "POST",
            url,
            data=request.form,
            headers={"accept": "application/json", **request.headers},
            follow_redirects=False,
        ) as reply:
            body = await guard.read_body(reply, MAX_ANSWER)
            return reply.status_code, json_object(body), reply.headers.get("dpop-nonce")
    except Exception as exc:
        raise AuthError(f"the request to {url[:200]} failed: {type(exc).__name__}") from None


async def register(
    http: httpx.AsyncClient,
    metadata: ServerMetadata,
    redirect_uri: str | None,
    binding: Binding,
    *,
    client_name: str,
    scopes: list[str] | None,
) -> Client:
    """Dynamic client registration (RFC 7591)."""
    assert metadata.registration_endpoint is not None
    may_send("a client registration request", metadata.issuer, binding)
    supported = metadata.token_endpoint_auth_methods_supported
    method = "none"
    if supported:
        method = next((m for m in ("none", "client_secret_basic", "client_secret_post") if m in supported), method)
    grants = ["urn:ietf:params:oauth:grant-type:device_code"] if redirect_uri is None else ["authorization_code"]
    request: dict[str, Any] = {
        "client_name": client_name,
        # SEP-837: a client whose redirect is a loopback listener (or that has none) is native.
        "application_type": "native",
        "grant_types": [*grants, "refresh_token"],
        "response_types": ["code"] if redirect_uri else [],
        "token_endpoint_auth_method": method,
    }
    if redirect_uri:
        request["redirect_uris"] = [redirect_uri]
    if scopes:
        request["scope"] = " ".join(scopes)
    try:
        async with http.stream("POST", metadata.registration_endpoint, json=request, follow_redirects=False) as reply:
            body = await guard.read_body(reply, MAX_ANSWER)
            status = reply.status_code
    except Exception as exc:
        raise AuthError(f"client registration failed: {type(exc).__name__}") from None
    answer = json_object(body)
    client_id = answer.get("client_id")
    if status not in (200, 201) or not isinstance(client_id, str) or not client_id:
        raise AuthError(f"client registration failed: {error_of(status, answer)}")
    secret = answer.get("client_secret")
    granted = answer.get("token_endpoint_auth_method")
    if not isinstance(granted, str):
        granted = method if method != "none" or not isinstance(secret, str) else "client_secret_basic"
    return Client(client_id, secret if isinstance(secret, str) else None, granted)


def json_object(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    return data if is_object(data) else {}


def _what(client: Client, body: dict[str, str]) -> str:
    """The credential a request carries, as a refusal names it."""
    if "refresh_token" in body:
        return "the refresh token"
    if "token" in body:
        return f"the {body.get('token_type_hint', 'token').replace('_', ' ')}"
    if client.token_endpoint_auth_method == "private_key_jwt":
        return "the client's signed assertion"
    return "the client secret" if client.client_secret else "the client id"


def check_pkce(metadata: ServerMetadata) -> None:
    """OAuth 2.1 and the MCP spec: no login without PKCE, and S256 listed in the metadata (a
    server that lists nothing may ignore the challenge, and the code is then stealable). The
    2025-03-26 fallback with no metadata document at all has only the spec's word for it."""
    if metadata.raw and "S256" not in (metadata.code_challenge_methods_supported or []):
        raise AuthError(
            f"the authorization server {metadata.issuer[:200]!r} does not list S256 in"
            " code_challenge_methods_supported: refusing to log in without PKCE"
        )


def error_of(status: int, answer: dict[str, Any]) -> str:
    """The server's error code and description (RFC 6749 §5.2), short, and nothing else of its answer."""
    error = str(answer.get("error") or f"HTTP {status}")[:100]
    described = answer.get("error_description")
    return f"{error}: {str(described)[:200]}" if described else error
