"""Tasks (the Tasks extension) across two workers of the generated server sharing a real Redis:
a task started on one worker is polled, answered and cancelled through the other, and a task
whose worker is killed gives one clear error (TaskFailed naming the stopped worker), not a hang."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import TaskFailed, ToolTask, connect_http
from tests.cluster import RedisServer, needs_redis
from tests.serving import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), needs_redis]

TASKS_SERVER = Path(__file__).resolve().parent / "tasks_server.py"
MODERN = "2026-07-28"


async def confirm(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"confirm": True}}


async def refuse(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "decline"}  # declares elicitation; the second client answers instead


def test_a_task_lives_in_the_store_and_a_dead_workers_task_fails_clearly(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path).start()
    argv = [sys.executable, str(TASKS_SERVER), "--http", "--port", "{port}", "--store", redis.url]
    first = ServerProcess(argv, log_dir=tmp_path).start()
    second = ServerProcess(argv, log_dir=tmp_path).start()
    try:

        async def main() -> None:
            async with (
                connect_http(first.url, protocol=MODERN, timeout=30, on_elicitation=refuse) as on_first,
                connect_http(second.url, protocol=MODERN, timeout=30, on_elicitation=confirm) as on_second,
            ):
                # Started on the first worker, answered and awaited through the second.
                asking = await on_first.start_tool("confirm_delete", {"filename": "b.txt"})
                assert asking.task_id is not None
                elsewhere = ToolTask(on_second, "confirm_delete", asking.task_id)
                assert (await elsewhere.wait(timeout=30))["content"][0]["text"] == "Deleted b.txt"
                # Cancelled through the second worker while the first runs it.
                long = await on_first.start_tool("slow_compute", {"seconds": 60})
                assert long.task_id is not None
                await ToolTask(on_second, "slow_compute", long.task_id).cancel()
                with pytest.raises(TaskFailed, match="cancelled"):
                    await long.wait(timeout=30)
                # The first worker dies with a task running: the second reports it failed, once.
                orphan = await on_first.start_tool("slow_compute", {"seconds": 60})
                assert orphan.task_id is not None
                assert first.proc is not None
                os.kill(first.proc.pid, signal.SIGKILL)
                polled = ToolTask(on_second, "slow_compute", orphan.task_id)
                with pytest.raises(TaskFailed, match="the worker running this task stopped") as failed:
                    await polled.wait(timeout=30)
                assert failed.value.status == "failed" and failed.value.code == -32603
                with pytest.raises(TaskFailed, match="the worker running this task stopped"):
                    await ToolTask(on_second, "slow_compute", orphan.task_id).wait(timeout=30)

        asyncio.run(asyncio.wait_for(main(), 120))
        second.assert_alive()
    finally:
        first.stop()
        second.stop()
        redis.stop()
