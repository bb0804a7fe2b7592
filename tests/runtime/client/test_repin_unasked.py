"""No listen stream for a server that did not ask for one: under drift="strict" the client opens
`subscriptions/listen` (2026-07-28) only when the server's `tools.listChanged` says its tools may
change. A server whose capabilities lack it gets no listen stream and no re-list, in both eras
and on both transports; the same server declaring it (the control) gets the stream."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from typing import Any

import pytest
from generation import REPO, GenerateFn, tool
from serving import serving

PEER = str(REPO / "tests/peers/quiet_tools_server.py")
TOOLS = [tool("echo", {"text": {"type": "string"}}, ["text"]), tool("methods"), tool("notify")]
ERAS = ["2025-11-25", "2026-07-28"]


@contextmanager
def _peer(transport: str, declare: bool) -> Iterator[list[str]]:
    """The peer's command line (stdio) or URL (http), one fresh process per test."""
    flags = ["--declare"] if declare else []
    if transport == "stdio":
        yield [sys.executable, PEER, *flags]
        return
    with serving([sys.executable, PEER, *flags, "--http", "--port", "{port}"]) as url:
        yield [url]


def _served(generate: GenerateFn, transport: str, protocol: str, declare: bool) -> tuple[list[str], Any]:
    """The request methods the server saw by the time the client had connected and called a tool,
    and whether the client holds a listen stream."""
    pkg = generate({"tools": TOOLS})

    async def main(where: list[str]) -> tuple[list[str], Any]:
        connecting: AbstractAsyncContextManager[Any]
        if transport == "stdio":
            connecting = pkg.AsyncClient.connect_stdio(where[0], where[1:], drift="strict", protocol=protocol)
        else:
            connecting = pkg.AsyncClient.connect_http(where[0], drift="strict", protocol=protocol)
        async with connecting as client:
            assert (await client.echo(text="hi")).text == "hi"
            served = json.loads((await client.methods()).text)
            return served, client._pins._stream

    with _peer(transport, declare) as where:
        return asyncio.run(main(where))


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.slow)])
@pytest.mark.parametrize("protocol", ERAS)
def test_a_server_without_tools_list_changed_gets_no_listen_stream_and_no_relist(
    generate: GenerateFn, transport: str, protocol: str
) -> None:
    served, stream = _served(generate, transport, protocol, declare=False)
    assert "subscriptions/listen" not in served, served
    assert stream is None
    assert served.count("tools/list") == 1, served  # the connect's drift check, and no other
    assert served[-1] == "tools/call"


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.slow)])
def test_the_control_a_server_declaring_it_gets_the_listen_stream(generate: GenerateFn, transport: str) -> None:
    served, stream = _served(generate, transport, "2026-07-28", declare=True)
    assert served.count("subscriptions/listen") == 1, served
    assert stream is not None


def test_a_notification_it_sends_anyway_is_still_re_checked(generate: GenerateFn) -> None:
    """Fail closed: in the handshake era the notification needs no stream; a server that never
    declared `tools.listChanged` but says its tools changed gets its tools re-listed."""
    pkg = generate({"tools": TOOLS})

    async def main() -> list[str]:
        async with pkg.AsyncClient.connect_stdio(sys.executable, [PEER], drift="strict", protocol=ERAS[0]) as client:
            await client.notify()  # the notification comes before notify's result
            assert (await client.echo(text="hi")).text == "hi"  # waits for the re-check
            return list(json.loads((await client.methods()).text))

    served = asyncio.run(main())
    assert served.count("tools/list") == 2 and "subscriptions/listen" not in served, served
