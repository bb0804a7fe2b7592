"""The one scrubber for text that may carry a secret: error messages, log lines, `auth status`,
cassettes. A hostile peer that is sent a secret may echo it back in any encoding, so a secret is
looked for in every form it can take on the way: raw, percent-encoded (both `quote` flavours),
base64 of either (standard and URL-safe, at every alignment, as inside a `Basic` header), JSON-escaped,
and cut short (a prefix or a suffix of at least half of it, and at least 8 characters).

Secrets shorter than 4 characters are no secret and would mangle the text (`1`, `UTC`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

MASK = "***"
MIN_SECRET = 4
_MIN_PART = 8  # the shortest truncated or base64 fragment that still counts as the secret


def _base64_forms(raw: bytes) -> set[str]:
    """The base64 characters that only the secret's bytes decide, at each of the three offsets
    the secret can start at inside a longer encoded string (`client_id:secret`)."""
    found: set[str] = set()
    for offset in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * offset + raw).decode("ascii").rstrip("=")
            start = -(-offset * 8 // 6)  # the characters holding prefix bits
            end = len(text) if (offset + len(raw)) % 3 == 0 else len(text) - 1  # the last, partial one
            part = text[start:end]
            if len(part) >= _MIN_PART:
                found.add(part)
    return found


def secret_forms(secret: str) -> set[str]:
    """Every encoding of `secret` a message may carry, itself included."""
    if len(secret) < MIN_SECRET:
        return set()
    raw = secret.encode("utf-8")
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret), json.dumps(secret)[1:-1]}
    forms |= {json.dumps(secret, ensure_ascii=False)[1:-1]}
    for text in (raw, quote(secret, safe="").encode(), quote_plus(secret, safe="").encode()):
        forms |= _base64_forms(text)  # a Basic header percent-encodes before it base64-encodes
    return {f for f in forms if len(f) >= MIN_SECRET}


def _truncations(secret: str) -> list[str]:
    """Prefixes and suffixes of secret, longest first, down to half of it (and _MIN_PART)."""
    shortest = max(_MIN_PART, -(-len(secret) // 2))
    return [part for size in range(len(secret) - 1, shortest - 1, -1) for part in (secret[:size], secret[-size:])]


def scrub(text: str, secrets: Iterable[str | None], mask: str = MASK) -> str:
    """`text` with every form of every secret replaced by mask, longest first (one may contain
    another, and a whole secret must go before its truncations are looked for)."""
    wanted = {s for s in secrets if s and len(s) >= MIN_SECRET}
    if not wanted or not text:
        return text
    forms = {form for secret in wanted for form in secret_forms(secret)}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, mask)
    for secret in sorted(wanted, key=len, reverse=True):
        if len(secret) <= _MIN_PART:
            continue
        probe = secret[: max(_MIN_PART, -(-len(secret) // 2))]
        tail = secret[-max(_MIN_PART, -(-len(secret) // 2)) :]
        if probe not in text and tail not in text:
            continue  # the common case: no part of it is left, and the loop below is skipped
        for part in _truncations(secret):
            text = text.replace(part, mask)
    return text
