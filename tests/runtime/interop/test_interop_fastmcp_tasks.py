"""Tasks against FastMCP's own implementation (fastmcp-tasks, SEP-2663), both ways: the runtime
client runs a FastMCP task to its result, and FastMCP's client (`call_tool_task`) runs a task of
the generated conformance server.

fastmcp-tasks cannot share this venv: its newest release on PyPI (4.1.4) pins fastmcp-slim 4.1.4,
while the test extra pins fastmcp 4.2.3. So the FastMCP side runs in an interpreter of its own,
the venv `make setup` makes for it (.venv-fastmcp-tasks, `pip install fastmcp-tasks==4.1.4`),
or the one MCPGEN_FASTMCP_TASKS_PYTHON names; skipped only when neither exists (a checkout set
up some other way), and a failure in CI."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.runtime import connect_http
from tests.cluster import needs_redis, redis_server
from tests.serving import ServerProcess, needs_peer

REPO = Path(__file__).resolve().parents[3]
_PEER = REPO / ".venv-fastmcp-tasks/bin/python"
FASTMCP_PYTHON = os.environ.get("MCPGEN_FASTMCP_TASKS_PYTHON", "") or (str(_PEER) if _PEER.exists() else "")

pytestmark = [
    pytest.mark.slow,
    needs_redis,
    needs_peer(not FASTMCP_PYTHON, "no fastmcp-tasks interpreter (make setup makes .venv-fastmcp-tasks)"),
]

FASTMCP_SERVER = """\
import asyncio, sys
from fastmcp import FastMCP
from fastmcp_tasks import TasksExtension

mcp = FastMCP("fm-tasks")
mcp.add_extension(TasksExtension(url=sys.argv[2]))


@mcp.tool(task=True)
async def crunch(dataset: str) -> str:
    await asyncio.sleep(0.3)
    return f"crunched {dataset}"


mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
"""

FASTMCP_CLIENT = """\
import asyncio, sys
from fastmcp import Client
from fastmcp_tasks import call_tool_task


async def main() -> None:
    async with Client(sys.argv[1]) as client:
        task = await call_tool_task(client, "slow_compute", {"seconds": 0.3, "label": "fm"})
        result = await task.result()
        print(task.task_id, result.content[0].text)


asyncio.run(main())
"""


GENERATED_USE = """\
import asyncio, sys
from fmclient import AsyncClient


async def main() -> None:
    async with AsyncClient.connect_http(sys.argv[1]) as client:
        task = await client.start_crunch(dataset="d2")
        print(await task.wait(timeout=60))


asyncio.run(main())
"""


def test_the_runtime_client_runs_a_fastmcp_task(tmp_path: Path) -> None:
    script = tmp_path / "fm_server.py"
    script.write_text(FASTMCP_SERVER, encoding="utf-8")
    with redis_server(tmp_path) as redis_url:
        server = ServerProcess([FASTMCP_PYTHON, str(script), "{port}", redis_url], log_dir=tmp_path).start(timeout=120)
        try:

            async def main() -> None:
                async with connect_http(server.url, protocol="2026-07-28", timeout=30) as session:
                    assert "io.modelcontextprotocol/tasks" in session.server_capabilities.get("extensions", {})
                    task = await session.start_tool("crunch", {"dataset": "d1"})
                    assert task.task_id is not None and not task.done
                    result = await task.wait(timeout=60)
                    assert result["content"][0]["text"] == "crunched d1"

            asyncio.run(asyncio.wait_for(main(), 120))
            # A client generated from the live server: its tools get start_<tool> (FastMCP marks
            # none; it declares the extension), and the typed task runs.
            generated = subprocess.run(
                [sys.executable, "-m", "mcpgen.cli", "client", "--url", server.url, "-o", "fmclient"],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert generated.returncode == 0, generated.stderr
            use = tmp_path / "use_generated.py"
            use.write_text(GENERATED_USE, encoding="utf-8")
            done = subprocess.run(
                [sys.executable, str(use), server.url], cwd=tmp_path, capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, done.stderr[-3000:]
            assert done.stdout.strip() == "crunched d2"
        finally:
            server.stop()


def test_fastmcps_client_runs_a_task_of_the_generated_server(tmp_path: Path) -> None:
    ours = ServerProcess(
        [sys.executable, str(REPO / "examples/conformance/server.py"), "--port", "{port}"], log_dir=tmp_path
    ).start()
    script = tmp_path / "fm_client.py"
    script.write_text(FASTMCP_CLIENT, encoding="utf-8")
    try:
        done = subprocess.run([FASTMCP_PYTHON, str(script), ours.url], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        task_id, text = done.stdout.strip().split(" ", 1)
        assert task_id and text == "Computed fm after 0.3 s"
    finally:
        ours.stop()
