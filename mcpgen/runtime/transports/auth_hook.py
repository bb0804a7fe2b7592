"""What an HTTP client transport asks of an auth object (`connect_http(..., auth=...)`).

The transport knows nothing of OAuth: before each request it asks for the Authorization header
value, and when the server answers 401, or 403 with a `WWW-Authenticate` challenge, it hands the
challenge over and retries once if told to. The header only ever goes to the transport's own URL
(its origin: see guard.py), so a token never reaches another origin through the transport.

An auth object that binds tokens to a key (DPoP, RFC 9449) may also have
`async request_headers(resource_url, method) -> dict` (the Authorization and DPoP headers of one
request, used instead of `authorization`) and `note_nonce(resource_url, nonce)` (the DPoP-Nonce
of a refusal, read before `challenged` is asked).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class AuthHook(Protocol):
    async def authorization(self, resource_url: str) -> str | None:
        """The Authorization header value for a request to resource_url, or None (send none)."""
        ...

    async def challenged(self, resource_url: str, status: int, www_authenticate: str) -> bool:
        """The server refused a request (401, or 403 with a challenge): True to retry it."""
        ...
