"""The client's cache of 2026-07-28 cacheable results (SEP-2549): a `tools/list`,
`prompts/list`, `resources/list`, `resources/templates/list` page or a `resources/read` answer
is kept for the `ttlMs` the server gave it, and answered from here until then.

Bounded every way a server could grow it: at most MAX_ENTRIES results (the oldest goes first),
no result over MAX_RESULT_BYTES of JSON, and no hint longer than MAX_TTL_MS. The cache belongs to
one session (one user's credentials), so `cacheScope: "private"` results are kept as well as
public ones; a shared intermediary would keep only the public. A `list_changed` notification
drops that list's pages, `notifications/resources/updated` the reads of that URI: the server's
own word wins over the hint it gave.
"""

from __future__ import annotations

import copy
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..core.jsonrpc import JSONObject, is_object

CACHEABLE = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"})
MAX_ENTRIES = 256
MAX_RESULT_BYTES = 1024 * 1024
MAX_TTL_MS = 3_600_000  # an hour: a longer hint is held to this
# notifications/<kind>/list_changed -> the list method whose pages it makes stale.
_LIST_OF_KIND = {"tools": "tools/list", "prompts": "prompts/list", "resources": "resources/list"}


class ResultCache:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: OrderedDict[tuple[str, str], tuple[float, JSONObject]] = OrderedDict()
        self._max_entries = max_entries

    @staticmethod
    def key(method: str, params: JSONObject | None) -> tuple[str, str] | None:
        """The entry a request would use; None for a request that is never cached."""
        if method not in CACHEABLE:
            return None
        wanted = {k: v for k, v in (params or {}).items() if k != "_meta"}
        return method, json.dumps(wanted, sort_keys=True, separators=(",", ":"), default=str)

    def get(self, key: tuple[str, str]) -> JSONObject | None:
        """A copy of the fresh result (the caller may change what it gets), or None."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, result = entry
        if time.monotonic() >= expires:
            del self._entries[key]
            return None
        try:
            return copy.deepcopy(result)
        except RecursionError:  # (only on a deeper stack than put's): ask the server again
            del self._entries[key]
            return None

    def put(self, key: tuple[str, str], result: Any) -> None:
        """Keep result for its ttlMs (not at all for 0, a missing or a malformed hint)."""
        ttl = result.get("ttlMs") if is_object(result) else None
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0:
            return
        try:
            if len(json.dumps(result, separators=(",", ":"), default=str)) > MAX_RESULT_BYTES:
                return
            kept = copy.deepcopy(result)
        except RecursionError:  # a result nested as deep as the parser allows is not cached
            return
        self._entries.pop(key, None)
        while len(self._entries) >= self._max_entries:
            self._entries.popitem(last=False)
        self._entries[key] = (time.monotonic() + min(float(ttl), MAX_TTL_MS) / 1000, kept)

    def list_changed(self, kind: str) -> None:
        method = _LIST_OF_KIND.get(kind)
        if kind == "resources":
            self._drop(lambda m, _p: m == "resources/templates/list")
        self._drop(lambda m, _p: m == method)

    def resource_updated(self, uri: str) -> None:
        self._drop(lambda m, p: m == "resources/read" and json.loads(p).get("uri") == uri)

    def clear(self) -> None:
        self._entries.clear()

    def _drop(self, stale: Callable[[str, str], bool]) -> None:
        for key in [k for k in self._entries if stale(*k)]:
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
