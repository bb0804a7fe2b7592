"""Rule 3 of docs/threat-model.md, attacked: a credential goes only to the origin it is bound to.

Real peers on 127.0.0.1 (tests/hostile_oauth.py): an honest authorization server, a hostile one,
an MCP server naming whichever a test says, and metadata served from another origin. Every
credential kind (client secret, basic and post; private key assertion; pre-registered client id;
dynamic registration; stored refresh and access tokens) over every path that sends one (client
credentials, authorization code, device flow, registration, refresh, revocation, the bearer
header, introspection) is sent where it must not go, and must not arrive there in any form.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hostile_oauth import Peer, authorization_server, foreign_metadata, mcp_server

from mcpgen.runtime.client.auth import AuthError, MemoryTokenStore, OAuth, canonical_resource
from mcpgen.runtime.client.auth.environment import auth_for_run
from mcpgen.runtime.client.auth.tokens import Client, Login, Tokens
from mcpgen.runtime.core.binding import Binding, may_send, same_origin

SECRET = "s3cr3t/value+with=odd&chars-0123456789"


class FollowRedirect:
    """The user's browser: the authorization server redirects straight back with a code."""

    def __init__(self) -> None:
        self.visited: list[str] = []

    async def redirect_uri(self) -> str:
        return "http://127.0.0.1:9/callback"

    async def authorize(self, authorization_url: str) -> str:
        self.visited.append(authorization_url)
        async with httpx.AsyncClient(follow_redirects=False) as http:
            return (await http.get(authorization_url)).headers["location"]


async def via_challenge(oauth: OAuth, url: str) -> Login:
    """What the transport does on a 401: the server's real challenge handed to the auth hook."""
    async with httpx.AsyncClient() as http:
        reply = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert reply.status_code == 401
    await oauth.challenged(url, 401, reply.headers["www-authenticate"])
    login = oauth.store.load(canonical_resource(url))
    assert login is not None
    return login


def _private_key() -> str:
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048)
    pem = key.as_pem(private=True)
    return pem.decode() if isinstance(pem, bytes) else str(pem)


# Every way the OAuth client holds a credential for a login it starts: (name, OAuth keywords).
KINDS: list[tuple[str, dict[str, Any]]] = [
    ("secret-basic", {"grant": "client_credentials", "client_id": "ci", "client_secret": SECRET}),
    (
        "secret-post",
        {
            "grant": "client_credentials",
            "client_id": "ci",
            "client_secret": SECRET,
            "token_endpoint_auth_method": "client_secret_post",
        },
    ),
    ("private-key", {"grant": "client_credentials", "client_id": "ci", "private_key": "KEY"}),
    ("pre-registered-code", {"grant": "authorization_code", "client_id": SECRET}),
    ("pre-registered-device", {"grant": "device_code", "client_id": SECRET}),
    ("registration", {"grant": "authorization_code"}),
]


@pytest.fixture(scope="module")
def pem() -> str:
    return _private_key()


def _oauth(kind: dict[str, Any], pem: str, **more: Any) -> OAuth:
    settings = {**kind, **more}
    if settings.get("private_key") == "KEY":
        settings["private_key"] = pem
    return OAuth(store=MemoryTokenStore(), authorizer=FollowRedirect(), **settings)


@pytest.fixture
def honest() -> Iterator[Peer]:
    with authorization_server("honest") as peer:
        yield peer


@pytest.fixture
def hostile() -> Iterator[Peer]:
    with authorization_server("hostile") as peer:
        yield peer


def _nothing_reached(peer: Peer) -> None:
    """Not a POST, not a visit to the authorization endpoint, no form of the secret."""
    assert peer.posts() == [], [r.path for r in peer.posts()]
    assert not [r for r in peer.seen if r.path.startswith("/authorize")]
    assert not peer.saw(SECRET)


# -- the rule itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("named_by", "allowed"),
    [
        ("https://mcp.example/.well-known/oauth-protected-resource/mcp", True),
        ("https://MCP.example:443/.well-known/x", True),
        ("https://mcp.example:8443/.well-known/x", False),  # another port is another service
        ("http://mcp.example/.well-known/x", False),  # another scheme
        ("https://evil.example/.well-known/x", False),
        ("https://mcp.example.evil.example/x", False),
        (None, False),
    ],
)
def test_an_unbound_credential_goes_only_where_the_servers_own_origin_said(named_by: str | None, allowed: bool) -> None:
    binding = Binding("https://mcp.example/mcp", named_by=named_by)
    if allowed:
        may_send("the client secret", "https://as.example", binding)
    else:
        with pytest.raises(AuthError, match="refusing to send the client secret to 'https://as.example'"):
            may_send("the client secret", "https://as.example", binding)


@pytest.mark.parametrize("credential", ["the client secret", "the refresh token", "the access token", "the client id"])
def test_a_bound_credential_goes_to_its_own_issuer_exactly(credential: str) -> None:
    binding = Binding("https://mcp.example/mcp", bound_to="https://as.example", named_by="https://mcp.example/x")
    may_send(credential, "https://as.example", binding)
    for elsewhere in ("https://as.example/", "https://AS.example", "https://as.example/tenant", "https://evil"):
        with pytest.raises(AuthError, match=f"refusing to send {credential}.*belongs to 'https://as.example'"):
            may_send(credential, elsewhere, binding)
    assert not same_origin("", "")


# -- logins a hostile MCP server steers ------------------------------------------------


@pytest.mark.parametrize(("name", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_a_pinned_issuer_refuses_the_authorization_server_a_hostile_server_names(
    name: str, kind: dict[str, Any], pem: str, honest: Peer, hostile: Peer
) -> None:
    with mcp_server(names=hostile.url) as mcp:
        oauth = _oauth(kind, pem, issuer=honest.url)
        with pytest.raises(AuthError, match=f"to {hostile.url!r}: it belongs to {honest.url!r}"):
            asyncio.run(oauth.login(f"{mcp.url}/mcp"))
    _nothing_reached(hostile)
    assert honest.posts() == []


@pytest.mark.parametrize(("name", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_a_challenge_naming_metadata_on_another_origin_is_not_followed(
    name: str, kind: dict[str, Any], pem: str, honest: Peer, hostile: Peer
) -> None:
    with mcp_server(names=honest.url) as mcp:
        with foreign_metadata(hostile.url, f"{mcp.url}/mcp") as elsewhere:
            mcp.settings["challenge_metadata"] = f"{elsewhere.url}/.well-known/oauth-protected-resource"
            oauth = _oauth(kind, pem)
            login = asyncio.run(via_challenge(oauth, f"{mcp.url}/mcp"))
            assert elsewhere.seen == []  # not even fetched: no request to a port the header names
    assert login.issuer == honest.url and login.tokens is not None
    assert login.tokens.access_token.startswith("honest-")
    _nothing_reached(hostile)


def test_the_ci_environment_pins_the_issuer(honest: Peer, hostile: Peer) -> None:
    env = {"MCPGEN_OAUTH_CLIENT_ID": "ci", "MCPGEN_OAUTH_CLIENT_SECRET": SECRET, "MCPGEN_OAUTH_ISSUER": honest.url}
    with mcp_server(names=hostile.url) as mcp:
        with pytest.raises(AuthError, match=f"it belongs to {honest.url!r}"):
            asyncio.run(auth_for_run(env).login(f"{mcp.url}/mcp"))
        with mcp_server(names=honest.url) as good:
            login = asyncio.run(auth_for_run(env).login(f"{good.url}/mcp"))
    assert login.issuer == honest.url
    _nothing_reached(hostile)


# -- stored credentials -------------------------------------------------------------------


def _planted(resource: str, issuer: str) -> MemoryTokenStore:
    store = MemoryTokenStore()
    tokens = Tokens("planted-at-" + SECRET, refresh_token=SECRET, expires_at=1.0, lifetime=3600)
    store.save(
        Login(resource=resource, issuer=issuer, client=Client("planted", SECRET, "client_secret_basic"), tokens=tokens)
    )
    return store


@pytest.mark.parametrize("path", ["bearer-and-refresh", "revocation"])
def test_a_stored_login_from_another_issuer_is_never_used_when_one_is_pinned(
    path: str, honest: Peer, hostile: Peer
) -> None:
    with mcp_server(names=honest.url) as mcp:
        resource = f"{mcp.url}/mcp"
        oauth = OAuth(store=_planted(resource, hostile.url), issuer=honest.url, interactive=False)
        if path == "revocation":
            outcome = asyncio.run(oauth.logout(resource))
            assert outcome.revoked is False and outcome.problem is None
        else:
            assert asyncio.run(oauth.authorization(resource)) is None
    _nothing_reached(hostile)
    assert not mcp.saw(SECRET)


class LyingStore(MemoryTokenStore):
    """A store that answers every resource with the one login it holds."""

    def load(self, resource: str) -> Login | None:
        return next((super(LyingStore, self).load(r) for r in self.resources()), None)


def test_an_access_token_goes_only_to_the_resource_it_was_obtained_for(honest: Peer) -> None:
    store = LyingStore()
    tokens = Tokens("for-the-other-server-" + SECRET, expires_at=None)
    store.save(Login(resource="http://127.0.0.1:1/mcp", issuer=honest.url, tokens=tokens))
    oauth = OAuth(store=store, interactive=False)
    assert asyncio.run(oauth.authorization("http://127.0.0.1:2/mcp")) is None


def test_a_refresh_goes_to_the_issuer_the_token_came_from_only(honest: Peer, hostile: Peer) -> None:
    """A server that moved to another authorization server gets a new login, not the old refresh token."""
    with mcp_server(names=hostile.url) as mcp:
        resource = f"{mcp.url}/mcp"
        store = _planted(resource, honest.url)
        oauth = OAuth(store=store, interactive=False, authorizer=FollowRedirect())
        with pytest.raises(AuthError, match="not logged in"):
            asyncio.run(via_challenge(oauth, resource))
    assert not hostile.saw(SECRET)
    assert not [r for r in hostile.posts() if "refresh_token" in r.body]


# -- the reported instance: `mcpgen client --url <hostile>` in CI ----------------------------


@pytest.mark.slow
@pytest.mark.parametrize("pinned", [True, False])
def test_mcpgen_client_in_ci_never_sends_the_secret_to_the_hostile_authorization_server(
    pinned: bool, honest: Peer, hostile: Peer, tmp_path: Path
) -> None:
    env = {**os.environ, "MCPGEN_OAUTH_CLIENT_ID": "ci", "MCPGEN_OAUTH_CLIENT_SECRET": SECRET}
    env.update(MCPGEN_CONFIG_DIR=str(tmp_path / "config"), MCPGEN_TOKEN_STORE="file")
    if pinned:  # the server's own metadata names the hostile server: refused, naming both
        env["MCPGEN_OAUTH_ISSUER"] = honest.url
        steer: dict[str, Any] = {"names": hostile.url}
    else:  # the challenge names metadata elsewhere that names the hostile server: not followed
        steer = {"names": honest.url}
    with foreign_metadata(hostile.url, "placeholder") as elsewhere, mcp_server(**steer) as mcp:
        elsewhere_url = f"{elsewhere.url}/.well-known/oauth-protected-resource"
        mcp.settings["challenge_metadata"] = None if pinned else elsewhere_url
        done = subprocess.run(
            [sys.executable, "-m", "mcpgen.cli", "client", "--url", f"{mcp.url}/mcp", "-o", str(tmp_path / "out")],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode != 0
    assert SECRET not in done.stderr + done.stdout
    if pinned:
        assert f"it belongs to {honest.url!r}" in done.stderr and hostile.url in done.stderr, done.stderr
    else:
        assert elsewhere.seen == []
        assert honest.saw(SECRET)  # the server's own origin named the honest one: it got the login
    _nothing_reached(hostile)


# -- the resource server's own credentials ---------------------------------------------------


@pytest.mark.parametrize(
    "introspection",
    ["https://evil.example/introspect", "https://auth.example.com:8443/i", "http://127.0.0.1:9/introspect"],
)
def test_the_introspection_secret_goes_to_the_issuers_origin_only(introspection: str) -> None:
    import argparse

    from mcpgen.runtime.server.auth.settings import add_auth_arguments, auth_from_args

    parser = argparse.ArgumentParser()
    add_auth_arguments(parser)
    argv = ["--auth-issuer", "https://auth.example.com", "--auth-resource", "https://mcp.example.com/mcp"]
    argv += ["--auth-introspection-url", introspection, "--auth-client-id", "rs"]
    with pytest.raises(SystemExit, match="refusing to send the introspection client secret"):
        auth_from_args(parser.parse_args(argv), {"MCPGEN_AUTH_CLIENT_SECRET": SECRET}, None)
    argv[-3] = "https://auth.example.com/oauth/introspect"
    settings = auth_from_args(parser.parse_args(argv), {"MCPGEN_AUTH_CLIENT_SECRET": SECRET}, None)
    assert settings is not None and settings.introspection_url == "https://auth.example.com/oauth/introspect"
