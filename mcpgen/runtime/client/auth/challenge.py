"""The `WWW-Authenticate: Bearer ...` (or `DPoP ...`, RFC 9449 §7.1) challenge (RFC 6750 §3, RFC 9728 §5.1), parsed.

The header is untrusted: parsing never fails, unknown parameters are ignored, and every value
is capped so that a hostile header cannot grow what is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAM = re.compile(r'([A-Za-z0-9_\-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')
_MAX_VALUE = 2048


@dataclass(frozen=True)
class Challenge:
    status: int
    error: str | None = None
    scope: str | None = None
    resource_metadata: str | None = None

    @property
    def insufficient_scope(self) -> bool:
        return self.status == 403 and self.error == "insufficient_scope"


def parse_challenge(status: int, header: str) -> Challenge:
    """The Bearer (or DPoP) challenge's parameters (the first one, if several are offered)."""
    text = header[:16384]
    start = re.search(r"(?i)\b(?:bearer|dpop)\b", text)
    params: dict[str, str] = {}
    if start is not None:
        for match in _PARAM.finditer(text, start.end()):
            name = match.group(1).lower()
            if name in params:
                continue
            value = match.group(2) if match.group(2) is not None else match.group(3)
            params[name] = re.sub(r"\\(.)", r"\1", value)[:_MAX_VALUE]
    return Challenge(
        status=status,
        error=params.get("error"),
        scope=params.get("scope"),
        resource_metadata=params.get("resource_metadata"),
    )
