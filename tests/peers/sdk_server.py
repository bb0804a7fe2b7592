"""Test peer: an MCP server built with the official Python SDK (PyPI ``mcp``), over stdio or HTTP.

Tool set shared with ``runtime_server.py`` so the same tests and the benchmark can drive either:
echo, add, slow, progress, log, crash, big, weather (structured output).

    python tests/peers/sdk_server.py [--cancel-log FILE]
    python tests/peers/sdk_server.py --http --port N    # Streamable HTTP at http://127.0.0.1:N/mcp
    python tests/peers/sdk_server.py --sse --port N     # legacy HTTP+SSE (2024-11-05): GET /sse, POST /messages/

``--cancel-log FILE``: ``slow`` appends ``started <seconds>`` to FILE when it starts and
``cancelled <seconds>`` when it is cancelled (also written to stderr), so a test can wait for
the call to reach the handler and assert that the client's ``notifications/cancelled`` did too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import warnings

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

_args = argparse.ArgumentParser()
_args.add_argument("--cancel-log", default=None)
_args.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
_args.add_argument("--sse", action="store_true", help="serve the legacy HTTP+SSE transport at /sse instead of stdio")
_args.add_argument("--host", default="127.0.0.1")
_args.add_argument("--port", type=int, default=8000)
ARGS = _args.parse_args()

# Context.log is marked deprecated at 2026-07-28; the tests exercise it on purpose.
warnings.simplefilter("ignore")

mcp = MCPServer("sdk-test-server", version="1.0.0", instructions="Test peer for mcpgen", log_level="WARNING")


class WeatherReport(BaseModel):
    """Structured output: the SDK derives outputSchema from this model."""

    city: str
    temperature_c: float = Field(description="Temperature in Celsius")
    conditions: str


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def slow(seconds: float) -> str:
    """Sleep for the given number of seconds; records start and cancellation."""
    _record("started", seconds)
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _record("cancelled", seconds)
        raise
    return f"slept {seconds}"


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress once per step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await asyncio.sleep(0.01)
    return f"done {steps}"


@mcp.tool()
async def log(message: str, ctx: Context) -> str:
    """Send the message as a logging notification (level info, logger 'test')."""
    await ctx.log("info", message, logger_name="test")
    return "logged"


@mcp.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    sys.stderr.flush()
    os._exit(3)


@mcp.tool()
def big(mb: int) -> str:
    """Return a text of `mb` MiB."""
    return "x" * (mb * 1024 * 1024)


@mcp.tool()
def weather(city: str) -> WeatherReport:
    """A canned weather report (structured output)."""
    return WeatherReport(city=city, temperature_c=21.5, conditions="sunny")


def _record(event: str, seconds: float) -> None:
    print(f"sdk_server: slow({seconds}) {event}", file=sys.stderr, flush=True)
    if ARGS.cancel_log:
        with open(ARGS.cancel_log, "a", encoding="utf-8") as f:
            f.write(f"{event} {seconds}\n")


if __name__ == "__main__":
    if ARGS.http:
        mcp.run("streamable-http", host=ARGS.host, port=ARGS.port)
    elif ARGS.sse:
        mcp.run("sse", host=ARGS.host, port=ARGS.port)
    else:
        mcp.run("stdio")
