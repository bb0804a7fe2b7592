"""Callback types the session and the options that carry them share.

Apart from `session.py` so that declaring the options (importing a generated client) does not
import asyncio: a client loads it when it connects.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

# (progress, total, message) of each notifications/progress about a request.
ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
