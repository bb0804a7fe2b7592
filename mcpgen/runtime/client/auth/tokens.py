"""What a login leaves behind: the client registration and the tokens, as one stored record."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ...core.jsonrpc import is_object

# A token this close to its expiry is refreshed before it is used (clocks drift, requests take time).
REFRESH_MARGIN = 60.0
# The longest lifetime believed (a year); a longer, negative, NaN or infinite one is a hostile or
# broken server's and is taken as this short one, so that the token is soon refreshed.
MAX_LIFETIME = 365 * 24 * 3600.0
UNTRUSTED_LIFETIME = 300.0


def bounded_seconds(value: Any, otherwise: float, ceiling: float = MAX_LIFETIME) -> float:
    """A number of seconds from an untrusted document: finite and within [0, ceiling], else
    `otherwise`. `10**400` (an int no float holds), NaN, Infinity, a bool or a string is none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return otherwise
    try:
        seconds = float(value)
    except OverflowError:
        return otherwise
    return seconds if math.isfinite(seconds) and 0 <= seconds <= ceiling else otherwise


@dataclass
class Tokens:
    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: str | None = None
    lifetime: float | None = None
    # The private JWK a DPoP-bound token is bound to (dpop.py): kept with the token, never apart.
    dpop_key: dict[str, Any] | None = None

    @property
    def scheme(self) -> str:
        """The Authorization scheme the token is presented with (RFC 9449 §7.1)."""
        return "DPoP" if self.dpop_key is not None else "Bearer"

    def expiring(self, margin: float = REFRESH_MARGIN) -> bool:
        """Within `margin` seconds of expiry (a quarter of its lifetime, for a short-lived token)."""
        if self.expires_at is None:
            return False
        if self.lifetime is not None:
            margin = min(margin, self.lifetime / 4)
        return time.time() + margin >= self.expires_at

    @classmethod
    def from_response(cls, body: dict[str, Any], previous: Tokens | None = None) -> Tokens:
        """A token endpoint's JSON answer (RFC 6749 §5.1); ValueError when it holds no token."""
        access = body.get("access_token")
        if not isinstance(access, str) or not access:
            raise ValueError("the token endpoint's answer holds no access_token")
        expires_in = body.get("expires_in")
        lifetime = None if expires_in is None else bounded_seconds(expires_in, UNTRUSTED_LIFETIME)
        refresh = body.get("refresh_token")
        scope = body.get("scope")
        return cls(
            access_token=access,
            token_type=str(body.get("token_type") or "Bearer"),
            # A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
            refresh_token=refresh if isinstance(refresh, str) else (previous.refresh_token if previous else None),
            expires_at=time.time() + lifetime if lifetime is not None else None,
            scope=scope if isinstance(scope, str) else (previous.scope if previous else None),
            lifetime=lifetime,
        )


@dataclass
class Client:
    """The client as the authorization server knows it (pre-registered, a metadata URL or DCR)."""

    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str = "none"


@dataclass
class Login:
    """Everything stored for one (resource, authorization server) pair."""

    resource: str
    issuer: str
    client: Client | None = None
    tokens: Tokens | None = None
    scope: str | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Login | None:
        """The stored record, or None when it is not one (a corrupt or foreign file loses nothing)."""
        if not is_object(data):
            return None
        try:
            client = data.get("client")
            tokens = data.get("tokens")
            return cls(
                resource=str(data["resource"]),
                issuer=str(data["issuer"]),
                client=Client(**_known(Client, client)) if is_object(client) else None,
                tokens=Tokens(**_known(Tokens, tokens)) if is_object(tokens) else None,
                scope=data.get("scope") if isinstance(data.get("scope"), str) else None,
            )
        except (KeyError, TypeError):
            return None


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}
