"""A runtime server whose tool handlers trigger change notifications (subscriptions tests).

    python tests/peers/listen_server.py [--http --port N [--store URL]]

Resources mem://a and mem://b; tool `touch {uri}` sends resources/updated for it, `change {kind}`
a <kind>/list_changed, `end_streams` ends every subscriptions/listen stream gracefully, `nap
{seconds, uri?}` answers after that long (then touches `uri`, if given) and says which process
answered (the cluster tests), `running` says which process answered and how many naps it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

# Runnable as a script from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpgen.runtime import RequestContext, Server  # noqa: E402

_args = argparse.ArgumentParser()
_args.add_argument("--http", action="store_true")
_args.add_argument("--port", type=int, default=8000)
_args.add_argument("--store", default=None)
ARGS = _args.parse_args()

server = Server("listen-test-server", "1.0.0")
STR = {"type": "string"}


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


async def touch(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await ctx.resource_updated(str(args["uri"]))
    return text("touched")


async def change(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await ctx.list_changed(str(args["kind"]))
    return text("changed")


async def end_streams(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    server.close_subscriptions()
    return text("ended")


RUNNING = [0]  # naps running in this process


async def nap(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    RUNNING[0] += 1
    try:
        await asyncio.sleep(float(args["seconds"]))
    finally:
        RUNNING[0] -= 1
    if "uri" in args:
        await ctx.resource_updated(str(args["uri"]))
    return text(f"pid {os.getpid()}")


async def running(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return text(f"{os.getpid()} {RUNNING[0]}")


async def read(uri: str, ctx: RequestContext) -> dict[str, Any]:
    return {"contents": [{"uri": uri, "text": f"content of {uri}"}]}


async def subscribe(uri: str, on: bool, ctx: RequestContext) -> None:
    return None


def obj(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


server.add_tool({"name": "touch", "inputSchema": obj({"uri": STR})}, touch)
server.add_tool({"name": "change", "inputSchema": obj({"kind": STR})}, change)
server.add_tool({"name": "end_streams", "inputSchema": obj({})}, end_streams)
NAP = {"type": "object", "properties": {"seconds": {"type": "number"}, "uri": STR}, "required": ["seconds"]}
server.add_tool({"name": "nap", "inputSchema": NAP}, nap)
server.add_tool({"name": "running", "inputSchema": obj({})}, running)
for name in ("a", "b"):
    server.add_resource({"uri": f"mem://{name}", "name": name}, read)
server.set_subscribe(subscribe)

if __name__ == "__main__":
    if ARGS.http:
        from mcpgen.runtime.server.http.serving import serve_http
        from mcpgen.runtime.server.options import ServeOptions
        from mcpgen.runtime.server.store import open_store

        serve_http(server, ServeOptions(host="127.0.0.1", port=ARGS.port, store=open_store(ARGS.store)))
    else:
        server.run_stdio()
