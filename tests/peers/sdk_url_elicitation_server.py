"""Test peer: an official-SDK (PyPI ``mcp``) server over stdio that sends the user to URLs, both
ways the 2025-11-25 spec has: asking (`ctx.elicit_url`, elicitation/create mode "url") and
refusing a call with -32042 (UrlElicitationRequiredError) until the user has been there.

    python tests/peers/sdk_url_elicitation_server.py [URL]   # URL: what the tools send users to
"""

from __future__ import annotations

import sys

from mcp import UrlElicitationRequiredError
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequestURLParams

URL = sys.argv[1] if len(sys.argv) > 1 else "https://accounts.example.com/link?session=abc"

mcp = MCPServer("sdk-url-elicitation", version="1.0.0")
# The calls of list_files refused so far: the first one is, the retry is served.
refused: list[str] = []


@mcp.tool()
async def link_account(ctx: Context) -> str:
    """Ask the user to link their account at the server's URL; returns what they answered."""
    answer = await ctx.elicit_url("Link your account to continue", URL, "link-1")
    return answer.action


@mcp.tool()
def list_files(folder: str) -> str:
    """Refused with -32042 until the user has authorized at the URL (once per folder)."""
    if folder not in refused:
        refused.append(folder)
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(mode="url", message="Authorize file access", url=URL, elicitation_id="auth-1")]
        )
    return f"files of {folder}"


if __name__ == "__main__":
    mcp.run("stdio")
