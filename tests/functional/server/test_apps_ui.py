"""MCP Apps UI on a scaffold (runtime/server/apps_ui.py): handlers.py's TOOL_UI names a tool's
ui:// page, the tool's definition carries `_meta.ui.resourceUri`, the page is served as
`text/html;profile=mcp-app` from `ui/` beside handlers.py, and a generated client's `tool_ui`
reads it. A TOOL_UI that names a missing tool, a non-ui:// URI, a missing file or a path out of
`ui/` stops the server at start, in one line."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import PY

from mcpgen.runtime import connect_memory
from mcpgen.runtime.client.apps import APP_MIME_TYPE as CLIENT_MIME
from mcpgen.runtime.server.apps_ui import APP_MIME_TYPE, MAX_UI_BYTES

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
        ({"plain": "ui://../handlers.py"}, "no file ui/../handlers.py"),
        (["plain"], "TOOL_UI must map tool names"),
    ],
)
def test_a_wrong_tool_ui_stops_the_server_at_start(packages: Any, tool_ui: Any, problem: str) -> None:
    _, server_pkg, _ = packages
    handlers = importlib.import_module("ui_srv.handlers")
    wrong = type("Wrong", (handlers.Handlers,), {"TOOL_UI": tool_ui, "__module__": handlers.__name__})
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(".", r"\.")):
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
