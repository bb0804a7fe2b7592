"""protocol="auto" against servers that are slow to answer the `server/discover` probe.

A modern server still starting up (importing its SDK on a loaded machine) may answer the probe
after the probe timeout. The client then also sends `initialize`, but must keep listening for
the probe's answer: once such a server has answered discover it refuses the handshake
(-32022), and taking that refusal as the verdict made the connection fail.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from mcpgen.runtime import connect_stdio

# A stdio server: answers discover after DELAY seconds (or never, when DELAY < 0) and treats
# initialize as MODE says: "refuse" (modern only, -32022), or "accept" (a legacy server).
SERVER = textwrap.dedent(
    """
    import json, sys, time
    delay, mode = float(sys.argv[1]), sys.argv[2]
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        method, rid = msg.get("method"), msg["id"]
        if method == "server/discover":
            if delay < 0:
                continue
            time.sleep(delay)
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "1"}}}
            out = {"jsonrpc": "2.0", "id": rid, "result": result}
        elif method == "initialize" and mode == "refuse":
            out = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32022,
                   "message": "initialize handshake is not accepted", "data": {"supported": ["2026-07-28"]}}}
        elif method == "initialize":
            out = {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25",
                   "capabilities": {}, "serverInfo": {"name": "legacy", "version": "1"}}}
        else:
            out = {"jsonrpc": "2.0", "id": rid, "result": {}}
        sys.stdout.write(json.dumps(out) + "\\n")
        sys.stdout.flush()
    """
)


@pytest.fixture
def server(tmp_path: Path) -> Path:
    path = tmp_path / "slow_server.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


async def _connect(server: Path, delay: float, mode: str) -> tuple[str, str | None]:
    # connect_timeout 12 s: the probe gets a third of it (4 s) before initialize is sent too;
    # the slow server answers the probe after 5 s, well inside the connect timeout even when a
    # loaded machine takes a few seconds to start Python.
    async with connect_stdio(
        sys.executable, [str(server), str(delay), mode], protocol="auto", connect_timeout=12.0
    ) as s:
        return s.era, s.protocol_version


def test_a_modern_server_slower_than_the_probe_timeout_is_still_taken_as_modern(server: Path) -> None:
    assert asyncio.run(_connect(server, 5.0, "refuse")) == ("modern", "2026-07-28")


def test_a_legacy_server_that_ignores_the_probe_gets_the_handshake(server: Path) -> None:
    assert asyncio.run(_connect(server, -1, "accept")) == ("legacy", "2025-11-25")


def test_a_prompt_modern_server_is_modern(server: Path) -> None:
    assert asyncio.run(_connect(server, 0, "refuse")) == ("modern", "2026-07-28")
