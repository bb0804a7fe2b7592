"""Conformance client driver: `python examples/conformance/client.py SERVER_URL`.

The official suite runs this once per scenario with MCP_CONFORMANCE_SCENARIO naming it.
Every call goes through `conformance_client`, a typed client that mcpgen generated from
client_tools.yaml.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_client import AsyncClient  # noqa: E402

from mcpgen.runtime import connect_http  # noqa: E402


async def accept_with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Elicitation answered as a user who accepts the form unchanged: every default applied."""
    schema = params.get("requestedSchema") or {}
    properties = schema.get("properties") or {}
    content = {name: prop["default"] for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop}
    return {"action": "accept", "content": content}


async def run(scenario: str, url: str) -> None:
    protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or "auto"
    async with connect_http(url, protocol=protocol, on_elicitation=accept_with_defaults, timeout=30) as session:
        client = AsyncClient(session)
        if scenario == "initialize":
            await session.list_tools()
        elif scenario == "tools_call":
            result = await client.add_numbers(a=5, b=3)
            print(result.text)
        elif scenario == "sse-retry":
            result = await client.test_reconnection()
            print(result.text)
        elif scenario == "elicitation-sep1034-client-defaults":
            result = await client.test_client_elicitation_defaults()
            print(result.text)
        else:
            # Unknown scenario: connect and list, which is what most of them check.
            await session.list_tools()


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    asyncio.run(run(scenario, sys.argv[-1]))


if __name__ == "__main__":
    main()
