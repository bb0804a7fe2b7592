"""The authorization server's signing keys, fetched when first needed and refreshed sparingly."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey, RSAKey, import_key

from ...core.errors import AuthServerUnavailable
from ...core.jsonrpc import is_array, is_object
from .remote import discover_jwks_url, fetch_json

PublicKey = RSAKey | ECKey | OKPKey
# joserfc's module-level import_key, typed per key type on every Python the runtime supports
# (the key classes' own import_key returns `typing.Self`, which newer joserfc imports from
# `typing`: Unknown to a checker run for Python 3.10).
_KEY_TYPES: dict[str, Literal["RSA", "EC", "OKP"]] = {"RSA": "RSA", "EC": "EC", "OKP": "OKP"}
MAX_KEYS = 50


class JwksCache:
    """Keys by kid. Refetched when older than `max_age`, or when a token names a kid not seen yet,
    but never more than once per `min_interval`: a flood of tokens with made-up kids costs the
    authorization server one request per interval, not one per token."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        issuer: str,
        jwks_url: str | None,
        *,
        max_age: float = 3600,
        min_interval: float = 30,
    ) -> None:
        self._client = client
        self._issuer = issuer
        self._url = jwks_url
        self._max_age = max_age
        self._min_interval = min_interval
        self._keys: dict[str | None, PublicKey] = {}
        self._fetched_at: float | None = None
        self._lock = asyncio.Lock()

    async def key(self, kid: str | None) -> PublicKey | None:
        """The key for a token's kid (a token without one: the only key, if there is just one)."""
        now = time.monotonic()
        stale = self._fetched_at is None or now - self._fetched_at > self._max_age
        if stale or (self._find(kid) is None and now - (self._fetched_at or 0) > self._min_interval):
            await self._refresh(now)
        return self._find(kid)

    def _find(self, kid: str | None) -> PublicKey | None:
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _refresh(self, started: float) -> None:
        async with self._lock:
            if self._fetched_at is not None and self._fetched_at >= started:
                return  # another request refreshed while this one waited
            try:
                if self._url is None:
                    self._url = await discover_jwks_url(self._client, self._issuer)
                document = await fetch_json(self._client, "GET", self._url)
            except AuthServerUnavailable:
                if self._fetched_at is None:
                    raise
                # Keep serving with the keys we have; try again after the interval.
                self._fetched_at = time.monotonic() - self._max_age + self._min_interval
                return
            self._keys = _public_keys(document.get("keys"))
            self._fetched_at = time.monotonic()


def _public_keys(entries: Any) -> dict[str | None, PublicKey]:
    """The signing keys of a JWKS: asymmetric, public, meant for signatures; others are skipped."""
    keys: dict[str | None, PublicKey] = {}
    if not is_array(entries):
        return keys
    for entry in entries[:MAX_KEYS]:
        if not is_object(entry) or entry.get("use", "sig") != "sig" or "d" in entry:
            continue
        kind = _KEY_TYPES.get(str(entry.get("kty")))
        if kind is None:
            continue
        try:
            key = import_key(entry, kind)
        except (JoseError, ValueError, TypeError):
            continue
        kid = entry.get("kid")
        keys[kid if isinstance(kid, str) else None] = key
    return keys
