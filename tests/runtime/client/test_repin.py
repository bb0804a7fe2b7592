"""Re-pinning: a server subprocess changes a tool mid-session and sends tools/list_changed (a
"rug pull"); under drift="strict" the client fails closed for that tool, under "warn" it warns."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import REPO, GenerateFn, tool

from mcpgen.runtime import SchemaDriftError, SchemaDriftWarning
from mcpgen.runtime.client.drift import Drift
from mcpgen.runtime.core.errors import ToolChangedError

PEER = str(REPO / "tests/peers/rug_pull_server.py")
FETCH = tool("fetch", {"url": {"type": "string"}}, ["url"], description="Fetch a URL.")
FETCH["annotations"] = {"readOnlyHint": True}
ECHO = tool("echo", {"text": {"type": "string"}}, ["text"], description="Echo.")
PULL = {
    "name": "pull",
    "inputSchema": {"type": "object", "properties": {"tool": {"type": "string"}, "how": {"type": "string"}}},
}


def _session(generate: GenerateFn, tmp_path: Path, mode: str, script: Any, protocol: str) -> Any:
    pkg = generate({"tools": [FETCH, ECHO, PULL]})
    served = tmp_path / "tools.json"
    served.write_text(json.dumps([FETCH, ECHO]), encoding="utf-8")
    seen: list[Drift] = []

    async def main() -> Any:
        async with pkg.AsyncClient.connect_stdio(
            sys.executable, [PEER, str(served)], drift=mode, on_drift=seen.append, protocol=protocol
        ) as client:
            # 2026-07-28 sends list_changed only on a listen stream: strict opens one itself.
            if protocol == "2026-07-28" and mode != "strict":
                async with await client.session.listen(tools_list_changed=True):
                    return await script(client, seen)
            return await script(client, seen)

    return asyncio.run(main())


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_strict_refuses_calls_to_a_tool_changed_mid_session(
    generate: GenerateFn, tmp_path: Path, protocol: str
) -> None:
    async def script(client: Any, seen: list[Drift]) -> None:
        assert (await client.fetch(url="https://example.org")).text == "ran fetch"
        await client.pull(tool="fetch", how="description")
        if protocol == "2026-07-28":  # the notification comes on the listen stream, maybe after the result
            await _settled(client, lambda: client.tool_drift is not None)
        # Handshake era: it came before pull's result, so this call already waits for the re-check.
        with pytest.raises(ToolChangedError, match=r"tool 'fetch' changed mid-session \(.*readOnlyHint true -> false"):
            await client.fetch(url="https://example.org")
        with pytest.raises(SchemaDriftError, match="'fetch' changed mid-session"):  # the one family
            await client.dispatch("fetch", {"url": "x"})
        with pytest.raises(ToolChangedError, match="'fetch'") as caught:
            await client.call_tool("fetch", {"url": "x"})
        assert caught.value.tool == "fetch" and caught.value.drift is client.tool_drift
        assert (await client.echo(text="hi")).text == "ran echo"  # an unchanged tool stays callable
        assert {c.tool for c in seen[0].security} == {"fetch"}
        await client.pull(tool="fetch", how="schema")
        await _settled(client, lambda: client.tool_drift is not None and client.tool_drift.changed)
        with pytest.raises(ToolChangedError, match=r"its schemas changed at /inputSchema/properties/token"):
            await client.fetch(url="x")
        await client.pull(tool="fetch", how="revert")
        await _settled(client, lambda: client.tool_drift is None)
        assert (await client.fetch(url="x")).text == "ran fetch"  # back as generated: callable again

    _session(generate, tmp_path, "strict", script, protocol)


def test_warn_warns_and_calls_go_on(generate: GenerateFn, tmp_path: Path) -> None:
    async def script(client: Any, seen: list[Drift]) -> None:
        with pytest.warns(
            SchemaDriftWarning,
            match=r"mid-session: .*security: fetch/annotations/readOnlyHint: readOnlyHint true -> false",
        ):
            await client.pull(tool="fetch", how="description")
            await _settled(client, lambda: client.tool_drift is not None)
        assert (await client.fetch(url="x")).text == "ran fetch"
        assert len(seen) == 1 and seen[0].security

    _session(generate, tmp_path, "warn", script, "2025-11-25")


async def _settled(client: Any, done: Any) -> None:
    """Until the re-check the notification started has run (bounded by rounds, not by a clock)."""
    for _ in range(500):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the re-check never finished")


def test_the_sync_client_fails_closed_too(generate: GenerateFn, tmp_path: Path) -> None:
    pkg = generate({"tools": [FETCH, ECHO, PULL]})
    served = tmp_path / "tools.json"
    served.write_text(json.dumps([FETCH, ECHO]), encoding="utf-8")
    with pkg.Client.connect_stdio(sys.executable, [PEER, str(served)], drift="strict", protocol="2025-11-25") as c:
        assert c.tool_drift is None and c.echo(text="a").text == "ran echo"
        c.pull(tool="fetch", how="schema")  # the notification comes before pull's result
        with pytest.raises(ToolChangedError, match=r"'fetch' changed mid-session \(its schemas changed"):
            c.fetch(url="x")
        assert c.tool_drift is not None and c.tool_drift.changed == ("fetch",)
