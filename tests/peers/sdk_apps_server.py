"""Test peer: an official-SDK (PyPI ``mcp``) server over stdio with MCP Apps (`mcp.server.apps`):
`get_time` renders a `ui://` HTML app; `plain` has no UI; `supports_apps` answers whether the
client declared Apps; `mislabeled` and `elsewhere` name UIs a client must refuse (served as
text/plain, and an https:// URI).

    python tests/peers/sdk_apps_server.py
"""

from __future__ import annotations

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

CLOCK_HTML = "<!doctype html><title>Clock</title><p id=now></p>"

apps = Apps()


@apps.tool(resource_uri="ui://clock/app.html", description="The current time, with a clock UI")
def get_time(ctx: Context) -> str:
    return "12:00"


apps.add_html_resource(
    "ui://clock/app.html",
    CLOCK_HTML,
    csp=ResourceCsp(resource_domains=["https://cdn.example.com"]),
    prefers_border=True,
)

mcp = MCPServer("sdk-apps", version="1.0.0", extensions=[apps])


@mcp.tool()
def supports_apps(ctx: Context) -> str:
    """Whether the client declared MCP Apps (the SDK's own check)."""
    return "yes" if client_supports_apps(ctx) else "no"


@mcp.tool()
def plain() -> str:
    """No UI."""
    return "plain"


@mcp.tool(meta={"ui": {"resourceUri": "ui://broken/page.html"}})
def mislabeled() -> str:
    """Its UI is served as text/plain."""
    return "mislabeled"


@mcp.tool(meta={"ui": {"resourceUri": "https://evil.example.com/app.html"}})
def elsewhere() -> str:
    """Its UI is not a ui:// resource."""
    return "elsewhere"


@mcp.resource("ui://broken/page.html", mime_type="text/plain")
def broken_page() -> str:
    return "<script>not an app</script>"


if __name__ == "__main__":
    mcp.run("stdio")
