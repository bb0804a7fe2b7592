"""URL-mode elicitation against the official SDK's server (tests/peers/sdk_url_elicitation_server.py):
the URL reaches the caller's on_elicitation callback (never opened by mcpgen), by request and by
a -32042 refusal that is retried once the user accepted, and only when the caller declared it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import RpcError, connect_stdio
from mcpgen.runtime.client.options import ConnectOptions
from mcpgen.runtime.client.url_elicitation import satisfied, url_params

pytestmark = pytest.mark.timeout(60)

PEER = str(Path(__file__).resolve().parents[2] / "peers" / "sdk_url_elicitation_server.py")
LINK = "https://accounts.example.com/link?session=abc"


class User:
    """An elicitation callback that records what it was shown and answers `action`."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.shown: list[dict[str, Any]] = []

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        self.shown.append(params)
        return {"action": self.action}


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def calls(user: User, *calls: tuple[str, dict[str, Any]], url: str = LINK, **options: Any) -> list[Any]:
    """Each call's text, or the RpcError it raised."""
    answers: list[Any] = []
    async with connect_stdio(sys.executable, [PEER, url], on_elicitation=user, **options) as session:
        for name, arguments in calls:
            try:
                answers.append(text(await session.call_tool(name, arguments)))
            except RpcError as error:
                answers.append(error)
    return answers


def test_a_url_request_reaches_the_callback_with_the_full_url() -> None:
    user = User("decline")
    assert asyncio.run(calls(user, ("link_account", {}), protocol="legacy", url_elicitation=True)) == ["decline"]
    assert user.shown == [
        {"mode": "url", "url": LINK, "message": "Link your account to continue", "elicitationId": "link-1"}
    ]


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_a_32042_refusal_is_retried_once_the_user_accepted(protocol: str) -> None:
    user = User("accept")
    answers = asyncio.run(calls(user, ("list_files", {"folder": "a"}), protocol=protocol, url_elicitation=True))
    assert answers == ["files of a"]
    assert [(p["url"], p["elicitationId"]) for p in user.shown] == [(LINK, "auth-1")]


def test_a_declined_url_leaves_the_refusal_to_the_caller() -> None:
    user = User("decline")
    [refused] = asyncio.run(calls(user, ("list_files", {"folder": "a"}), protocol="legacy", url_elicitation=True))
    assert isinstance(refused, RpcError) and refused.code == -32042
    assert refused.data["elicitations"][0]["url"] == LINK and len(user.shown) == 1


def test_a_form_only_callback_never_sees_a_url() -> None:
    user = User("accept")
    linked, refused = asyncio.run(calls(user, ("link_account", {}), ("list_files", {"folder": "a"}), protocol="legacy"))
    # The SDK server sends the URL although the mode was not declared: it is refused, unshown.
    assert "did not declare URL-mode elicitation" in str(linked)
    assert isinstance(refused, RpcError) and refused.code == -32042
    assert user.shown == []


def test_a_url_that_is_not_http_is_never_shown() -> None:
    user = User("accept")
    [answer] = asyncio.run(
        calls(user, ("link_account", {}), url="javascript:alert(1)", protocol="legacy", url_elicitation=True)
    )
    assert "absolute http(s) URL" in str(answer) and user.shown == []


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"url": "file:///etc/passwd", "message": "m", "elicitationId": "e"}, "absolute http"),
        ({"url": "https://h/" + "x" * 9000, "message": "m", "elicitationId": "e"}, "at most 8192"),
        ({"url": "https://h/a\nb", "message": "m", "elicitationId": "e"}, "absolute http"),
        ({"url": "https://h/", "message": "m"}, "elicitationId"),
    ],
)
def test_malformed_url_requests_are_refused(params: dict[str, Any], problem: str) -> None:
    with pytest.raises(RpcError, match=problem):
        url_params(params)


def test_a_refusal_listing_too_many_elicitations_asks_nothing() -> None:
    user = User("accept")
    options = ConnectOptions(on_elicitation=user, url_elicitation=True)
    one = {"mode": "url", "url": LINK, "message": "m", "elicitationId": "e"}
    assert not asyncio.run(satisfied(options, RpcError(-32042, "x", {"elicitations": [one] * 9})))
    assert not asyncio.run(satisfied(options, RpcError(-32042, "x", {"elicitations": "none"})))
    assert not asyncio.run(satisfied(options, RpcError(-32000, "x", {"elicitations": [one]})))
    assert user.shown == []
    assert asyncio.run(satisfied(options, RpcError(-32042, "x", {"elicitations": [one, one]})))
    assert len(user.shown) == 2
