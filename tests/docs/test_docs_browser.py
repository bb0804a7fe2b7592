"""The reference page in a real browser: Debian's chromium, driven by Playwright, from file:// URLs.

Over the recorded captures (server-everything, time) and the conformance schemas: every tool,
prompt, resource and template is on the page, a TOC link scrolls to its entry, search filters,
nothing is requested beyond the file itself, nothing overflows a phone's width, and a
screenshot is taken. A hostile catalog's page runs none of its payloads. One browser for the
whole module.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from hostile_docs import hostile_document

from mcpgen.catalog.model import Catalog
from mcpgen.cli import main
from mcpgen.sources.files import load_file, load_many

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 15_000
# Each source and a word to search for (found in some entries, not all).
SOURCES = {
    "everything": (REPO / "tests/golden/inputs/everything.raw.json", "resource"),
    "time": (REPO / "tests/golden/inputs/time.raw.json", "convert"),
    "conformance": (REPO / "examples/conformance/schemas", "elicitation"),
}


def _catalog(source: Path) -> Catalog:
    cat, problems = load_many([source]) if source.is_dir() else load_file(source)
    assert cat is not None and not problems, problems
    return cat


def _generate(source: Path, out: Path) -> Path:
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["docs", str(source), "-o", str(out)])
    assert ei.value.code == 0
    return out / "index.html"


class Page:
    """One page opened in its own context, with every request and console error recorded."""

    def __init__(self, browser: Any, path: Path, *, width: int = 1280, height: int = 900, mobile: bool = False):
        self.context = browser.new_context(
            viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile, device_scale_factor=1
        )
        self.context.set_default_timeout(TIMEOUT_MS)
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = self.context.new_page()
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.as_uri(), wait_until="load")

    def close(self) -> None:
        self.context.close()

    def headings(self, kind: str) -> list[str]:
        return list(self.page.locator(f"article.entry[data-kind={kind}] h3 code").all_inner_texts())

    def visible_ids(self) -> set[str]:
        return set(self.page.eval_on_selector_all("article.entry:not([hidden])", "els => els.map(e => e.id)"))


def _text(definition: dict[str, Any], *keys: str) -> str:
    return " ".join(str(definition[k]) for k in keys if isinstance(definition.get(k), str))


def _expected(cat: Catalog) -> dict[str, list[tuple[str, str]]]:
    """Per kind: (heading, the text search looks in), straight from the catalog."""
    return {
        "tool": [(t.name, " ".join(x for x in (t.name, t.title, t.description) if x)) for t in cat.tools],
        "prompt": [(str(p["name"]), _text(p, "name", "title", "description")) for p in cat.prompts],
        "resource": [(str(r["uri"]), _text(r, "uri", "title", "description", "name")) for r in cat.resources],
        "template": [
            (str(t["uriTemplate"]), _text(t, "uriTemplate", "title", "description", "name"))
            for t in cat.resource_templates
        ],
    }


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_reference_page_in_chromium(name: str, browser: Any, tmp_path: Path) -> None:
    source, word = SOURCES[name]
    cat = _catalog(source)
    index = _generate(source, tmp_path / "docs")
    expected = _expected(cat)
    view = Page(browser, index)
    try:
        page = view.page
        # Every tool, prompt, resource and template is on the page, once.
        for kind, items in expected.items():
            assert sorted(view.headings(kind)) == sorted(h for h, _ in items), kind
        total = sum(len(items) for items in expected.values())
        assert page.locator("article.entry").count() == total

        # A TOC link: the URL takes its hash and the entry scrolls into view.
        links = page.locator("nav.toc li a")
        assert links.count() == total
        last = links.nth(total - 1)
        target = str(last.get_attribute("href"))
        assert target.startswith("#")
        last.click()
        page.wait_for_function("h => location.hash === h", arg=target)
        entry = page.locator(f"article{target}")
        box = entry.bounding_box()
        assert box is not None
        viewport_height = page.evaluate("window.innerHeight")
        assert 0 <= box["y"] < viewport_height, (box, viewport_height)
        assert page.evaluate("document.querySelector(':target') && document.querySelector(':target').id") == target[1:]

        # Search: what every word of the query appears in, nothing else; then everything again.
        page.locator("#search").fill(word)
        matching = {h for items in expected.values() for h, text in items if word in text.lower()}
        assert 0 < len(matching) < total, "pick a word that filters"
        visible = page.eval_on_selector_all("article.entry:not([hidden]) h3 code", "els => els.map(e => e.textContent)")
        assert sorted(visible) == sorted(matching)
        assert page.locator("nav.toc li:not([hidden])").count() == len(matching)
        assert page.locator("#search-count").inner_text() == f"{len(matching)} of {total} shown"
        page.locator("#search").fill("no-such-thing-anywhere-qzx")
        assert view.visible_ids() == set()
        page.locator("#search").fill("")
        assert len(view.visible_ids()) == total

        shot = tmp_path / f"{name}.png"
        page.screenshot(path=str(shot), full_page=False)
        assert _png_size(shot) == (1280, 900) and shot.stat().st_size > 10_000

        # Nothing but the file itself was requested; the CSP blocked nothing of the page's own.
        assert view.requests == [index.as_uri()]
        assert view.errors == []
    finally:
        view.close()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_phone_width_has_no_horizontal_scroll(name: str, browser: Any, tmp_path: Path) -> None:
    source, _ = SOURCES[name]
    index = _generate(source, tmp_path / "docs")
    view = Page(browser, index, width=375, height=740, mobile=True)
    try:
        page = view.page
        assert page.evaluate("window.innerWidth") == 375
        widths = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")
        assert max(widths) <= 375, widths
        # Entries with long tables and schemas still fit: their own boxes scroll, not the page.
        assert page.evaluate(
            "Array.from(document.querySelectorAll('article.entry')).every(a => a.getBoundingClientRect().right <= 375)"
        )
        shot = tmp_path / f"{name}-phone.png"
        page.screenshot(path=str(shot))
        assert _png_size(shot)[0] == 375
        assert view.requests == [index.as_uri()] and view.errors == []
    finally:
        view.close()


def test_hostile_catalog_runs_nothing_and_loads_nothing(browser: Any, tmp_path: Path) -> None:
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(hostile_document()))
    index = _generate(source, tmp_path / "docs")
    view = Page(browser, index)
    try:
        page = view.page
        for details in page.locator("details").all():
            details.evaluate("d => d.open = true")
        page.locator("#search").fill("script")
        page.wait_for_timeout(200)
        assert view.dialogs == []
        assert page.locator("img").count() == 0
        assert page.locator("article.entry[data-kind=tool] h3 code").inner_text().startswith('tool"><img')
        assert view.requests == [index.as_uri()]
    finally:
        view.close()
