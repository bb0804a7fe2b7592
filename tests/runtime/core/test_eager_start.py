"""Eager request tasks (Python 3.12 and later), over a real pipe.

The test suite runs on the project's own Python; when that is older than 3.12, the server side
of these tests runs under a newer interpreter found on this machine (skipped when there is none),
since the eager path exists only there.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import RpcError, Session
from mcpgen.runtime.transports.stdio import StdioClientTransport

SERVER = Path(__file__).with_name("eager_server.py")


def _eager_python() -> str | None:
    """This interpreter if it has eager tasks, else the newest 3.12+ one found (PATH, pyenv)."""
    if sys.version_info >= (3, 12):
        return sys.executable
    found = [shutil.which(f"python3.{minor}") for minor in range(20, 11, -1)]
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found += sorted(glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3")), reverse=True)
    for candidate in filter(None, found):
        probe = subprocess.run(
            [candidate, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"], capture_output=True, timeout=30
        )
        if probe.returncode == 0:
            return candidate
    return None


PYTHON = _eager_python()
pytestmark = pytest.mark.skipif(PYTHON is None, reason="no Python 3.12 or later on this machine")


async def _served(body: Any) -> Any:
    assert PYTHON is not None
    transport = StdioClientTransport(PYTHON, [str(SERVER)])
    await transport.start()
    client = Session(transport, timeout=20)
    client.start()
    try:
        return await body(client)
    finally:
        await client.close()


def _run(body: Any) -> Any:
    return asyncio.run(asyncio.wait_for(_served(body), 60))


def test_answers_that_never_wait_run_eagerly_each_in_its_own_task_and_context() -> None:
    async def body(client: Session) -> Any:
        results = await asyncio.gather(*(client.request("echo", {"text": f"t{i}"}) for i in range(200)))
        return results, await client.request("status")

    results, status = _run(body)
    assert [r["echo"] for r in results] == [f"t{i}" for i in range(200)]
    assert {r["leak"] for r in results} == {"unset"}  # a context variable set by one never reaches the next
    assert status["version"] >= [3, 12]
    # Each handler ran within its request's dispatch (no loop turn of its own), in a task of its own.
    assert status["eager"] == 200 and status["lazy"] == 0
    assert status["distinctTasks"] == 200
    assert status["inFlight"] == 0  # answered eagerly: nothing left registered as running


def test_a_timeout_in_a_handler_cancels_that_handler_and_not_the_session() -> None:
    async def body(client: Session) -> Any:
        timed = await client.request("timeout")
        return timed, await client.request("echo", {"text": "after"})

    timed, after = _run(body)
    assert timed == {"timedOut": True}
    assert after["echo"] == "after"


def test_a_handler_that_waits_is_cancelled_by_the_peer_and_forgotten() -> None:
    async def body(client: Session) -> Any:
        waiting = asyncio.ensure_future(client.request("wait"))
        await asyncio.sleep(0.2)
        waiting.cancel()  # the client sends notifications/cancelled
        with pytest.raises(asyncio.CancelledError, match=r"^$"):
            await waiting
        for _ in range(100):
            status = await client.request("status")
            if status["cancelled"]:
                return status
            await asyncio.sleep(0.02)
        return status

    status = _run(body)
    assert status["cancelled"] == 1
    assert status["inFlight"] == 0


def test_a_handler_that_fails_is_answered_with_an_error_and_serving_goes_on() -> None:
    async def body(client: Session) -> Any:
        with pytest.raises(RpcError, match=r"^\[-32603\] Internal error$") as failed:
            await client.request("no-such-method")
        return failed.value, await client.request("echo", {"text": "still"})

    error, after = _run(body)
    assert error.message == "Internal error"
    assert after["echo"] == "still"
