"""A hostile HTTP server cannot grow the client's memory, connections or tasks (issue 13, item 5).

- one SSE event, or one response body, over the limit (16 MiB by default; a 64 MB one is sent)
  fails that call with MessageTooLarge (not a timeout) and the client stops reading early;
- a timed-out call closes its endless SSE stream at once (handshake era);
- 200 server requests whose answers the server drops: no unhandled-task tracebacks, the task
  count returns to its baseline, and the call still gets its result.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from pathlib import Path

import pytest
from serving import serving

from mcpgen.runtime import MessageTooLarge, RequestTimeout, connect_http
from mcpgen.runtime.transports.guard import DEFAULT_MAX_MESSAGE_BYTES

pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]

HOSTILE = str(Path(__file__).resolve().parents[1] / "peers" / "hostile_http_server.py")
MB = 1024 * 1024


def _log(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _sent(path: Path, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in _log(path):
            if line.startswith("sent "):
                return int(line.split()[1])
        time.sleep(0.05)
    raise AssertionError("the server never finished its stream")


@pytest.mark.parametrize("mode", ["huge-event", "huge-body"])
def test_oversized_message_fails_the_call_and_stops_reading(tmp_path: Path, mode: str) -> None:
    log = tmp_path / "server.log"
    with serving([sys.executable, HOSTILE, mode, "--port", "{port}", "--mb", "64", "--log", str(log)]) as url:

        async def main() -> str:
            async with connect_http(url, transport="streamable", timeout=30) as session:
                with pytest.raises(
                    MessageTooLarge,
                    match=r"^the server(( sent a line over)|('s response body passed)) the 16777216-byte limit$",
                ) as caught:
                    await session.call_tool("echo", {"text": "hi"})
                return str(caught.value)

        message = asyncio.run(asyncio.wait_for(main(), 60))
        sent = _sent(log)
    assert "limit" in message, message
    # The client hung up soon after the limit: socket buffers hold a few MB at most.
    assert sent < DEFAULT_MAX_MESSAGE_BYTES + 16 * MB, f"the server got {sent} bytes out"


def test_timed_out_call_closes_its_stream(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    calls = 5
    with serving([sys.executable, HOSTILE, "endless", "--port", "{port}", "--log", str(log)]) as url:

        async def main() -> None:
            async with connect_http(url, transport="streamable", timeout=30) as session:
                for _ in range(calls):
                    with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.3s$"):
                        await session.call_tool("echo", {"text": "hi"}, timeout=0.3)
                # While the session is still open, every abandoned stream is closed.
                deadline = time.monotonic() + 30  # (left as soon as they are: generous for a loaded machine)
                while _log(log).count("stream-closed") < calls and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert _log(log).count("stream-open") == calls
                assert _log(log).count("stream-closed") == calls, _log(log)

        asyncio.run(asyncio.wait_for(main(), 60))


def test_dropped_answers_leave_no_tracebacks_or_tasks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    count = 200
    log = tmp_path / "server.log"
    argv = [sys.executable, HOSTILE, "sampling-flood", "--port", "{port}", "--count", str(count), "--log", str(log)]
    unhandled: list[str] = []
    with serving(argv) as url:

        async def main() -> tuple[int, int, str]:
            loop = asyncio.get_running_loop()
            loop.set_exception_handler(lambda _loop, context: unhandled.append(str(context.get("message"))))
            baseline = len(asyncio.all_tasks())
            async with connect_http(url, transport="streamable", timeout=30) as session:
                result = await session.call_tool("echo", {"text": "hi"})
                deadline = time.monotonic() + 30
                while _log(log).count("dropped a response") < count and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)
            gc.collect()
            await asyncio.sleep(0)
            return baseline, len(asyncio.all_tasks()), result["content"][0]["text"]

        with caplog.at_level(logging.DEBUG, logger="asyncio"):
            baseline, after, text = asyncio.run(asyncio.wait_for(main(), 60))
    assert text == "done"
    assert _log(log).count("dropped a response") == count
    assert after <= baseline, f"{after - baseline} tasks left alive"
    assert unhandled == [], unhandled[:3]
    asyncio_errors = [r for r in caplog.records if r.name == "asyncio" and r.levelno >= logging.ERROR]
    assert asyncio_errors == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) <= 10, f"{len(warnings)} warnings, e.g. {warnings[0].getMessage()[:200]}"


def test_the_limit_is_an_option(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with serving([sys.executable, HOSTILE, "huge-event", "--port", "{port}", "--mb", "4", "--log", str(log)]) as url:

        async def main() -> None:
            async with connect_http(url, transport="streamable", max_message_bytes=MB) as session:
                with pytest.raises(MessageTooLarge, match=f"{MB}-byte limit"):
                    await session.call_tool("echo", {"text": "hi"})

        asyncio.run(asyncio.wait_for(main(), 60))
