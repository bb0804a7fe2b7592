"""A generated server protected by OAuth (`--auth-*`), against a real authorization server (npm
oidc-provider): valid tokens call tools and reach handlers as ctx.auth; every bad token gets the
MCP spec's 401 or 403 with its WWW-Authenticate challenge; the official SDK client logs in
(discovery, dynamic registration, authorization code + PKCE, scripted consent) and calls."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from oauth_peer import OAuthPeer, protected_scaffold, serve_protected
from serving import serving

pytestmark = pytest.mark.slow

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass(frozen=True)
class Protected:
    url: str  # the MCP endpoint, also the resource the tokens must name
    peer: OAuthPeer


@pytest.fixture(scope="module")
def package_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return protected_scaffold(tmp_path_factory.mktemp("oauth_server"))


@pytest.fixture(scope="module")
def protected(package_dir: Path, oauth_peer: OAuthPeer) -> Iterator[Protected]:
    with serve_protected(package_dir, oauth_peer.issuer) as url:
        yield Protected(url, oauth_peer)


def initialize(url: str, token: str | None) -> httpx.Response:
    headers = dict(ACCEPT)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    return httpx.post(url, json=body, headers=headers, timeout=10)


def call(url: str, token: str, tool: str, *, session: str | None = None) -> httpx.Response:
    """tools/call in the stateless era (no session needed), or within `session`."""
    headers = {**ACCEPT, "authorization": f"Bearer {token}"}
    params: dict[str, Any] = {"name": tool, "arguments": {}}
    if session is None:
        headers |= {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool}
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    else:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    return httpx.post(url, json=body, headers=headers, timeout=10)


def challenge(response: httpx.Response) -> dict[str, str]:
    header = response.headers["www-authenticate"]
    assert header.startswith("Bearer "), header
    return dict(re.findall(r'(\w+)="([^"]*)"', header))


def text_of(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert result.get("isError") is not True, result
    return str(result["content"][0]["text"])


def prm_url(url: str) -> str:
    return url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")


# -- the happy path -----------------------------------------------------------------------------


def test_a_valid_token_calls_a_tool_and_the_handler_sees_its_claims(protected: Protected) -> None:
    tokens = protected.peer.authorization_code(protected.url, "mcp:tools", login="carol")
    seen = json.loads(text_of(call(protected.url, tokens.access_token, "whoami")))
    assert seen["subject"] == "carol"
    assert seen["client_id"] == protected.peer.client_id
    assert seen["scopes"] == ["mcp:tools"]
    assert seen["jti"]


def test_a_handshake_session_works_with_a_valid_token(protected: Protected) -> None:
    token = protected.peer.client_credentials(protected.url, "mcp:tools").access_token
    opened = initialize(protected.url, token)
    assert opened.status_code == 200, opened.text
    session = opened.headers["mcp-session-id"]
    seen = json.loads(text_of(call(protected.url, token, "whoami", session=session)))
    assert seen["subject"] == protected.peer.client_id


def test_protected_resource_metadata_points_at_the_authorization_server(protected: Protected) -> None:
    for url in (prm_url(protected.url), protected.url.replace("/mcp", "/.well-known/oauth-protected-resource")):
        response = httpx.get(url, timeout=10)
        assert response.status_code == 200, url
        metadata = response.json()
        assert metadata["resource"] == protected.url
        assert metadata["authorization_servers"] == [protected.peer.issuer]
        assert metadata["scopes_supported"] == ["mcp:admin", "mcp:tools"]
    # ... and the authorization server it names is the real one (RFC 8414 / OpenID discovery).
    discovered = httpx.get(f"{protected.peer.issuer}/.well-known/openid-configuration", timeout=10).json()
    assert discovered["issuer"] == protected.peer.issuer


# -- 401: no token, or a token this server must not accept -------------------------------------


def test_no_token_gets_401_with_the_metadata_url_and_the_scope(protected: Protected) -> None:
    for response in (
        initialize(protected.url, None),
        httpx.get(protected.url, headers={"accept": "text/event-stream"}),
    ):
        assert response.status_code == 401
        params = challenge(response)
        assert params["resource_metadata"] == prm_url(protected.url)
        assert params["scope"] == "mcp:tools"
        assert "error" not in params


def assert_invalid_token(response: httpx.Response, reason: str, url: str) -> None:
    assert response.status_code == 401, response.text
    params = challenge(response)
    assert params["error"] == "invalid_token"
    assert reason in params["error_description"]
    assert params["resource_metadata"] == prm_url(url)


def test_an_expired_token_gets_401(protected: Protected) -> None:
    # Right issuer, audience, scope and signature, but one second of life (the server allows no
    # leeway): once it has passed, only the expiry check can refuse the token.
    token = protected.peer.client_credentials(protected.url, "mcp:tools", short_lived=True).access_token
    time.sleep(2.2)
    assert_invalid_token(initialize(protected.url, token), "expired", protected.url)


def test_a_token_for_another_resource_gets_401(protected: Protected) -> None:
    token = protected.peer.client_credentials("http://127.0.0.1:1/other", "mcp:tools").access_token
    assert_invalid_token(initialize(protected.url, token), "audience", protected.url)


def test_a_token_from_another_issuer_gets_401(package_dir: Path, oauth_peer: OAuthPeer) -> None:
    # The same keys and token, but this server trusts another issuer name for them ("localhost"
    # instead of "127.0.0.1"): only the iss check can refuse the token.
    trusted = oauth_peer.issuer.replace("127.0.0.1", "localhost")
    with serve_protected(package_dir, trusted, "--auth-jwks-url", oauth_peer.jwks_url) as url:
        token = oauth_peer.client_credentials(url, "mcp:tools").access_token
        assert_invalid_token(initialize(url, token), "another authorization server", url)


def test_metadata_naming_another_issuer_is_not_used(package_dir: Path, oauth_peer: OAuthPeer) -> None:
    # Keys are discovered from the issuer's metadata, which must name that very issuer (RFC 8414
    # section 3.3): here it says "127.0.0.1" where the server was told "localhost", so no key is
    # trusted and the token cannot be checked (503, not 200).
    with serve_protected(package_dir, oauth_peer.issuer.replace("127.0.0.1", "localhost")) as url:
        token = oauth_peer.client_credentials(url, "mcp:tools").access_token
        assert initialize(url, token).status_code == 503


def test_badly_signed_tokens_get_401(protected: Protected) -> None:
    token = protected.peer.client_credentials(protected.url, "mcp:tools").access_token
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    # 1. The payload changed after signing (more scope).
    claims["scope"] = "mcp:tools mcp:admin"
    forged_payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    assert_invalid_token(
        initialize(protected.url, f"{header}.{forged_payload}.{signature}"), "signature", protected.url
    )
    # 2. Signed by another RSA key under the real key's kid.
    kid = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]
    other = RSAKey.generate_key(2048)
    forged = jwt.encode({"alg": "RS256", "kid": kid, "typ": "at+jwt"}, claims, other)
    assert_invalid_token(initialize(protected.url, forged), "signature", protected.url)
    # 3. Unsigned, and signed with a shared secret (algorithm confusion).
    none_header = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
    assert_invalid_token(initialize(protected.url, f"{none_header}.{payload}."), "algorithm", protected.url)
    hs_header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "kid": kid}).encode()).rstrip(b"=").decode()
    assert_invalid_token(initialize(protected.url, f"{hs_header}.{payload}.{signature}"), "algorithm", protected.url)
    # The genuine token still works.
    assert initialize(protected.url, token).status_code == 200


# -- 403: a valid token without the scope -------------------------------------------------------


def test_a_token_without_the_tools_scope_gets_403_before_the_handler_runs(protected: Protected) -> None:
    token = protected.peer.client_credentials(protected.url, "mcp:tools").access_token
    response = call(protected.url, token, "erase")
    assert response.status_code == 403, response.text
    params = challenge(response)
    assert params["error"] == "insufficient_scope"
    assert params["scope"] == "mcp:admin mcp:tools"  # what it has plus what it lacks
    assert params["resource_metadata"] == prm_url(protected.url)
    admin = protected.peer.client_credentials(protected.url, "mcp:tools mcp:admin").access_token
    assert text_of(call(protected.url, admin, "erase")) == "erased"


def test_a_token_without_the_server_wide_scope_gets_403(protected: Protected) -> None:
    token = protected.peer.client_credentials(protected.url, "mcp:admin").access_token
    response = initialize(protected.url, token)
    assert response.status_code == 403
    assert challenge(response)["error"] == "insufficient_scope"


def test_a_session_belongs_to_the_token_holder_that_opened_it(protected: Protected) -> None:
    alice = protected.peer.authorization_code(protected.url, "mcp:tools", login="alice").access_token
    bob = protected.peer.authorization_code(protected.url, "mcp:tools", login="bob").access_token
    session = initialize(protected.url, alice).headers["mcp-session-id"]
    assert call(protected.url, bob, "whoami", session=session).status_code == 404
    assert json.loads(text_of(call(protected.url, alice, "whoami", session=session)))["subject"] == "alice"


# -- the official SDK client logs in and calls -------------------------------------------------


def test_the_official_sdk_client_logs_in_and_calls(protected: Protected) -> None:
    from mcp.client import Client
    from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    class Memory:
        tokens: OAuthToken | None = None
        client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    redirects: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:
        # The user's browser: signs in as "dave" and consents (the dev forms, submitted by script).
        redirects.append(await asyncio.to_thread(protected.peer.follow_authorization, authorization_url, login="dave"))

    async def callback_handler() -> AuthorizationCodeResult:
        query = httpx.URL(redirects[-1]).params
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=protected.url,
        client_metadata=OAuthClientMetadata(
            client_name="sdk test",
            redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def main() -> None:
        http = create_mcp_http_client(auth=provider)
        async with Client(streamable_http_client(protected.url, http_client=http), mode="legacy") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"whoami", "erase"}
            result = await client.call_tool("whoami", {})
            seen = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert seen["subject"] == "dave"
            assert seen["client_id"] == storage.client.client_id  # type: ignore[union-attr]

    asyncio.run(main())
    assert len(redirects) == 1  # one login: discovery, registration and the code exchange worked


# -- introspection (RFC 7662) instead of local JWT checks, configured from the environment -------


def test_introspection_accepts_live_opaque_tokens_and_refuses_revoked_ones(
    package_dir: Path, oauth_peer: OAuthPeer
) -> None:
    argv = [sys.executable, "-m", "authsrv", "--http", "--port", "{port}"]
    argv += ["--auth-resource", "http://127.0.0.1:{port}/mcp"]
    env = {
        "PYTHONPATH": str(package_dir),
        "MCPGEN_AUTH_ISSUER": oauth_peer.issuer,
        "MCPGEN_AUTH_INTROSPECTION_URL": oauth_peer.introspection_url,
        "MCPGEN_AUTH_CLIENT_ID": oauth_peer.client_id,
        "MCPGEN_AUTH_CLIENT_SECRET": oauth_peer.client_secret,
        "MCPGEN_AUTH_SCOPES": "mcp:tools",
        "MCPGEN_AUTH_INTROSPECTION_CACHE": "0",  # ask every time: the revocation below takes effect at once
    }
    with serving(argv, cwd=package_dir, env=env) as url:
        token = oauth_peer.client_credentials(url, "mcp:tools", opaque=True).access_token
        seen = json.loads(text_of(call(url, token, "whoami")))
        assert seen["client_id"] == "mcpgen-tests-opaque" and seen["scopes"] == ["mcp:tools"]
        assert call(url, token, "erase").status_code == 403
        elsewhere = oauth_peer.client_credentials("http://127.0.0.1:1/other", "mcp:tools", opaque=True).access_token
        assert_invalid_token(call(url, elsewhere, "whoami"), "audience", url)
        oauth_peer.revoke(token)
        assert_invalid_token(call(url, token, "whoami"), "not active", url)
