"""A stdio server handles at most --max-in-flight requests at once (issue 34, moderate: 50,000
unread calls raised its memory to 285 MiB). At the bound it stops reading stdin (back-pressure:
the client's writes block in the pipe), a request already read beyond it is answered at once
with a JSON-RPC error, and every request gets exactly one answer. A real server process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.runtime.core import jsonrpc

from ._stdio import INITIALIZE, INITIALIZED, call, line

pytestmark = pytest.mark.timeout(120)

SERVER = """
import asyncio, sys
from mcpgen.runtime.server.command import serve_main
from mcpgen.runtime.server.server import Server

running = 0
most = 0

async def nap(arguments, ctx):
    global running, most
    running += 1
    most = max(most, running)
    try:
        await asyncio.sleep(0.01)
    finally:
        running -= 1
    return {"content": [{"type": "text", "text": str(most)}]}

def build():
    server = Server("t", "1")
    server.add_tool({"name": "nap", "inputSchema": {"type": "object"}}, nap)
    return server

serve_main(build, prog="t", argv=sys.argv[1:])
"""


def _serve(tmp_path: Path, data: bytes, *flags: str) -> list[dict[str, object]]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    proc = subprocess.run([sys.executable, str(script), *flags], input=data, capture_output=True, timeout=100)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return [json.loads(raw) for raw in proc.stdout.splitlines() if raw.strip()]


@pytest.mark.slow
def test_at_most_max_in_flight_requests_run_and_the_excess_gets_an_error(tmp_path: Path) -> None:
    count = 3000
    data = line(INITIALIZE) + line(INITIALIZED) + b"".join(call(10 + i, "nap", {}) for i in range(count))
    messages = _serve(tmp_path, data, "--max-in-flight", "8")
    answered = {m["id"]: m for m in messages if "id" in m and m["id"] != 1}
    assert len(answered) == count == len(messages) - 1  # each request answered once
    results = [m for m in answered.values() if "result" in m]
    busy = [m for m in answered.values() if "error" in m]
    assert results, "no call was served"
    assert busy, "nothing was read beyond the bound"
    assert {m["error"]["code"] for m in busy} == {jsonrpc.SERVER_BUSY}  # type: ignore[index]
    most = max(int(m["result"]["content"][0]["text"]) for m in results)  # type: ignore[index]
    assert most <= 8, f"{most} requests ran at once"


def test_the_flag_is_refused_below_one(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    proc = subprocess.run([sys.executable, str(script), "--max-in-flight", "0"], capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert b"must be at least 1" in proc.stderr
