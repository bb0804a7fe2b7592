"""Access token checks: a JWT verified locally with the issuer's keys, or RFC 7662 introspection.
Either way the token must come from the configured issuer, name this server as its audience
(RFC 8707) and be within its lifetime; what it says becomes an AuthInfo."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any, Protocol

import httpx
from joserfc import jwt
from joserfc.errors import JoseError

from ...core.errors import InvalidToken
from ...core.jsonrpc import is_array, is_object
from .info import AuthInfo
from .jwks import JwksCache
from .remote import fetch_json
from .settings import AuthSettings

MAX_TOKEN_LENGTH = 16 * 1024
# Introspection answers are kept until the token's exp, but no longer than
# AuthSettings.introspection_cache (a revocation takes effect within it), and for this many
# tokens at most (the oldest goes first).
INTROSPECTION_CACHE_SIZE = 10_000


class TokenVerifier(Protocol):
    async def verify(self, token: str) -> AuthInfo: ...


def make_verifier(settings: AuthSettings, client: httpx.AsyncClient) -> TokenVerifier:
    if settings.introspection_url is not None:
        return IntrospectionVerifier(settings, client)
    return JwtVerifier(settings, JwksCache(client, settings.issuer, settings.jwks_url))


class JwtVerifier:
    def __init__(self, settings: AuthSettings, keys: JwksCache) -> None:
        self._settings = settings
        self._keys = keys

    async def verify(self, token: str) -> AuthInfo:
        if len(token) > MAX_TOKEN_LENGTH or token.count(".") != 2:
            raise InvalidToken("not a signed JWT")
        header = _header(token)
        alg = header.get("alg")
        if alg not in self._settings.algorithms:
            raise InvalidToken(f"algorithm {str(alg)[:20]!r} is not accepted")
        kid = header.get("kid")
        key = await self._keys.key(kid if isinstance(kid, str) else None)
        if key is None:
            raise InvalidToken("signed with an unknown key")
        try:
            decoded = jwt.decode(token, key, algorithms=[str(alg)])
        except (JoseError, ValueError):
            raise InvalidToken("bad signature") from None
        claims = decoded.claims
        if not isinstance(claims.get("exp"), (int, float)):
            raise InvalidToken("the token has no expiry")
        if claims.get("iss") != self._settings.issuer:
            raise InvalidToken("issued by another authorization server")
        return checked_claims(claims, self._settings)


class IntrospectionVerifier:
    """Asks the authorization server about each token (RFC 7662), keeping the answer a short while
    (introspection_cache, never past exp): a revocation takes effect within it."""

    def __init__(self, settings: AuthSettings, client: httpx.AsyncClient) -> None:
        assert settings.introspection_url and settings.client_id and settings.client_secret
        self._settings = settings
        self._client = client
        self._auth = httpx.BasicAuth(settings.client_id, settings.client_secret)
        # sha256(token) -> (AuthInfo, until): no token is kept in memory, only its digest.
        self._cache: dict[bytes, tuple[AuthInfo, float]] = {}

    async def verify(self, token: str) -> AuthInfo:
        if len(token) > MAX_TOKEN_LENGTH:
            raise InvalidToken("the token is too long")
        key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        now = time.time()
        cached = self._cache.get(key)
        if cached is not None and now < cached[1]:
            return cached[0]
        self._cache.pop(key, None)
        info = await self._introspect(token)
        keep = self._settings.introspection_cache
        until = min(now + keep, info.expires_at if info.expires_at is not None else now)
        if until > now:
            while len(self._cache) >= INTROSPECTION_CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[key] = (info, until)
        return info

    async def _introspect(self, token: str) -> AuthInfo:
        assert self._settings.introspection_url is not None
        answer = await fetch_json(
            self._client,
            "POST",
            self._settings.introspection_url,
            data={"token": token, "token_type_hint": "access_token"},
            auth=self._auth,
        )
        if answer.get("active") is not True:
            raise InvalidToken("the token is not active")
        # Introspection may leave iss out (RFC 7662); when present it must be ours.
        if "iss" in answer and answer["iss"] != self._settings.issuer:
            raise InvalidToken("issued by another authorization server")
        return checked_claims({"iss": self._settings.issuer, **answer}, self._settings)


def checked_claims(claims: Mapping[str, Any], settings: AuthSettings, now: float | None = None) -> AuthInfo:
    """Audience and lifetime checks common to both ways, then the AuthInfo handlers see."""
    now = time.time() if now is None else now
    audience = claims.get("aud")
    # A string or a list of strings (RFC 7519 section 4.1.3); anything else names no audience:
    # a number must not raise, and an object's keys are not audiences.
    listed = audience if is_array(audience) else ()
    audiences = (audience,) if isinstance(audience, str) else tuple(a for a in listed if isinstance(a, str))
    if _canonical(settings.resource) not in {_canonical(a) for a in audiences}:
        raise InvalidToken("the token is not meant for this server (audience)")
    exp = claims.get("exp")
    if isinstance(exp, (int, float)) and now > exp + settings.leeway:
        raise InvalidToken("the token has expired")
    nbf = claims.get("nbf")
    if isinstance(nbf, (int, float)) and now + settings.leeway < nbf:
        raise InvalidToken("the token is not valid yet")
    scope = claims.get("scope")
    if isinstance(scope, str):
        scopes: frozenset[str] = frozenset(scope.split())
    else:  # some servers send a list, as `scp`
        scp: object = claims.get("scp", scope)
        scopes = frozenset(s for s in scp if isinstance(s, str)) if is_array(scp) else frozenset()
    client_id = claims.get("client_id", claims.get("azp"))
    subject = claims.get("sub")
    return AuthInfo(
        subject=subject if isinstance(subject, str) else None,
        client_id=client_id if isinstance(client_id, str) else None,
        scopes=scopes,
        issuer=settings.issuer,
        audience=audiences,
        expires_at=int(exp) if isinstance(exp, (int, float)) else None,
        claims=dict(claims),
    )


def _header(token: str) -> dict[str, Any]:
    segment = token.split(".", 1)[0]
    try:
        header = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except ValueError:
        raise InvalidToken("not a signed JWT") from None
    if not is_object(header):
        raise InvalidToken("not a signed JWT")
    return header


def _canonical(url: str) -> str:
    return url.rstrip("/")
