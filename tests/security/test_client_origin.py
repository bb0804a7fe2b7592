"""A hostile server cannot send the client's credentials to another origin (issue 13, item 1).

The attacker's server refuses Streamable HTTP POSTs (so the client falls back to the legacy
HTTP+SSE transport) and names an `endpoint` on a second local server, which records every
request it gets. It must get nothing: no POST, no Authorization header.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from serving import serving

from mcpgen.runtime import CrossOriginUrl, McpError, connect_http
from mcpgen.runtime.transports.guard import same_origin

pytestmark = pytest.mark.timeout(60)

HOSTILE = str(Path(__file__).resolve().parents[1] / "peers" / "hostile_http_server.py")
SECRET = "Bearer s3cret-token"


def _recorded(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.slow
def test_endpoint_on_another_origin_gets_nothing(tmp_path: Path) -> None:
    log = tmp_path / "second-origin.log"
    with serving([sys.executable, HOSTILE, "recorder", "--port", "{port}", "--log", str(log)]) as second:
        argv = [sys.executable, HOSTILE, "foreign-endpoint", "--port", "{port}", "--target", second]
        with serving(argv) as url:

            async def main() -> str:
                with pytest.raises(
                    McpError,
                    match=(
                        r"^refusing the server's endpoint '.+': its origin differs from "
                        r"http://127\.0\.0\.1:\d+ \(the connection's headers are never sent to another "
                        r"origin\)$"
                    ),
                ) as caught:
                    async with connect_http(url, headers={"Authorization": SECRET}, connect_timeout=5):
                        pass
                return str(caught.value)

            message = asyncio.run(asyncio.wait_for(main(), 30))
    assert _recorded(log) == [], "the second origin received requests"
    assert "endpoint" in message and "origin" in message, message
    assert second in message  # the user sees where the server tried to send them


@pytest.mark.slow
def test_cross_origin_redirect_is_not_followed(tmp_path: Path) -> None:
    log = tmp_path / "second-origin.log"
    with serving([sys.executable, HOSTILE, "recorder", "--port", "{port}", "--log", str(log)]) as second:
        with serving([sys.executable, HOSTILE, "redirect", "--port", "{port}", "--target", second]) as url:

            async def main() -> None:
                for transport in ("streamable", "sse"):
                    with pytest.raises(McpError, match=r"^HTTP 307: "):
                        async with connect_http(
                            url, headers={"Authorization": SECRET}, transport=transport, connect_timeout=5
                        ):
                            pass

            asyncio.run(asyncio.wait_for(main(), 30))
    assert _recorded(log) == []


@pytest.mark.parametrize(
    "reference",
    [
        "http://127.0.0.1:9/messages",  # another port
        "https://127.0.0.1:8000/messages",  # another scheme
        "//evil.example/messages",  # scheme-relative: another host
        "http://evil.example:8000/messages",
        "http://127.0.0.1:8000@evil.example/messages",  # user info that hides the real host
        "http://[::1]:8000/messages",
        "http://127.0.0.1:99999/messages",  # malformed port
    ],
)
def test_same_origin_refuses(reference: str) -> None:
    with pytest.raises(
        CrossOriginUrl,
        match=(
            r"^(refusing the server's URL '.+': its origin differs from "
            r"http://127\.0\.0\.1:8000 \(the connection's headers are never sent to another "
            r"origin\)|the server named a malformed URL: "
            r"'http://127\.0\.0\.1:99999/messages')$"
        ),
    ):
        same_origin("http://127.0.0.1:8000/sse", reference)


@pytest.mark.parametrize(
    ("base", "reference", "expected"),
    [
        ("http://127.0.0.1:8000/sse", "/messages?session_id=1", "http://127.0.0.1:8000/messages?session_id=1"),
        ("http://127.0.0.1:8000/sse", "messages", "http://127.0.0.1:8000/messages"),
        ("http://Example.com/sse", "http://example.com:80/m", "http://example.com:80/m"),  # default port, case
        ("https://example.com/a/sse", " /m \n", "https://example.com/m"),
    ],
)
def test_same_origin_accepts(base: str, reference: str, expected: str) -> None:
    assert same_origin(base, reference) == expected
