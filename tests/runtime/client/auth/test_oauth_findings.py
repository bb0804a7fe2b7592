"""Issue 34's OAuth findings, each against real peers on 127.0.0.1 (tests/hostile_oauth.py): a
revoked token refreshed, never retried; protected resource metadata for another resource; no
PKCE; unbounded expires_in; secrets echoed back encoded; a forged redirect to the login's
listener; an open token store; introspection per request; cassettes redacting the raw secret only."""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import pytest
from hostile_oauth import Peer, authorization_server, mcp_server
from test_credential_binding import SECRET, FollowRedirect, via_challenge

from mcpgen.runtime.client.auth import AuthError, FileTokenStore, LoopbackBrowser, MemoryTokenStore, OAuth
from mcpgen.runtime.client.auth.tokens import MAX_LIFETIME, Client, Login, Tokens
from mcpgen.runtime.core.redaction import scrub, secret_forms
from mcpgen.testing.cassette import REDACTED, Redactor


@pytest.fixture
def honest() -> Iterator[Peer]:
    with authorization_server("honest") as peer:
        yield peer


def _stored(resource: str, issuer: str) -> MemoryTokenStore:
    """A login whose access token is not expired (an hour left) and has a refresh token."""
    store = MemoryTokenStore()
    tokens = Tokens("revoked-at", refresh_token="the-rt", expires_at=None, lifetime=None)
    store.save(Login(resource=resource, issuer=issuer, client=Client("cid", None, "none"), tokens=tokens))
    return store


# -- moderate: a revoked, unexpired token -------------------------------------------------


def test_a_revoked_unexpired_token_is_refreshed_not_sent_again(honest: Peer) -> None:
    with mcp_server(names=honest.url) as mcp:
        url = f"{mcp.url}/mcp"
        oauth = OAuth(store=_stored(url, honest.url), interactive=False)
        assert asyncio.run(oauth.authorization(url)) == "Bearer revoked-at"
        login = asyncio.run(via_challenge(oauth, url))
        assert login.tokens is not None and login.tokens.access_token.startswith("honest-at-")
        assert asyncio.run(oauth.authorization(url)) == f"Bearer {login.tokens.access_token}"
    refreshes = [r for r in honest.posts() if "grant_type=refresh_token" in r.body]
    assert len(refreshes) == 1 and "refresh_token=the-rt" in refreshes[0].body


def test_a_revoked_token_whose_refresh_fails_is_not_retried() -> None:
    with authorization_server("honest", refuse_refresh=True) as honest, mcp_server(names=honest.url) as mcp:
        url = f"{mcp.url}/mcp"
        oauth = OAuth(store=_stored(url, honest.url), interactive=False)
        # No retry with the refused token: the run says to log in (the refresh was refused).
        with pytest.raises(AuthError, match="not logged in"):
            asyncio.run(via_challenge(oauth, url))
    assert len([r for r in honest.posts() if "grant_type=refresh_token" in r.body]) == 1


# -- minor: protected resource metadata for another resource -------------------------------


@pytest.mark.parametrize("resource", [None, "{origin}/", "{origin}/other", "http://127.0.0.1:1/mcp"])
def test_metadata_naming_another_resource_or_none_is_refused(resource: str | None, honest: Peer) -> None:
    with mcp_server(names=honest.url) as mcp:
        named = resource.format(origin=mcp.url) if resource else None
        mcp.settings["resource"] = named
        oauth = OAuth(grant="client_credentials", client_id="ci", client_secret=SECRET, store=MemoryTokenStore())
        with pytest.raises(AuthError, match="protected resource metadata names"):
            asyncio.run(oauth.login(f"{mcp.url}/mcp"))
    assert honest.posts() == []


# -- minor: PKCE ------------------------------------------------------------------------------


@pytest.mark.parametrize("methods", [None, [], ["plain"]])
def test_no_login_without_s256_in_the_metadata(methods: list[str] | None) -> None:
    with authorization_server("honest", pkce=methods) as honest, mcp_server(names=honest.url) as mcp:
        user = FollowRedirect()
        oauth = OAuth(client_id="public", store=MemoryTokenStore(), authorizer=user)
        with pytest.raises(AuthError, match="does not list S256 in code_challenge_methods_supported"):
            asyncio.run(oauth.login(f"{mcp.url}/mcp"))
    assert user.visited == [] and honest.posts() == []


# -- minor: expires_in -------------------------------------------------------------------


@pytest.mark.parametrize("expires_in", ["10**400", "NaN", "Infinity", "-1", "1e300", '"3600"', "true"])
def test_an_unbounded_expires_in_is_taken_as_short(expires_in: str) -> None:
    raw = json.loads(f'{{"access_token": "a", "expires_in": {expires_in.replace("10**400", "1" + "0" * 400)}}}')
    tokens = Tokens.from_response(raw)
    assert tokens.lifetime is not None and math.isfinite(tokens.lifetime) and 0 < tokens.lifetime <= MAX_LIFETIME
    assert tokens.expires_at is not None and math.isfinite(tokens.expires_at)
    assert tokens.expiring(margin=0) is False  # usable now, refreshed soon
    assert Tokens.from_response({"access_token": "a"}).expires_at is None  # absent: unknown, as before


def test_a_login_with_a_huge_expires_in_keeps_a_finite_expiry() -> None:
    with authorization_server("honest", expires_in=10**400) as honest, mcp_server(names=honest.url) as mcp:
        oauth = OAuth(grant="client_credentials", client_id="ci", client_secret=SECRET, store=MemoryTokenStore())
        login = asyncio.run(oauth.login(f"{mcp.url}/mcp"))
    assert login.tokens is not None and login.tokens.expires_at is not None
    assert math.isfinite(login.tokens.expires_at)


# -- minor: secrets echoed back, in any encoding --------------------------------------------


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_an_echoed_secret_reaches_no_error_message_in_any_encoding(method: str) -> None:
    with authorization_server("hostile", echo=True) as peer, mcp_server(names=peer.url) as mcp:
        oauth = OAuth(
            grant="client_credentials",
            client_id="ci",
            client_secret=SECRET,
            token_endpoint_auth_method=method,
            store=MemoryTokenStore(),
        )
        with pytest.raises(AuthError, match="the token request .client_credentials. failed: invalid_client") as raised:
            asyncio.run(oauth.login(f"{mcp.url}/mcp"))
    assert peer.saw(SECRET)  # it was sent (and echoed): the message must still hold none of it
    message = str(raised.value)
    assert [form for form in secret_forms(SECRET) if form in message] == []


def test_the_scrubber_finds_every_form_of_a_secret() -> None:
    forms = [
        SECRET,
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
        SECRET[: len(SECRET) // 2 + 1],
        SECRET[-(len(SECRET) // 2 + 1) :],
    ]
    forms += [base64.b64encode(f"{p}:{SECRET}".encode()).decode() for p in ("c", "cl", "cli")]
    forms += [base64.urlsafe_b64encode(SECRET.encode()).decode()]
    for form in forms:
        shown = scrub(f"error: {form} (end)", [SECRET])
        assert shown.startswith("error: ") and shown.endswith(" (end)")
        assert [f for f in secret_forms(SECRET) if f in shown] == [], (form, shown)
        assert SECRET[:12] not in shown and SECRET[-12:] not in shown
    assert scrub("nothing secret here", [SECRET]) == "nothing secret here"
    assert scrub("a UTC b", ["UTC"]) == "a UTC b"  # too short to be a secret


def test_cassettes_redact_every_form_of_a_secret() -> None:
    redact = Redactor.build([], [SECRET])
    values = {
        "raw": SECRET,
        "base64": base64.b64encode(SECRET.encode()).decode(),
        "basic": "Basic " + base64.b64encode(f"ci:{SECRET}".encode()).decode(),
        "percent": quote(SECRET, safe=""),
        "truncated": SECRET[:24] + "...",
    }
    out = redact({"result": values})
    assert all(REDACTED in v for v in out["result"].values()), out
    assert SECRET[:12] not in json.dumps(out) and SECRET[-12:] not in json.dumps(out)


# -- minor: a forged redirect to the loopback listener ---------------------------------------


def test_a_forged_callback_is_turned_away_and_the_login_keeps_waiting() -> None:
    async def scenario() -> tuple[str, list[int]]:
        statuses: list[int] = []
        browser: LoopbackBrowser

        async def visit(url: str) -> None:
            callback = await browser.redirect_uri()
            async with httpx.AsyncClient() as http:
                statuses.append((await http.get(f"{callback}?code=evil&state=forged")).status_code)
                statuses.append((await http.get(f"{callback}?code=evil")).status_code)
                statuses.append((await http.get(f"{callback}?code=good&state=s1")).status_code)

        tasks: list[asyncio.Task[None]] = []
        browser = LoopbackBrowser(timeout=30, open_url=lambda url: tasks.append(asyncio.ensure_future(visit(url))))
        await browser.redirect_uri()
        arrived = await browser.authorize("http://127.0.0.1:9/authorize?state=s1&client_id=x")
        await asyncio.gather(*tasks)
        return arrived, statuses

    arrived, statuses = asyncio.run(scenario())
    assert "code=good" in arrived and "state=s1" in arrived
    assert statuses == [400, 400, 200]


# -- minor: a token store others can write to ------------------------------------------


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("mode", [0o777, 0o757, 0o775])
def test_a_token_store_others_can_write_to_is_refused(tmp_path: Path, mode: int) -> None:
    directory = tmp_path / "tokens"
    store = FileTokenStore(directory)
    store.save(Login(resource="https://h/mcp", issuer="https://as"))
    directory.chmod(mode)
    login = Login(resource="https://h/mcp", issuer="https://evil")
    for attempt in (lambda: store.load("https://h/mcp"), lambda: store.save(login), store.resources):
        with pytest.raises(AuthError, match=f"refusing the token store {directory}: others can write to it"):
            attempt()
    directory.chmod(0o700)
    assert store.load("https://h/mcp") is not None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_auth_status_refuses_an_open_token_store_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "tokens").mkdir(mode=0o777)
    (tmp_path / "tokens").chmod(0o777)
    env = {**os.environ, "MCPGEN_CONFIG_DIR": str(tmp_path), "MCPGEN_TOKEN_STORE": "file"}
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "auth", "status"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and "others can write to it" in done.stderr, done.stderr


# -- minor: introspection per request ----------------------------------------------------


def test_introspection_answers_are_cached_until_exp_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from mcpgen.runtime.server.auth import verify
    from mcpgen.runtime.server.auth.settings import AuthSettings

    with authorization_server("as") as peer:
        resource = "http://127.0.0.1:1/mcp"

        def answer(p: Peer, method: str, path: str, body: str) -> tuple[int, dict[str, str], Any]:
            exp = int(time.time()) + 3600
            return 200, {}, {"active": True, "aud": resource, "exp": exp, "scope": "mcp", "iss": peer.url}

        settings = AuthSettings(
            peer.url,
            resource,
            introspection_url=f"{peer.url}/introspect",
            client_id="rs",
            client_secret=SECRET,
        )
        monkeypatch.setattr(verify, "INTROSPECTION_CACHE_SIZE", 2)
        peer.settings["introspect"] = answer

        async def run(settings: AuthSettings) -> int:
            before = len(peer.posts())
            async with httpx.AsyncClient() as http:
                verifier = verify.IntrospectionVerifier(settings, http)
                for token in ("t1", "t1", "t1", "t2", "t2", "t3", "t1"):
                    info = await verifier.verify(token)
                    assert "mcp" in info.scopes
            return len([r for r in peer.posts()[before:] if r.path == "/introspect"])

        # t1, t2, t3 once each; t1 again after t3 pushed it out of a cache of two.
        assert asyncio.run(run(settings)) == 4
        # --auth-introspection-cache 0: every request asks (a revocation takes effect at once).
        assert asyncio.run(run(replace(settings, introspection_cache=0))) == 7
