"""A handler that raises (issue 35, item 8): the client gets `Tool 'add' failed: ZeroDivisionError`
and nothing more, and the scaffold's own stderr, at the default log level, holds the traceback
with the tool and the request id. A real scaffold over stdio, its stdin written by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PEER = str(REPO / "tests/peers/real_shapes_server.py")


@pytest.mark.slow
def test_a_handler_exception_is_logged_with_traceback_tool_and_id(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "mcpgen.cli", "server", "-q", "-o", "zd_server", "--", sys.executable, PEER]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr
    handlers = tmp_path / "zd_server/handlers.py"
    text = handlers.read_text(encoding="utf-8")
    start = text.index("    async def add(")
    end = text.index("raise NotImplementedError", start)
    handlers.write_text(text[:end] + "return 1 // 0" + text[end + len("raise NotImplementedError") :])
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": "call-77",
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
        },
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    served = subprocess.run(
        [sys.executable, "-m", "zd_server"], input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    answers = {a["id"]: a for a in map(json.loads, served.stdout.splitlines())}
    told = answers["call-77"]["result"]
    assert told["isError"] is True and told["content"][0]["text"] == "Tool 'add' failed: ZeroDivisionError"
    assert "Traceback" not in served.stdout
    err = served.stderr
    assert "tool 'add' failed (request id 'call-77')" in err
    assert "Traceback (most recent call last)" in err and "return 1 // 0" in err and "ZeroDivisionError" in err
