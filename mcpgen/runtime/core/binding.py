"""Rule 3 of docs/threat-model.md: a credential goes only to the origin it is bound to.

Every credential the OAuth client sends passes `may_send` first, the one place the rule is held:

- a credential bound to an issuer (the issuer configured with `OAuth(issuer=...)` /
  MCPGEN_OAUTH_ISSUER, the issuer a stored client registration or refresh token came from)
  goes to that issuer only, compared exactly;
- an access token goes to the resource it was obtained for only;
- an unbound credential (a client secret, a private key's assertion, a pre-registered client id,
  a dynamic registration, without a configured issuer) goes only to an authorization server that
  a document served from the MCP server's own origin named (its protected resource metadata, or
  for a 2025-03-26 server without one, the server's origin itself).

The resource server's own credentials follow the same rule: its introspection client secret
goes only to an introspection endpoint on its configured issuer's origin (server/auth/settings.py).

A refusal is one line naming both sides; nothing is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import AuthError


@dataclass(frozen=True)
class Binding:
    """What one credential may go to, for one MCP server.

    resource: the MCP server (its canonical URL) the credential is used for;
    bound_to: the issuer (or, for an access token, the resource) it belongs to; None: whichever
        authorization server the resource's own origin names;
    named_by: the URL of the document that named the issuer it is about to go to (None: none
        did, it came from configuration or the store)."""

    resource: str
    bound_to: str | None = None
    named_by: str | None = None


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port made explicit; ("", "", None) when url has none."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ("", "", None)
    scheme = parts.scheme.lower()
    if port is None:
        port = {"https": 443, "http": 80}.get(scheme)
    return (scheme, (parts.hostname or "").lower(), port)


def same_origin(a: str, b: str) -> bool:
    first = origin(a)
    return bool(first[1]) and first == origin(b)


def may_send(credential: str, destination: str, binding: Binding) -> None:
    """Raise AuthError unless `credential` (what it is, for the message: "the client secret")
    may go to `destination` (an issuer, or for an access token the resource)."""
    if binding.bound_to is not None:
        if destination == binding.bound_to:
            return
        raise AuthError(
            f"refusing to send {credential} to {destination[:200]!r}: it belongs to {binding.bound_to[:200]!r}"
        )
    if binding.named_by is not None and same_origin(binding.named_by, binding.resource):
        return
    named = binding.named_by[:200] if binding.named_by else "nothing"
    raise AuthError(
        f"refusing to send {credential} to {destination[:200]!r}: it was named by {named!r},"
        f" which is not on the origin of {binding.resource[:200]!r}"
    )
