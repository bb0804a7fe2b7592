"""An official-SDK (PyPI `mcp`) stdio server whose tools publish subscriptions/listen events.

Tool `touch {uri}` publishes a resource update, `change_tools` a tools list change.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("sdk-listen-server", version="1.0.0", log_level="WARNING")


@mcp.resource("mem://a")
def resource_a() -> str:
    return "a"


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    await ctx.notify_resource_updated(uri)
    return "touched"


@mcp.tool()
async def change_tools(ctx: Context) -> str:
    await ctx.notify_tools_changed()
    return "changed"


if __name__ == "__main__":
    mcp.run("stdio")
