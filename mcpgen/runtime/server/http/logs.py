"""The HTTP server's logger, and the filter that turns a flood of one failure into a line per period."""

from __future__ import annotations

import collections
import logging
import time

log = logging.getLogger("mcpgen.runtime.http")


class RateLimited(logging.Filter):
    """Lets one record per message template through per period; the next one that passes says how
    many were held back. A flood of identical failures (accept errors, refused connections) costs
    one log line per period, not one per failure."""

    def __init__(self, period: float = 10.0) -> None:
        super().__init__()
        self.period = period
        self._last: dict[tuple[str, str], float] = {}
        self._held: collections.Counter[tuple[str, str]] = collections.Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.period:
            self._held[key] += 1
            return False
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like this in the last {self.period:g} s)"
        return True


rate_limited = RateLimited()
log.addFilter(rate_limited)
logging.getLogger("mcpgen.runtime.store").addFilter(rate_limited)
