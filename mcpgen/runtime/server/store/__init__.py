"""The store an HTTP server shares with its other workers: in memory (the default) or Redis."""

from __future__ import annotations

from ...core.errors import StoreUnavailable
from .base import SessionRecord, Store, redact
from .memory import MemoryStore


def open_store(url: str | None) -> Store:
    """The store a `--store` value names ("memory", "", None: in memory; redis:// or rediss://).
    ValueError with a one-line reason (the URL's password redacted) for anything else."""
    if url is None or url.strip() in ("", "memory"):
        return MemoryStore()
    from .redis import RedisStore

    return RedisStore(url.strip())


__all__ = ["MemoryStore", "SessionRecord", "Store", "StoreUnavailable", "open_store", "redact"]
