"""MCP Apps UI on a scaffold (runtime/server/apps_ui.py): handlers.py's TOOL_UI names a tool's
ui:// page, the tool's definition carries `_meta.ui.resourceUri`, the page is served as
`text/html;profile=mcp-app` from `ui/` beside handlers.py, and a generated client's `tool_ui`
reads it; a server serving a UI declares the `io.modelcontextprotocol/ui` extension in both eras.
A TOOL_UI that names a missing tool, a non-ui:// URI, a missing file, a path out of `ui/` or a
link is a one-line ServerSetupError at start (and `python -m` of the package exits with it)."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import PY

from mcpgen.runtime import ServerSetupError, connect_memory
from mcpgen.runtime.client.apps import APP_MIME_TYPE as CLIENT_MIME
from mcpgen.runtime.core.protocol import EXTENSION_UI
from mcpgen.runtime.server.apps_ui import APP_MIME_TYPE, MAX_UI_BYTES, ui_uri_problem

TOOLS = [
    {"name": "show-forecast", "inputSchema": {"type": "object"}, "_meta": {"other": 1}},
    {"name": "plain", "inputSchema": {"type": "object"}},
]
PAGE = "<!doctype html><title>Forecast</title><p>sunny"
HANDLERS = """
from ._generated import Context, ToolsBase, models


class Handlers(ToolsBase):
    TOOL_UI = {"show-forecast": "ui://weather/forecast.html"}

    async def show_forecast(self, args: models.ShowForecastArgs, ctx: Context) -> str:
        return "sunny"

    async def plain(self, args: models.PlainArgs, ctx: Context) -> str:
        return "plain"
"""


def _mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run([PY, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("apps")
    (root / "tools.json").write_text(json.dumps(TOOLS))
    _mcpgen("server", "tools.json", "-o", "ui_srv", cwd=root)
    _mcpgen("client", "tools.json", "-o", "ui_client", cwd=root)
    (root / "ui_srv/handlers.py").write_text(HANDLERS)
    (root / "ui_srv/ui/weather").mkdir(parents=True)
    (root / "ui_srv/ui/weather/forecast.html").write_text(PAGE)
    sys.path.insert(0, str(root))
    try:
        yield root, importlib.import_module("ui_srv"), importlib.import_module("ui_client")
    finally:
        sys.path.remove(str(root))


def test_the_scaffold_serves_the_page_and_a_generated_client_reads_it(packages: Any) -> None:
    root, server_pkg, client_pkg = packages
    handlers = importlib.import_module("ui_srv.handlers")

    async def main() -> tuple[Any, ...]:
        async with connect_memory(server_pkg.build_server(handlers.Handlers()), protocol="2026-07-28") as session:
            client = client_pkg.AsyncClient(session)
            listed = {t["name"]: t for t in (await session.request("tools/list"))["tools"]}
            return listed, await client.tool_ui("show-forecast"), await client.tool_ui("plain")

    listed, ui, none = asyncio.run(main())
    assert listed["show-forecast"]["_meta"] == {"other": 1, "ui": {"resourceUri": "ui://weather/forecast.html"}}
    assert "_meta" not in listed["plain"]
    assert (ui.uri, ui.html) == ("ui://weather/forecast.html", PAGE)
    assert none is None
    assert APP_MIME_TYPE == CLIENT_MIME


@pytest.mark.parametrize(
    ("tool_ui", "problem"),
    [
        ({"nope": "ui://weather/forecast.html"}, "'nope', which is no tool of this server"),
        ({"plain": "https://x/forecast.html"}, "must be a ui:// URI"),
        ({"plain": "ui://weather/missing.html"}, "no file ui/weather/missing.html"),
        (
            {"plain": "ui://../handlers.py"},
            "must name a file inside ui/: its path must stay inside its folder (no '..'",
        ),
        ({"plain": "ui://weather//forecast.html"}, "must name a file inside ui/"),
        ({"plain": "ui://weather\\forecast.html"}, "must name a file inside ui/"),
        ({"plain": "ui://" + "x" * 600}, "at most 500 characters"),
        (["plain"], "TOOL_UI must map tool names"),
    ],
)
def test_a_wrong_tool_ui_stops_the_server_at_start(packages: Any, tool_ui: Any, problem: str) -> None:
    _, server_pkg, _ = packages
    handlers = importlib.import_module("ui_srv.handlers")
    wrong = type("Wrong", (handlers.Handlers,), {"TOOL_UI": tool_ui, "__module__": handlers.__name__})
    with pytest.raises(ServerSetupError, match=problem.replace("(", r"\(").replace(".", r"\.")):
        server_pkg.build_server(wrong())


def test_an_oversized_page_is_an_error_not_a_read(packages: Any) -> None:
    root, server_pkg, _ = packages
    handlers = importlib.import_module("ui_srv.handlers")
    (root / "ui_srv/ui/big.html").write_bytes(b"x" * (MAX_UI_BYTES + 1))
    big = type("Big", (handlers.Handlers,), {"TOOL_UI": {"plain": "ui://big.html"}, "__module__": handlers.__name__})

    async def main() -> None:
        async with connect_memory(server_pkg.build_server(big()), protocol="2026-07-28") as session:
            await session.read_resource("ui://big.html")

    with pytest.raises(Exception, match="is over 4194304 bytes"):
        asyncio.run(main())


def _capabilities(server: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The server's capabilities as initialize (handshake era) and server/discover declare them."""

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with connect_memory(server, protocol="2025-11-25") as old:
            legacy = dict(old.server_capabilities)
        async with connect_memory(server, protocol="2026-07-28") as new:
            modern = dict(new.server_capabilities)
        return legacy, modern

    return asyncio.run(main())


def test_the_extension_is_declared_in_both_eras_exactly_when_a_ui_is_served(packages: Any) -> None:
    _, server_pkg, _ = packages
    handlers = importlib.import_module("ui_srv.handlers")
    for caps in _capabilities(server_pkg.build_server(handlers.Handlers())):
        assert caps["extensions"] == {EXTENSION_UI: {}}, caps
    none = type("NoUi", (handlers.Handlers,), {"TOOL_UI": None, "__module__": handlers.__name__})
    for caps in _capabilities(server_pkg.build_server(none())):
        assert "extensions" not in caps, caps


def test_the_path_rule_holds_for_every_shape(packages: Any) -> None:
    assert ui_uri_problem("ui://weather/forecast.html") is None
    for bad in ("ui://", "https://x/y.html", 3, None, "ui://a/../b.html", "ui://./a.html", "ui:///a.html",
                "ui://a\\b.html", "ui://a\nb.html", "ui://a/"):  # fmt: skip
        assert ui_uri_problem(bad) is not None, bad


@pytest.mark.parametrize("linked", ["ui", "ui/linked", "ui/linked/page.html"])
def test_a_page_reached_through_a_link_is_refused(packages: Any, tmp_path: Path, linked: str) -> None:
    """The ui/ folder, a folder on the way, or the page itself a symbolic link: refused at start."""
    _, server_pkg, _ = packages
    handlers = importlib.import_module("ui_srv.handlers")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "page.html").write_text(PAGE)
    here = tmp_path / "pkg"
    (here / "ui/linked").mkdir(parents=True)
    (here / "ui/linked/page.html").write_text(PAGE)
    target = here / linked
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    target.symlink_to(outside / "page.html" if linked.endswith(".html") else outside)
    module = tmp_path / "pkg" / "linked_handlers.py"
    module.write_text("")
    spec = importlib.util.spec_from_file_location("linked_handlers", module)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["linked_handlers"] = mod
    try:
        spec.loader.exec_module(mod)
        uri = "ui://page.html" if linked == "ui" else "ui://linked/page.html"
        linked_cls = type("Linked", (handlers.Handlers,), {"TOOL_UI": {"plain": uri}, "__module__": "linked_handlers"})
        with pytest.raises(
            ServerSetupError, match=r"is a link; paths are followed through real files and folders only"
        ):
            server_pkg.build_server(linked_cls())
    finally:
        del sys.modules["linked_handlers"]


def test_python_m_the_package_exits_with_one_line(packages: Any) -> None:
    root, _, _ = packages
    handlers = root / "ui_srv/handlers.py"
    saved = handlers.read_text()
    handlers.write_text(saved.replace("ui://weather/forecast.html", "ui://weather/gone.html"))
    try:
        done = subprocess.run(
            [PY, "-m", "ui_srv"], cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    finally:
        handlers.write_text(saved)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "cannot start the server: TOOL_UI['show-forecast']: no file ui/weather/gone.html beside handlers.py"
    ], done.stderr
