"""DNS-rebinding protection: the Host and Origin headers an HTTP server accepts (checked before
anything else of a request but its declared size)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")


@dataclass(frozen=True)
class HttpSecurity:
    """Which Host and Origin headers are acceptable.

    Empty means "loopback names only", the safe default for a local server.
    """

    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()

    def host_ok(self, host: str | None) -> bool:
        if host is None:
            return False
        if self.allowed_hosts:
            return host in self.allowed_hosts or host.rsplit(":", 1)[0] in self.allowed_hosts
        return _hostname(host) in _LOOPBACK

    def origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a browser: nothing to rebind
        if self.allowed_origins:
            return origin in self.allowed_origins
        return _hostname(urlsplit(origin).netloc) in _LOOPBACK


def _hostname(netloc: str) -> str:
    if netloc.startswith("["):
        return netloc.split("]", 1)[0] + "]"
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc
