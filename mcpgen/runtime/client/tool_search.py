"""The one tool search: what code mode's `search_tools()` and the LLM discovery meta-tools answer.

A query is a few words from an agent or a model (untrusted): it is cut to MAX_QUERY characters
and MAX_WORDS words, and a tool matches when every word appears in its names or its text. A
word found in a name counts three times one found in the text; ties go by the tool's key, so
the same query over the same tools always answers the same list. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

SEARCH_LIMIT = 20  # what one search answers by default
MAX_LIMIT = 50  # what one search may answer at most, whatever it asks for
MAX_QUERY = 400  # characters of a query looked at
MAX_WORDS = 16  # words of a query looked at

_T = TypeVar("_T")


def query_words(query: str) -> list[str]:
    """The words a query is matched by (lower case, bounded)."""
    return query[:MAX_QUERY].lower().split()[:MAX_WORDS]


def rank(query: str, entries: Iterable[tuple[str, str, str, _T]], limit: int = SEARCH_LIMIT) -> list[_T]:
    """The items of `entries` (key, names, text, item) matching every word of `query`, best
    first, at most `limit` (bounded by MAX_LIMIT); an empty query lists the first by key."""
    words = query_words(query)
    scored: list[tuple[int, str, _T]] = []
    for key, names, text, item in entries:
        names, text = names.lower(), text.lower()
        if not all(w in names or w in text for w in words):
            continue
        scored.append((-sum(3 if w in names else 1 for w in words), key, item))
    scored.sort(key=lambda found: (found[0], found[1]))
    return [item for _, _, item in scored[: min(max(limit, 0), MAX_LIMIT)]]


def summary_of(description: str) -> str:
    """A tool's one-line summary: the first non-empty line of its description, at most 200 characters."""
    line = next((ln.strip() for ln in description.splitlines() if ln.strip()), "")
    return line if len(line) <= 200 else line[:199] + "…"
