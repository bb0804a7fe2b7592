"""Icons (MCP 2025-11-25) in generated docstrings and docs: text, never fetched; only an http(s)
URL that cannot break out of a link may be one (mcpgen/plan/icons.py)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from generation import GenerateFn, tool

from mcpgen.plan.icons import MAX_ICONS, SHOWN_CHARS, icons_of, link_of


@pytest.mark.parametrize(
    ("src", "linked"),
    [
        ("https://icons.example/a.png", True),
        ("http://icons.example/a.png?size=48&theme=dark", True),
        ("HTTPS://icons.example/a.png", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        ("data:image/png;base64,AAAA", False),
        ("file:///etc/passwd", False),
        ("//icons.example/a.png", False),
        ("/a.png", False),
        ("https:///no-host.png", False),
        ("https://icons.example/a).png", False),
        ('https://icons.example/"onerror=x', False),
        ("https://icons.example/<script>", False),
        ("https://icons.example/a b.png", False),
        ("https://icons.example/\u2028.png", False),
        ("https://icons.example/" + "a" * 3000, False),
    ],
)
def test_only_a_plain_http_url_may_be_a_link(src: str, linked: bool) -> None:
    assert (link_of(src) == src) is linked
    (icon,) = icons_of({"icons": [{"src": src}]})
    assert (icon.link == src) is linked
    assert len(icon.shown) <= SHOWN_CHARS and "\u2028" not in icon.shown


def test_every_field_is_bounded_and_junk_is_skipped() -> None:
    listed: list[Any] = [{"src": f"https://i.example/{n}.png", "sizes": ["48x48"] * 50} for n in range(50)]
    icons = icons_of({"icons": [None, {"src": 1}, {"src": "  "}, *listed]})
    assert len(icons) == MAX_ICONS and icons[0].shown == "https://i.example/0.png"
    assert len(icons[0].text) < 1000
    assert icons_of({"icons": "https://x"}) == () == icons_of(None)


def test_tool_docstrings_list_icons_as_text(generate: GenerateFn) -> None:
    icons = [
        {"src": "https://icons.example/echo.png", "mimeType": "image/png", "sizes": ["48x48"]},
        {"src": 'javascript:alert(1)"""; import os'},
    ]
    pkg = generate([tool("echo", {"text": {"type": "string"}}, icons=icons)])
    doc = inspect.getdoc(pkg.AsyncClient.echo) or ""
    assert "Icons:\n    https://icons.example/echo.png (image/png, 48x48)\n" in doc
    assert 'javascript:alert(1)"""; import os' in doc  # text in the docstring, nothing more
