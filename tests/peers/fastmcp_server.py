"""Test peer: an MCP server built with FastMCP 4.x (PyPI ``fastmcp``), over Streamable HTTP or stdio.

The same ``echo`` tool as ``sdk_server.py`` (bench/echo_tool.json is its tools/list entry), so the
HTTP benchmark can put FastMCP beside the official SDK's MCPServer; FastMCP serves both protocol
eras (the ``initialize`` handshake and the stateless 2026-07-28 one) on one endpoint.

    python tests/peers/fastmcp_server.py --http --port N    # Streamable HTTP at http://127.0.0.1:N/mcp
    python tests/peers/fastmcp_server.py                    # stdio
"""

from __future__ import annotations

import argparse
import os
import warnings

# FastMCP prints a banner and checks PyPI for a newer release at start: neither belongs in a bench.
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP  # noqa: E402

_args = argparse.ArgumentParser()
_args.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
_args.add_argument("--host", default="127.0.0.1")
_args.add_argument("--port", type=int, default=8000)
ARGS = _args.parse_args()

warnings.simplefilter("ignore")

mcp = FastMCP("fastmcp-test-server", version="1.0.0", instructions="Test peer for mcpgen")


@mcp.tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    if ARGS.http:
        mcp.run("http", host=ARGS.host, port=ARGS.port, path="/mcp", log_level="WARNING", show_banner=False)
    else:
        mcp.run("stdio", show_banner=False)
