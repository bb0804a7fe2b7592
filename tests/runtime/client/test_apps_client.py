"""MCP Apps, the client's side, against the official SDK's `mcp.server.apps`
(tests/peers/sdk_apps_server.py): the declared extension reaches the server, and a tool's
`_meta.ui.resourceUri` leads to its checked ui:// HTML, typed, in both eras."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import AppUi, ProtocolError, connect_stdio

pytestmark = pytest.mark.timeout(60)

PEER = str(Path(__file__).resolve().parents[2] / "peers" / "sdk_apps_server.py")


async def outcomes(protocol: str, **options: Any) -> dict[str, Any]:
    """What tool_ui gives (or raises) for each tool, and the server's view of the extension."""
    found: dict[str, Any] = {}
    async with connect_stdio(sys.executable, [PEER], protocol=protocol, **options) as session:
        found["declared"] = (await session.call_tool("supports_apps", {}))["content"][0]["text"]
        for name in ("get_time", "plain", "mislabeled", "elsewhere", "no-such-tool"):
            try:
                found[name] = await session.tool_ui(name)
            except (ProtocolError, LookupError) as error:
                found[name] = error
    return found


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_a_tools_ui_resource_is_read_typed_and_checked(protocol: str) -> None:
    found = asyncio.run(outcomes(protocol, mcp_apps=True))
    assert found["declared"] == "yes"
    assert found["get_time"] == AppUi(
        tool="get_time",
        uri="ui://clock/app.html",
        html="<!doctype html><title>Clock</title><p id=now></p>",
        ui_meta={"csp": {"resourceDomains": ["https://cdn.example.com"]}, "prefersBorder": True},
    )
    assert found["plain"] is None
    assert isinstance(found["mislabeled"], ProtocolError)
    assert "'ui://broken/page.html' of the tool 'mislabeled' is not HTML" in str(found["mislabeled"])
    assert isinstance(found["elsewhere"], ProtocolError) and "not a ui:// URI" in str(found["elsewhere"])
    assert isinstance(found["no-such-tool"], LookupError)


def test_without_the_option_the_client_does_not_declare_apps() -> None:
    assert asyncio.run(outcomes("legacy"))["declared"] == "no"
