"""A message nested too deep to parse costs that message only, not the client session (issue 13, item 2).

The stdio server writes a ~10 KB line nested 5,000 deep before each tools/call answer: Python's
json raises RecursionError on it (not a ValueError). The session skips it and goes on.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from mcpgen.runtime import connect_stdio

pytestmark = pytest.mark.timeout(60)

FAULTY = str(Path(__file__).resolve().parents[1] / "peers" / "faulty_server.py")


def test_deep_line_from_a_stdio_server_is_skipped() -> None:
    async def main() -> list[str]:
        texts = []
        async with connect_stdio(sys.executable, [FAULTY, "deep"], timeout=10) as session:
            for n in range(3):
                result = await session.call_tool("echo", {"text": f"call {n}"})
                texts.append(result["content"][0]["text"])
            await session.ping()
        return texts

    assert asyncio.run(asyncio.wait_for(main(), 30)) == ["call 0", "call 1", "call 2"]
