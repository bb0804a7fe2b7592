"""The generated conformance server (examples/conformance) with three handlers changed for the
scale-out tests, run through its own generated `__main__` (so --http, --port, --store are the
real flags): `test_tool_with_logging` raises resource_updated on test://watched-resource, and
`test_reconnection` streams ten progress steps slowly (a stream to cut and resume).

    python cluster_server.py --http --port 8001 --store redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "conformance"))

import conformance_server.__main__ as entry  # noqa: E402
from conformance_server._generated import Context, ToolOutput, models  # noqa: E402
from conformance_server.handlers import Handlers  # noqa: E402

STEPS = 10


class ClusterHandlers(Handlers):
    async def test_tool_with_logging(self, args: models.TestToolWithLoggingArgs, ctx: Context) -> ToolOutput:
        await ctx.resource_updated("test://watched-resource")
        return "updated test://watched-resource"

    async def test_reconnection(self, args: models.TestReconnectionArgs, ctx: Context) -> ToolOutput:
        for step in range(STEPS):
            await ctx.report_progress(step, STEPS, f"step {step}")
            await asyncio.sleep(0.15)
        return f"streamed {STEPS} steps"


if __name__ == "__main__":
    entry.Handlers = ClusterHandlers  # type: ignore[misc]
    entry.main()
