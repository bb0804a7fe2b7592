"""The `icons` of a tool, prompt, resource, template or server (MCP 2025-11-25), as generated
docstrings and reference pages show them: text, never fetched.

An icon's `src` comes from the source, so it is untrusted: only an `http:`/`https:` URL with a
host and no character a link could be broken out with may become a link (`link`); anything
else (`javascript:`, `data:`, a relative reference) is shown as text only, cut short. A
definition lists at most `MAX_ICONS` icons here; every field is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

MAX_ICONS = 8
# An http(s) URL longer than this is no link; any src is shown cut to SHOWN_CHARS.
MAX_LINK_CHARS = 2048
SHOWN_CHARS = 120
_FIELD_CHARS = 64  # a mimeType, a size, a theme
_LINKABLE_SCHEMES = frozenset({"http", "https"})
# What a URL may hold to be written as a link: RFC 3986's characters less those that end or
# escape a Markdown link or an HTML attribute (quotes, <>, parentheses, brackets, backslash).
_LINK_SAFE = re.compile(r"[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+")


@dataclass(frozen=True)
class Icon:
    """One icon as the docs show it."""

    shown: str  # the src as text, cut to SHOWN_CHARS
    link: str | None  # the src when it is an http(s) URL safe to link; None: text only
    details: tuple[str, ...]  # mimeType, sizes, theme (each cut short)

    @property
    def text(self) -> str:
        """One line: the src, then what else the source says of it."""
        return self.shown + (f" ({', '.join(self.details)})" if self.details else "")


def link_of(src: str) -> str | None:
    """`src` when it may be written as a link: http or https, a host, nothing that could end the
    link or attribute it sits in; else None (the rule for every src, in one place)."""
    if len(src) > MAX_LINK_CHARS or not _LINK_SAFE.fullmatch(src):
        return None
    try:
        parts = urlsplit(src)
    except ValueError:
        return None
    if parts.scheme.lower() not in _LINKABLE_SCHEMES or not parts.hostname:
        return None
    return src


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())  # one line
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _details(icon: Mapping[str, Any]) -> tuple[str, ...]:
    out: list[str] = []
    mime = icon.get("mimeType")
    if isinstance(mime, str) and mime.strip():
        out.append(_short(mime, _FIELD_CHARS))
    sizes = icon.get("sizes")
    if isinstance(sizes, list):
        shown = [_short(s, _FIELD_CHARS) for s in sizes[:MAX_ICONS] if isinstance(s, str) and s.strip()]
        if shown:
            out.append(" ".join(shown))
    theme = icon.get("theme")
    if isinstance(theme, str) and theme.strip():
        out.append(_short(theme, _FIELD_CHARS) + " theme")
    return tuple(out)


def icons_of(definition: Mapping[str, Any] | None) -> tuple[Icon, ...]:
    """The icons `definition` lists (at most MAX_ICONS; entries without a string src skipped)."""
    listed = definition.get("icons") if isinstance(definition, Mapping) else None
    if not isinstance(listed, list):
        return ()
    out: list[Icon] = []
    for icon in listed:
        if len(out) == MAX_ICONS:
            break
        if isinstance(icon, Mapping) and isinstance(icon.get("src"), str) and icon["src"].strip():
            src: str = icon["src"]
            out.append(Icon(_short(src, SHOWN_CHARS), link_of(src), _details(icon)))
    return tuple(out)


def icon_lines(definition: Mapping[str, Any] | None) -> list[str]:
    """Each icon as one line of text, `<src> (<details>)`, for a docstring's `Icons:` section."""
    return [i.text for i in icons_of(definition)]
