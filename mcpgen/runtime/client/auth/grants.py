"""The JWT-bearer grants (RFC 7523 §2.1) a client without a user logs in with:

- workload identity federation (the MCP WIF extension, SEP-1933): the platform's workload JWT
  (a Kubernetes, GitHub Actions or cloud identity token) is the assertion itself;
- enterprise-managed authorization (SEP-990): the user's ID token from the enterprise's identity
  provider is first exchanged there (RFC 8693) for an Identity Assertion JWT Authorization Grant
  (ID-JAG) naming the authorization server and the MCP server, which is then the assertion.

Both assertions are credentials: the workload JWT and the ID-JAG go to the authorization server
the binding rule allows (through endpoints.authenticate), the ID token only to the identity
provider the caller configured. A failure is reported once, never retried with another grant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ...core.errors import AuthError
from ...core.redaction import scrub
from .endpoints import FormRequest, error_of, post_form

if TYPE_CHECKING:
    import httpx

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


@dataclass(frozen=True)
class IdentityProvider:
    """The enterprise identity provider of enterprise-managed authorization.

    token_endpoint: where the ID token is exchanged for an ID-JAG.
    client_id/client_secret: this client as the identity provider knows it.
    id_token: the user's ID token from their single sign-on (a string, or a function that
        returns a current one)."""

    token_endpoint: str
    client_id: str
    id_token: str | Callable[[], str]
    client_secret: str | None = None


def current(value: str | Callable[[], str]) -> str:
    """A configured token, or the current one its function returns (tokens expire)."""
    token = cast(object, value() if callable(value) else value)  # (a user's function may return anything)
    if not isinstance(token, str) or not token:
        raise AuthError("the configured assertion is empty")
    return token


async def id_jag(
    http: httpx.AsyncClient, provider: IdentityProvider, *, audience: str, resource: str, scope: str | None
) -> str:
    """The ID-JAG for (authorization server `audience`, MCP server `resource`) from the identity
    provider's token exchange (RFC 8693 §2.1, SEP-990)."""
    id_token = current(provider.id_token)
    form = {
        "grant_type": _TOKEN_EXCHANGE,
        "requested_token_type": _ID_JAG,
        "subject_token": id_token,
        "subject_token_type": _ID_TOKEN,
        "audience": audience,
        "resource": resource,
        "client_id": provider.client_id,
    }
    if provider.client_secret is not None:
        form["client_secret"] = provider.client_secret
    if scope:
        form["scope"] = scope
    status, answer = await post_form(http, provider.token_endpoint, FormRequest(form, {}))
    grant = answer.get("access_token")
    if status != 200 or answer.get("issued_token_type") != _ID_JAG or not isinstance(grant, str) or not grant:
        message = scrub(error_of(status, answer), [id_token, provider.client_secret])
        raise AuthError(f"the identity provider's token exchange for an ID-JAG failed: {message}")
    return grant
