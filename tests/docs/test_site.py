"""The documentation site (mkdocs.yml): it builds with `mkdocs build --strict` (every link between
README.md and the pages checked, every page in the nav), its generated pages are current, the
README stays a front page, and the built site works in Debian's chromium: styles loaded from the
site itself, no request leaves it (no CDN fonts), and search finds a word."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docs_support import missing

from mcpgen import config
from mcpgen.runtime.server.auth import settings

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300
TIMEOUT_MS = 15_000


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _table_keys(page: str, heading: str) -> set[str]:
    """The first column's `keys` of the table under `## heading` of a docs page."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z_-]+)` \|", section, re.M))


def test_readme_is_a_front_page() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move the detail into a page of docs/"


def test_cli_reference_is_current() -> None:
    cli_reference = _script("cli_reference")
    assert cli_reference.PAGE.read_text(encoding="utf-8") == cli_reference.render(), (
        "docs/reference/cli.md is stale: run python scripts/cli_reference.py"
    )


def test_config_reference_names_every_key() -> None:
    assert _table_keys("reference/config.md", "`[tool.mcpgen.targets.NAME]`") == config._KEYS
    auth_keys = {key for _, _, key, _ in settings._OPTIONS.values() if key}
    assert _table_keys("reference/config.md", "`[tool.mcpgen.auth]`") == auth_keys


def test_runtime_api_reference_names_every_public_name() -> None:
    import mcpgen.runtime as runtime

    page = (REPO / "docs" / "reference" / "runtime-api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^        - (\w+)$", page, re.M))
    errors = {name for name, where in runtime._WHERE.items() if where == ".core.errors"}
    assert listed | errors == set(runtime.__all__)
    assert "::: mcpgen.runtime.core.errors" in (REPO / "docs" / "reference" / "errors.md").read_text(encoding="utf-8")


def test_home_page_links_become_site_links() -> None:
    hooks = _script("mkdocs_hooks")
    assert (
        hooks.home_page("[a](docs/how-to/x.md) [b](https://x/docs/y.md)") == "[a](how-to/x.md) [b](https://x/docs/y.md)"
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        missing("mkdocs-material is not installed (pip install -e '.[docs]', part of '.[test]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": str(Path(sys.executable).parent), "NO_MKDOCS_2_WARNING": "1", "HOME": str(out)},
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return out


@pytest.mark.slow  # the site fixture runs mkdocs build (about 10 s)
def test_strict_build_writes_every_page(site: Path) -> None:
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="how-to/clients/"' in home  # README's docs/how-to/clients.md, as a site link
    assert "fonts.googleapis.com" not in home and "fonts.gstatic.com" not in home
    api = (site / "reference" / "runtime-api" / "index.html").read_text(encoding="utf-8")
    assert "connect_stdio" in api and "ClientSession" in api  # mkdocstrings rendered the docstrings


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (search loads its index with fetch, which file:// refuses)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
@pytest.mark.parametrize(("path", "word"), [("", "snapshot"), ("reference/cli/", "cassette")])
def test_page_renders_and_search_works(path: str, word: str, served: str, browser: Any, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    requests: list[str] = []
    failed: list[str] = []
    errors: list[str] = []
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(served + path, wait_until="load")
        # The theme's own stylesheet is applied: its rules are loaded and the header is styled.
        rules = page.evaluate(
            "Array.from(document.styleSheets).filter(s => s.href && s.href.includes('/assets/stylesheets/main.'))"
            ".map(s => s.cssRules.length)"
        )
        assert rules and rules[0] > 100, rules
        header = page.evaluate("getComputedStyle(document.querySelector('header.md-header')).position")
        assert header == "sticky"
        # Search: open it, type a word, and a result appears.
        search = page.locator("input.md-search__input")
        search.click()
        search.press_sequentially(word)
        results = page.locator(".md-search-result__item")
        results.first.wait_for(state="visible")
        assert word in results.first.inner_text().lower()
        shot = tmp_path / "page.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        # Nothing was fetched from anywhere but the site itself, and nothing it asked for failed.
        assert [u for u in requests if not u.startswith(served)] == []
        assert failed == [] and errors == []
    finally:
        context.close()
