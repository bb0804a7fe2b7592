"""The clientInfo a session sends in `initialize`: the runtime's own release (runtime/version.py),
not a number of its own; a client's options may still name another."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcpgen.runtime import connect_stdio
from mcpgen.runtime.version import __version__

# A stdio server that answers initialize with the clientInfo it was sent, as its serverInfo.
ECHO_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        params = message["params"]
        result = {"protocolVersion": params["protocolVersion"], "capabilities": {},
                  "serverInfo": params["clientInfo"]}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    elif "id" in message:
        error = {"code": -32601, "message": "no such method"}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}), flush=True)
"""


def _server_info(tmp_path: Path, **options: Any) -> Any:
    script = tmp_path / "echo_server.py"
    script.write_text(ECHO_SERVER)

    async def main() -> Any:
        async with connect_stdio(sys.executable, [str(script)], protocol="2025-11-25", **options) as session:
            return session.server_info

    return asyncio.run(main())


def test_a_session_names_the_runtime_at_its_own_release(tmp_path: Path) -> None:
    assert _server_info(tmp_path) == {"name": "mcpgen", "version": __version__}


def test_a_client_may_name_itself(tmp_path: Path) -> None:
    mine = {"name": "weather-app", "version": "3.1.4"}
    assert _server_info(tmp_path, client_info=mine) == mine
