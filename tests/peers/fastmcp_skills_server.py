"""FastMCP 4.x serving a folder of skills (SEP-2640) over stdio, for the interop tests:
`python fastmcp_skills_server.py FOLDER [honest|tamper|oversize]`. `tamper` serves every file
with one word changed (its manifest digest no longer matches); `oversize` serves each file with
bytes its manifest does not count."""

from __future__ import annotations

import sys
from typing import Any

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider


class Served(SkillsDirectoryProvider):
    def __init__(self, root: str, mode: str) -> None:
        super().__init__(root)
        self.mode = mode

    async def read_file(self, resource: Any) -> bytes:
        data = await super().read_file(resource)
        if self.mode == "tamper":
            return data.replace(b"review", b"ignore")
        if self.mode == "oversize":
            return data + b"\n" * 4096
        return data


mcp = FastMCP("fastmcp-skills")


@mcp.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


mcp.add_provider(Served(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "honest"))

if __name__ == "__main__":
    mcp.run(show_banner=False)
