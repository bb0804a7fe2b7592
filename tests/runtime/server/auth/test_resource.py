"""The resource-server layer in process (ASGI calls, no socket): the protected resource metadata,
the 401/403/503 answers and their WWW-Authenticate challenges, the bearer header as RFC 6750
reads it, and the scopes the server and each called tool need. The token check is a stand-in
(tests/runtime/server/auth/test_verify.py covers the real ones); the layer is what is tested."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from mcpgen.runtime.core.errors import AuthServerUnavailable, InvalidToken
from mcpgen.runtime.server.auth.info import AuthInfo, current_auth
from mcpgen.runtime.server.auth.resource import ProtectedResource, protect
from mcpgen.runtime.server.auth.settings import AuthSettings
from mcpgen.runtime.server.server import Server

ISSUER = "https://as.example"
RESOURCE = "https://rs.example/mcp"
METADATA_URL = "https://rs.example/.well-known/oauth-protected-resource/mcp"
Message = MutableMapping[str, Any]


class Verifier:
    """A token names its scopes, `+`-separated; "expired" and "down" fail as a real check would."""

    async def verify(self, token: str) -> AuthInfo:
        if token == "expired":
            raise InvalidToken('the token has "expired"\\ at 12:00 \u00e9')
        if token == "down":
            raise AuthServerUnavailable("https://as.example/jwks answered 500")
        return AuthInfo("alice", "app", frozenset(token.split("+")), ISSUER, (RESOURCE,), None)


@dataclass
class Inner:
    """The MCP app behind the layer: records what reached it and the caller it was told of."""

    calls: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        self.calls.append({"type": scope["type"], "path": scope.get("path"), "auth": current_auth.get()})
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"inner"})


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def challenge(self) -> dict[str, str]:
        """The WWW-Authenticate parameters."""
        scheme, _, rest = self.headers["www-authenticate"].partition(" ")
        assert scheme == "Bearer"
        return dict((k, v.strip('"')) for k, _, v in (p.partition("=") for p in rest.split(", ")))


def layer(scopes: tuple[str, ...] = ("mcp",), tool_scopes: dict[str, str] | None = None, **kw: Any) -> Any:
    server = Server("weather", "1")
    tool_scopes = {"secret": "admin", "other": "ops"} if tool_scopes is None else tool_scopes
    for name, needed in tool_scopes.items():
        server.tool_scopes[name] = frozenset(needed.split())
    settings = AuthSettings(issuer=ISSUER, resource=kw.pop("resource", RESOURCE), scopes=scopes)
    inner = Inner()
    resource = ProtectedResource(
        inner, server, settings, path=kw.pop("path", "/mcp"), max_body_bytes=1024, verifier=Verifier()
    )
    return resource, inner


def call(
    app: Any, method: str = "POST", path: str = "/mcp", token: str | None = None, body: Any = None, **extra: Any
) -> Reply:
    return asyncio.run(serve(app, method, path, token, body, **extra))


async def serve(
    app: Any, method: str = "POST", path: str = "/mcp", token: str | None = None, body: Any = None, **extra: Any
) -> Reply:
    headers = [(b"content-type", b"application/json")]
    if token is not None:
        headers.append((b"Authorization", f"Bearer {token}".encode()))
    headers += [(k.encode(), v.encode()) for k, v in extra.pop("headers", [])]
    raw = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
    scope = {"type": "http", "method": method, "path": path, "headers": headers, **extra}
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start, body_message = sent
    names = {k.decode(): v.decode() for k, v in start["headers"]}
    return Reply(start["status"], names, body_message["body"])


def tools_call(name: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}}


def test_the_metadata_is_public_at_both_well_known_paths() -> None:
    app, inner = layer()
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource/",
        METADATA_URL.removeprefix("https://rs.example"),
    ):
        reply = call(app, "GET", path)
        assert reply.status == 200 and not inner.calls
        assert reply.json() == {
            "resource": RESOURCE,
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "resource_name": "weather",
            "scopes_supported": ["admin", "mcp", "ops"],  # the server's and every tool's
        }
        assert reply.headers["content-type"] == "application/json"
        assert reply.headers["access-control-allow-origin"] == "*"
        assert reply.headers["cache-control"] == "max-age=3600"
    assert call(app, "HEAD", "/.well-known/oauth-protected-resource").status == 200
    refused = call(app, "POST", "/.well-known/oauth-protected-resource/mcp")
    assert (refused.status, refused.headers["allow"], refused.body) == (405, "GET", b"Method not allowed")


def test_metadata_without_scopes_names_none_and_a_slash_ended_resource_keeps_its_path_form() -> None:
    app, _ = layer(scopes=(), tool_scopes={}, resource=RESOURCE + "/")
    reply = call(app, "GET", "/.well-known/oauth-protected-resource/mcp")
    assert reply.status == 200 and "scopes_supported" not in reply.json()
    assert call(app, "GET", "/.well-known/oauth-protected-resource/other").status == 200  # passed on: inner


def test_other_paths_preflights_and_non_http_scopes_pass_without_a_token() -> None:
    app, inner = layer()
    assert call(app, "GET", "/health").body == b"inner"
    assert call(app, "OPTIONS", "/mcp").body == b"inner"

    async def lifespan() -> None:
        await app({"type": "lifespan"}, None, None)

    asyncio.run(lifespan())
    assert [c["type"] for c in inner.calls] == ["http", "http", "lifespan"]
    assert all(c["auth"] is None for c in inner.calls)


def test_no_token_gets_the_bare_challenge() -> None:
    app, inner = layer(scopes=("mcp", "read"))
    for path in ("/mcp", "/mcp/"):
        reply = call(app, "POST", path, body=tools_call("x"))
        assert reply.status == 401 and not inner.calls
        assert reply.challenge() == {"scope": "mcp read", "resource_metadata": METADATA_URL}
        assert reply.json() == {"error": "unauthorized", "error_description": "Bearer token needed"}
        assert reply.headers["content-type"] == "application/json"
    assert call(layer(scopes=())[0], "POST").challenge() == {"resource_metadata": METADATA_URL}


@pytest.mark.parametrize(
    "headers",
    [
        [("authorization", "Basic YTpi")],
        [("authorization", "Bearer ")],
        [("authorization", "Bearer a b")],
        [("authorization", "Bearer mcp"), ("authorization", "Bearer mcp")],  # two: neither is read
        [("x-authorization", "Bearer mcp")],
    ],
)
def test_only_one_well_formed_bearer_header_carries_a_token(headers: list[tuple[str, str]]) -> None:
    app, inner = layer()
    assert call(app, "GET", headers=headers).status == 401 and not inner.calls


def test_the_bearer_scheme_is_case_insensitive_and_the_token_trimmed() -> None:
    app, inner = layer()
    assert call(app, "GET", headers=[("AUTHORIZATION", "bearer   mcp  ")]).status == 200
    assert inner.calls[0]["auth"].scopes == {"mcp"}


def test_a_refused_token_gets_invalid_token_with_a_header_safe_reason() -> None:
    app, inner = layer()
    reply = call(app, "POST", token="expired", body=tools_call("x"))
    assert reply.status == 401 and not inner.calls
    reason = "the token has ?expired?? at 12:00 ?"
    assert reply.challenge() == {
        "error": "invalid_token",
        "error_description": reason,
        "resource_metadata": METADATA_URL,
    }
    assert reply.json() == {"error": "invalid_token", "error_description": 'the token has "expired"\\ at 12:00 \u00e9'}


def test_an_unreachable_authorization_server_is_503_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    app, inner = layer()
    with caplog.at_level(logging.WARNING, "mcpgen.runtime.auth"):
        reply = call(app, "POST", token="down", body=tools_call("x"))
    assert (reply.status, reply.body) == (503, b"The authorization server cannot be reached")
    assert reply.headers["retry-after"] == "10" and not inner.calls
    assert caplog.messages == ["cannot check an access token: https://as.example/jwks answered 500"]


def test_a_token_without_the_servers_scopes_gets_insufficient_scope() -> None:
    app, inner = layer(scopes=("mcp", "read"))
    reply = call(app, "GET", token='mcp+bad"scope+extra')
    assert reply.status == 403 and not inner.calls
    # What the token has (only scope tokens) plus what it lacks: one re-authorization suffices.
    assert reply.challenge() == {
        "error": "insufficient_scope",
        "error_description": "needs scope read",
        "scope": "extra mcp read",
        "resource_metadata": METADATA_URL,
    }


def test_a_tool_call_needs_the_tools_scopes_too_and_only_a_post_is_read() -> None:
    app, inner = layer()
    assert call(app, "GET", token="mcp").status == 200  # no body to read: the server's scopes only
    refused = call(app, "POST", token="mcp", body=tools_call("secret"))
    assert refused.status == 403 and refused.challenge()["error_description"] == "needs scope admin"
    batch = [tools_call("secret"), tools_call("other"), tools_call(5), {"method": "tools/list"}, 7]
    assert call(app, "POST", token="mcp", body=batch).challenge()["error_description"] == "needs scope admin ops"
    for harmless in (tools_call(["secret"]), {**tools_call("x"), "params": ["secret"]}, {"method": "ping"}):
        assert call(app, "POST", token="mcp", body=harmless).status == 200
    assert len(inner.calls) == 4


def test_the_app_sees_the_callers_token_for_the_request_only() -> None:
    app, inner = layer()
    assert call(app, "POST", token="mcp+admin", body=tools_call("secret")).body == b"inner"
    assert inner.calls[0]["auth"].scopes == {"mcp", "admin"}
    assert current_auth.get() is None


def test_a_later_request_served_in_the_same_task_does_not_see_the_earlier_caller() -> None:
    app, inner = layer()

    async def both() -> None:
        await serve(app, "POST", token="mcp+admin", body=tools_call("secret"))
        await serve(app, "GET", "/health")

    asyncio.run(both())
    assert [c["auth"] is None for c in inner.calls] == [False, True]


def test_a_body_the_layer_cannot_parse_is_refused_before_the_app() -> None:
    app, inner = layer()
    reply = call(app, "POST", token="mcp+admin", body=b'{"jsonrpc": "2.0", ')
    assert reply.status == 400 and reply.json()["error"]["message"] == "Parse error"
    assert call(app, "POST", token="mcp+admin", body=b"x" * 2048).status == 413
    assert not inner.calls


def test_protect_puts_the_checks_in_front() -> None:
    server = Server("weather", "1")
    settings = AuthSettings(issuer=ISSUER, resource=RESOURCE)
    inner = Inner()
    app = protect(inner, server, settings, path="/mcp", max_body_bytes=1024)
    assert call(app, "POST", body=tools_call("x")).status == 401 and not inner.calls
    client = app._client  # noqa: SLF001  # (the pool the layer asks the authorization server with)
    assert not client.is_closed
    asyncio.run(app.aclose())
    assert client.is_closed  # its sockets go at shutdown
