"""DPoP (RFC 9449, the MCP DPoP extension): proofs of possession of a key that an access token
is bound to, so that a stolen token is useless without the key.

The key is an EC P-256 key made by joserfc when a login starts; its private JWK is kept in the
token store beside the token it is bound to (Tokens.dpop_key), so that a stored login keeps
working after a restart and a token never travels without the key it needs. Each proof is
fresh (its own jti and iat), names the request's method and URL (without query or fragment),
and for a resource request carries the token's hash (ath). A server's nonce (DPoP-Nonce) is
remembered per origin, bounded, and put in the next proof to that origin.
"""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...core.errors import AuthError

ALGORITHM = "ES256"
# Nonces are short strings a server picks; a longer one, or more origins than this, is refused.
_MAX_NONCE = 512
_MAX_ORIGINS = 64


def new_key() -> dict[str, Any]:
    """A fresh private key as a JWK (what the token store keeps)."""
    # (joserfc's module-level functions: typed on every supported Python, server/auth/jwks.py)
    from joserfc.jwk import generate_key

    return dict(generate_key("EC", "P-256").as_dict(private=True))


def supported(metadata_algs: list[str] | None) -> bool:
    """The authorization server offers DPoP with the algorithm this client signs with."""
    return bool(metadata_algs) and ALGORITHM in (metadata_algs or [])


def proof(
    private_jwk: dict[str, Any], method: str, url: str, *, token: str | None = None, nonce: str | None = None
) -> str:
    """A DPoP proof JWT for one request (RFC 9449 §4.2)."""
    from joserfc import jwt
    from joserfc.jwk import import_key

    try:
        key = import_key(private_jwk, "EC")
    except Exception:
        raise AuthError("the stored DPoP key could not be read") from None
    parts = urlsplit(url)
    claims: dict[str, Any] = {
        "jti": uuid.uuid4().hex,
        "htm": method.upper(),
        "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
        "iat": int(time.time()),
    }
    if token is not None:
        digest = hashlib.sha256(token.encode("ascii", "replace")).digest()
        claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    if nonce is not None:
        claims["nonce"] = nonce
    header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": key.as_dict(private=False)}
    return jwt.encode(header, claims, key)


class Nonces:
    """The last DPoP-Nonce each origin sent (bounded: a hostile server cannot grow it)."""

    def __init__(self) -> None:
        self._by_origin: dict[str, str] = {}

    def get(self, url: str) -> str | None:
        return self._by_origin.get(_origin(url))

    def note(self, url: str, value: str | None) -> bool:
        """Remember value for url's origin; True when it is a new nonce (worth a retry)."""
        if not value or len(value) > _MAX_NONCE or not value.isascii() or not value.isprintable():
            return False
        origin = _origin(url)
        if self._by_origin.get(origin) == value:
            return False
        if origin not in self._by_origin and len(self._by_origin) >= _MAX_ORIGINS:
            self._by_origin.pop(next(iter(self._by_origin)))
        self._by_origin[origin] = value
        return True


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
