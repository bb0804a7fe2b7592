"""The hook for tokens that come from elsewhere: any object with `token()` (and optionally
`refresh()`) is a TokenProvider, and `BearerToken` adapts it to what the transport asks."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class TokenProvider(Protocol):
    async def token(self) -> str | None:
        """The access token to send, or None to send none."""


class BearerToken:
    """`connect_http(url, auth=BearerToken(provider))`: the provider's token as a Bearer header.
    On a 401 the provider is asked once more (it may fetch a new token); the request is retried
    only if the token changed."""

    def __init__(self, provider: TokenProvider) -> None:
        self._provider = provider
        self._last: str | None = None

    async def authorization(self, resource_url: str) -> str | None:
        self._last = await self._provider.token()
        return f"Bearer {self._last}" if self._last else None

    async def challenged(self, resource_url: str, status: int, www_authenticate: str) -> bool:
        if status != 401:
            return False
        fresh = await self._provider.token()
        return bool(fresh) and fresh != self._last
