"""The cache hints a 2026-07-28 server puts on its cacheable results (SEP-2549): `ttlMs`, how
long a client may answer from its cache, and `cacheScope`, whether a shared intermediary may
keep the result ("public") or only the user's own client ("private").

Set per method (`Server(cache_hints={"tools/list": CacheHint(ttl_ms=60_000)})`, or a
scaffold's `CACHE_HINTS` on its Handlers class in handlers.py); a method not named keeps
`ttlMs: 0`, which asks every client to ask again. A server that announces list changes
(`notifications/tools/list_changed`) can give long hints safely: a client drops what a change
makes stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast

from ..core.jsonrpc import JSONObject

CacheScope = Literal["public", "private"]
CACHEABLE = ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read")
# A day: a longer hint is a typo more often than an intent, and clients cap it anyway.
MAX_TTL_MS = 86_400_000


@dataclass(frozen=True)
class CacheHint:
    """How long (ttl_ms) and by whom (scope) one method's results may be cached."""

    ttl_ms: int = 0
    scope: CacheScope = "public"

    def __post_init__(self) -> None:
        ttl_ms = cast(object, self.ttl_ms)  # (a caller's value, whatever its annotation says)
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int) or not 0 <= ttl_ms <= MAX_TTL_MS:
            raise ValueError(f"a cache hint's ttl_ms must be an integer from 0 to {MAX_TTL_MS}, not {self.ttl_ms!r}")
        if self.scope not in ("public", "private"):
            raise ValueError(f"a cache hint's scope must be 'public' or 'private', not {self.scope!r}")

    def fields(self) -> JSONObject:
        return {"ttlMs": self.ttl_ms, "cacheScope": self.scope}


def hints_by_method(configured: Mapping[str, CacheHint] | None) -> dict[str, JSONObject]:
    """The ttlMs/cacheScope fields of every cacheable method, `configured` over the default."""
    unknown = sorted(set(configured or {}) - set(CACHEABLE))
    if unknown:
        raise ValueError(f"cache_hints names {unknown[0]!r}; cacheable are {', '.join(CACHEABLE)}")
    hints = {method: CacheHint().fields() for method in CACHEABLE}
    for method, hint in (configured or {}).items():
        if not isinstance(cast(object, hint), CacheHint):  # (a caller's value, whatever its annotation says)
            raise TypeError(f"cache_hints[{method!r}] must be a CacheHint, not {type(hint).__name__}")
        hints[method] = hint.fields()
    return hints
