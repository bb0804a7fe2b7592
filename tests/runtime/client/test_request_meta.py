"""A stateless-era request's `_meta` is built once and shared, yet always says what the session
says now: a log level set after connecting reaches the very next request."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpgen.runtime import Server, connect_memory
from mcpgen.runtime.server.server import RequestContext


def _level_server() -> Server:
    server = Server("levels", "1.0")

    async def level(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        # The level the request's _meta carried (None: the client asked for no log messages).
        return {"content": [{"type": "text", "text": str(ctx.log_level)}], "isError": False}

    server.add_tool({"name": "level", "inputSchema": {"type": "object"}}, level)
    return server


def test_a_log_level_set_after_connecting_reaches_the_next_request() -> None:
    async def main() -> list[str]:
        seen: list[str] = []
        async with connect_memory(_level_server(), protocol="2026-07-28") as session:
            for change in (None, "debug", None, "error", "error"):
                if change is not None:
                    await session.set_logging_level(change)
                result = await session.call_tool("level", {})
                seen.append(result["content"][0]["text"])
        return seen

    assert asyncio.run(main()) == ["None", "debug", "debug", "error", "error"]


def test_requests_share_one_meta_that_no_request_changes() -> None:
    async def main() -> tuple[list[Any], list[Any]]:
        async with connect_memory(_level_server(), protocol="2026-07-28") as session:
            sent: list[Any] = []
            send = session.transport.send

            async def keep(message: Any) -> None:
                sent.append(message)
                await send(message)

            session.transport.send = keep  # type: ignore[method-assign]
            await session.call_tool("level", {})
            await session.call_tool("level", {}, progress=lambda *_: None)  # adds its token to a copy
            await session.call_tool("level", {})
        metas = [m["params"]["_meta"] for m in sent]
        return metas, [dict(m) for m in metas]

    metas, copies = asyncio.run(main())
    assert metas[0] is metas[2] and metas[1] is not metas[0]
    assert "progressToken" in copies[1]
    assert "progressToken" not in copies[0] and copies[0] == copies[2]
