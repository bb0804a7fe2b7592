"""Test peer: an MCP server built on ``mcpgen.runtime.Server``, over stdio or Streamable HTTP.

Same tool set as ``sdk_server.py`` (echo, add, slow, progress, log, crash, big, weather), so the
official SDK client can be pointed at it and the benchmark can compare like with like; plus
``noisy``, which print()s and logs from a handler (stdout must still carry protocol only).

    python tests/peers/runtime_server.py [--cancel-log FILE]
    python tests/peers/runtime_server.py --http --port N [--stateless] [--cancel-log FILE]

``--http``: serve Streamable HTTP at http://127.0.0.1:N/mcp (uvicorn) instead of stdio;
``--stateless``: no handshake-era sessions, every request stands alone.

``--cancel-log FILE``: ``slow`` appends ``started <seconds>`` to FILE when it starts and
``cancelled <seconds>`` when it is cancelled (also written to stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

# Runnable as a script from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpgen.runtime import RequestContext, Server  # noqa: E402

_args = argparse.ArgumentParser()
_args.add_argument("--cancel-log", default=None)
_args.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
_args.add_argument("--host", default="127.0.0.1")
_args.add_argument("--port", type=int, default=8000)
_args.add_argument("--stateless", action="store_true", help="HTTP: serve handshake-era requests without sessions")
ARGS = _args.parse_args()

server = Server("runtime-test-server", "1.0.0", instructions="Test peer for mcpgen")


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def obj_schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


async def echo(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return text(args["text"])


async def add(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    total = int(args["a"]) + int(args["b"])
    # Same shape the SDK produces for a primitive return: wrapped in {"result": ...}.
    return {"content": [{"type": "text", "text": str(total)}], "structuredContent": {"result": total}, "isError": False}


async def slow(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    seconds = float(args["seconds"])
    _record("started", seconds)
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _record("cancelled", seconds)
        raise
    return text(f"slept {seconds}")


def _record(event: str, seconds: float) -> None:
    print(f"runtime_server: slow({seconds}) {event}", file=sys.stderr, flush=True)
    if ARGS.cancel_log:
        with open(ARGS.cancel_log, "a", encoding="utf-8") as f:
            f.write(f"{event} {seconds}\n")


async def progress(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    steps = int(args["steps"])
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await asyncio.sleep(0.01)
    return text(f"done {steps}")


async def log(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await ctx.log("info", args["message"], logger="test")
    return text("logged")


async def crash(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    sys.stderr.flush()
    os._exit(3)


async def big(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return text("x" * (int(args["mb"]) * 1024 * 1024))


async def noisy(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    # A careless handler: print() and logging must not reach stdout, which carries protocol only.
    print("noisy: print() from a handler")
    logging.getLogger("noisy").warning("noisy: logging from a handler")
    sys.stdout.write("noisy: sys.stdout.write from a handler\n")
    return text("noisy done")


async def weather(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    report = {"city": args["city"], "temperature_c": 21.5, "conditions": "sunny"}
    return {"content": [{"type": "text", "text": json.dumps(report)}], "structuredContent": report, "isError": False}


STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}

server.add_tool(
    {"name": "echo", "description": "Return the text unchanged.", "inputSchema": obj_schema({"text": STR}, ["text"])},
    echo,
)
server.add_tool(
    {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": obj_schema({"a": INT, "b": INT}, ["a", "b"]),
        "outputSchema": obj_schema({"result": INT}, ["result"]),
    },
    add,
)
server.add_tool(
    {
        "name": "slow",
        "description": "Sleep; records cancellation.",
        "inputSchema": obj_schema({"seconds": NUM}, ["seconds"]),
    },
    slow,
)
server.add_tool(
    {
        "name": "progress",
        "description": "Report progress once per step.",
        "inputSchema": obj_schema({"steps": INT}, ["steps"]),
    },
    progress,
)
server.add_tool(
    {
        "name": "log",
        "description": "Send a logging notification.",
        "inputSchema": obj_schema({"message": STR}, ["message"]),
    },
    log,
)
server.add_tool({"name": "crash", "description": "Kill the server mid-call.", "inputSchema": obj_schema({}, [])}, crash)
server.add_tool(
    {"name": "big", "description": "Return a text of mb MiB.", "inputSchema": obj_schema({"mb": INT}, ["mb"])}, big
)
server.add_tool(
    {"name": "noisy", "description": "print() and log from a handler.", "inputSchema": obj_schema({}, [])}, noisy
)
server.add_tool(
    {
        "name": "weather",
        "description": "A canned weather report (structured output).",
        "inputSchema": obj_schema({"city": STR}, ["city"]),
        "outputSchema": obj_schema(
            {"city": STR, "temperature_c": NUM, "conditions": STR}, ["city", "temperature_c", "conditions"]
        ),
    },
    weather,
)

if __name__ == "__main__":
    if ARGS.http:
        from mcpgen.runtime.server.http.serving import serve_http
        from mcpgen.runtime.server.options import ServeOptions

        serve_http(server, ServeOptions(host=ARGS.host, port=ARGS.port, stateless=ARGS.stateless))
    else:
        server.run_stdio()
