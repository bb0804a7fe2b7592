"""Test peer: a server whose capabilities do not say its tool list may change (no
`tools.listChanged`), which records every request method it serves.

    python tests/peers/quiet_tools_server.py [--declare] [--http --port N]

Tools: `echo {text}`; `notify`, which sends notifications/tools/list_changed all the same; and
`methods`, which answers the request methods this process served so
far, in order, as a JSON list (`methods` calls themselves left out). `--declare` declares
`tools: {listChanged: true}` instead: the control, a server that asked for change notifications.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

# Runnable as a script from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpgen.runtime import RequestContext, Server  # noqa: E402
from mcpgen.runtime.server.server import ServerConnection  # noqa: E402

_args = argparse.ArgumentParser()
_args.add_argument("--declare", action="store_true")
_args.add_argument("--http", action="store_true")
_args.add_argument("--port", type=int, default=8000)
ARGS = _args.parse_args()

SERVED: list[str] = []
_handle = ServerConnection.handle_request


def _recording(self: ServerConnection, method: str, params: dict[str, Any], request_id: Any) -> Awaitable[Any]:
    if not (method == "tools/call" and params.get("name") == "methods"):
        SERVED.append(method)
    return _handle(self, method, params, request_id)


ServerConnection.handle_request = _recording  # type: ignore[method-assign]

server = Server("quiet-tools", "1.0", capabilities={"tools": {"listChanged": True} if ARGS.declare else {}})


async def echo(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["text"])}]}


async def notify(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await ctx.list_changed("tools")  # though the capabilities never said the list may change
    return {"content": [{"type": "text", "text": "notified"}]}


async def methods(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(SERVED)}]}


ECHO = {
    "name": "echo",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
server.add_tool(ECHO, echo)
server.add_tool({"name": "methods", "inputSchema": {"type": "object", "properties": {}}}, methods)
server.add_tool({"name": "notify", "inputSchema": {"type": "object", "properties": {}}}, notify)

if __name__ == "__main__":
    if ARGS.http:
        from mcpgen.runtime.server.http.serving import serve_http
        from mcpgen.runtime.server.options import ServeOptions

        serve_http(server, ServeOptions(host="127.0.0.1", port=ARGS.port))
    else:
        server.run_stdio()
