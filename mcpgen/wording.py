"""Counts in words for messages people read: "1 tool", "2 tools", "1 file differs"."""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`n` and the noun in the number that fits it (plural defaults to singular + "s")."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def verb(n: int, singular: str, plural: str) -> str:
    """The verb form agreeing with a count: verb(1, "differs", "differ")."""
    return singular if n == 1 else plural
