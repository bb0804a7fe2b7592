"""`python -m PKG --http` says where it listens (the real port, even for --port 0) and logs
requests only with --access-log, using the bundled weather example as the server."""

from __future__ import annotations

import asyncio
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mcpgen.runtime import connect_http

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "weather"
ANNOUNCED = re.compile(r"^serving MCP on (http://127\.0\.0\.1:(\d+)/mcp)$")


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line.rstrip("\n"))


def _next_line(lines: queue.Queue[str], timeout: float) -> str | None:
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return None


@pytest.mark.slow
@pytest.mark.parametrize("access_log", [False, True])
def test_http_server_announces_its_url_and_logs_requests_only_when_asked(access_log: bool) -> None:
    argv = [sys.executable, "-m", "weather_server", "--http", "--port", "0"] + (["--access-log"] if access_log else [])
    proc = subprocess.Popen(argv, cwd=EXAMPLE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stderr, lines), daemon=True).start()
    try:
        first = _next_line(lines, 60)
        assert first is not None, "the server printed nothing"
        match = ANNOUNCED.match(first)
        assert match and int(match.group(2)) > 0, first
        url = match.group(1)

        async def call() -> list[str]:
            async with connect_http(url) as s:
                return [t["name"] for t in await s.list_tools()]

        assert "get-forecast" in asyncio.run(call())
        time.sleep(0.3)
        rest = []
        while (line := _next_line(lines, 0.5)) is not None:
            rest.append(line)
        if access_log:
            assert any("POST /mcp" in line for line in rest), rest
        else:
            assert rest == [], rest
        assert proc.stdout is not None
    finally:
        proc.terminate()
        proc.wait(timeout=10)
