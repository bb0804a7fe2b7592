"""Test peer: a stdio MCP server (mcpgen.runtime) advertising the tools in a JSON file, verbatim.

    python tools_peer.py TOOLS.json

Every tool answers with structured content {"city": <city or "?">, "temperatures": [1.0]}
so a client generated from a slightly different schema can still call it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpgen.runtime import RequestContext, Server  # noqa: E402

server = Server("tools-peer", "1.0.0")


async def answer(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    data = {"city": str(args.get("city", "?")), "temperatures": [1.0]}
    return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data, "isError": False}


for tool in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")):
    server.add_tool(tool, answer)

server.run_stdio()
