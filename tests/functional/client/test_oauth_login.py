"""A client that logs in, end to end: a generated server protected by OAuth (`--auth-*`) in front
of a real authorization server (npm oidc-provider, scripted consent). `mcpgen login --headless`
discovers it, registers (RFC 7591) and logs in with PKCE; `mcpgen client --url` generates from
the protected server with the kept login; the generated client calls a tool, survives its access
token's expiry (refresh), steps up on a tool that needs another scope; `mcpgen logout` forgets it
all and the next call needs a login. Two processes refreshing at once redeem the refresh token
once. No token appears in the wire log, an error, a generated file or a manifest."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from oauth_peer import OAuthPeer, oauth_provider, protected_scaffold, serve_protected

from mcpgen.runtime.client.auth import AuthError, FileTokenStore, OAuth, canonical_resource

pytestmark = pytest.mark.slow

TOKEN_TTL = 4  # seconds: long enough for a call, short enough to wait out


class ScriptedUser:
    """The person at the browser: walks the authorization URL through oidc-provider's login and
    consent forms (in a thread: the peer's helper is synchronous)."""

    def __init__(self, peer: OAuthPeer) -> None:
        self.peer = peer
        self.logins = 0

    async def redirect_uri(self) -> str:
        return "http://127.0.0.1:8976/callback"

    async def authorize(self, authorization_url: str) -> str:
        self.logins += 1
        return await asyncio.to_thread(self.peer.follow_authorization, authorization_url)


@pytest.fixture(scope="module")
def peer() -> Iterator[OAuthPeer]:
    with oauth_provider(access_token_ttl=TOKEN_TTL) as running:
        yield running


@pytest.fixture(scope="module")
def server_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return protected_scaffold(tmp_path_factory.mktemp("protected"))


@pytest.fixture(scope="module")
def url(server_dir: Path, peer: OAuthPeer) -> Iterator[str]:
    with serve_protected(server_dir, peer.issuer) as served:
        yield served


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A config directory of the test's own, with the file store (no OS keyring in tests)."""
    env = {"MCPGEN_CONFIG_DIR": str(tmp_path / "config"), "MCPGEN_TOKEN_STORE": "file"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return {**os.environ, **env}


def mcpgen(*args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 120) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )


def headless_login(
    url: str, peer: OAuthPeer, env: dict[str, str], *flags: str, think: float = 0.0
) -> subprocess.CompletedProcess[str]:
    """`mcpgen login URL --headless`: read the URL it prints, log in as the user (who takes
    `think` seconds over it: MFA, SSO), paste the redirect."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpgen.cli", "login", url, "--headless", *flags],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None and proc.stdin is not None
    shown: list[str] = []
    deadline = time.monotonic() + 60
    authorization_url = None
    while authorization_url is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        shown.append(line)
        if line.strip().startswith(f"{peer.issuer}/"):
            authorization_url = line.strip()
    assert authorization_url is not None, "".join(shown)
    redirect = peer.follow_authorization(authorization_url)
    time.sleep(think)  # the user, not an assertion: longer than the connection's timeout
    proc.stdin.write(redirect + "\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "".join(shown) + err)


def kept_secrets(env: dict[str, str], url: str) -> list[str]:
    login = FileTokenStore(Path(env["MCPGEN_CONFIG_DIR"]) / "tokens").load(canonical_resource(url))
    assert login is not None and login.tokens is not None
    found = [login.tokens.access_token, login.tokens.refresh_token or ""]
    if login.client and login.client.client_secret:
        found.append(login.client.client_secret)
    return [s for s in found if s]


def test_login_generate_call_refresh_step_up_logout(
    url: str, peer: OAuthPeer, home: dict[str, str], tmp_path: Path
) -> None:
    wire = tmp_path / "wire.jsonl"
    env = {**home, "MCPGEN_WIRE_LOG": str(wire)}
    # Not logged in: generating from the server fails with a one-line reason naming the fix.
    refused = mcpgen("client", "--url", url, "-o", str(tmp_path / "nope"), env=env)
    assert refused.returncode != 0 and "mcpgen login" in refused.stderr, refused.stderr

    done = headless_login(url, peer, env)
    assert done.returncode == 0, done.stderr
    assert "logged in" in done.stdout
    secrets = kept_secrets(env, url)
    status = mcpgen("auth", "status", env=env)
    assert canonical_resource(url) in status.stdout and peer.issuer in status.stdout

    package = tmp_path / "gen" / "protected_client"
    generated = mcpgen("client", "--url", url, "-o", str(package), env=env)
    assert generated.returncode == 0, generated.stderr
    assert (package / "client.py").exists()

    sys.path.insert(0, str(tmp_path / "gen"))
    try:
        calls = asyncio.run(use_generated_client(url, peer, home))
    finally:
        sys.path.remove(str(tmp_path / "gen"))
    first, after_expiry, erased, logins, last_token = calls
    assert "mcp:tools" in first["scopes"]
    assert after_expiry["jti"] != first["jti"]  # a new access token, from the refresh token
    assert erased == "erased" and logins == 1  # the step-up was one more login, for mcp:admin

    out = mcpgen("logout", url, env=env)
    assert out.returncode == 0 and "logged out" in out.stdout
    assert canonical_resource(url) not in mcpgen("auth", "status", env=env).stdout
    with pytest.raises(AuthError, match="mcpgen login"):
        asyncio.run(call_without_login(url))

    # No token or client secret anywhere it must not be: the wire log, outputs, generated files.
    every_secret = [*secrets, last_token]
    texts = [wire.read_text(encoding="utf-8"), refused.stderr, done.stdout, done.stderr, status.stdout]
    texts += [generated.stdout, generated.stderr]
    texts += [p.read_text(encoding="utf-8") for p in (tmp_path / "gen").rglob("*") if p.is_file()]
    assert wire.stat().st_size > 0
    for secret in every_secret:
        assert not any(secret in text for text in texts)


async def use_generated_client(url: str, peer: OAuthPeer, env: dict[str, str]) -> tuple[Any, Any, str, int, str]:
    from protected_client import AsyncClient

    user = ScriptedUser(peer)
    store = FileTokenStore(Path(env["MCPGEN_CONFIG_DIR"]) / "tokens")
    oauth = OAuth(authorizer=user, store=store)
    async with AsyncClient.connect_http(url, auth=oauth, wire_log=env.get("MCPGEN_WIRE_LOG")) as client:
        first = json.loads((await client.whoami()).text)
        await asyncio.sleep(TOKEN_TTL + 1)
        after = json.loads((await client.whoami()).text)
        erased = (await client.erase()).text
        login = store.load(canonical_resource(url))
        assert login is not None and login.tokens is not None
    return first, after, erased, user.logins, login.tokens.access_token


async def call_without_login(url: str) -> None:
    from mcpgen.runtime import connect_http

    async with connect_http(url, auth=OAuth(interactive=False)) as session:
        await session.list_tools()


REFRESHER = textwrap.dedent(
    """
    import asyncio, logging, sys, time
    from mcpgen.runtime.client.auth import OAuth

    records = []
    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    logging.getLogger("mcpgen.runtime.auth").addHandler(Keep())
    logging.getLogger("mcpgen.runtime.auth").setLevel(logging.INFO)

    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.005)
    header = asyncio.run(OAuth(interactive=False).authorization(sys.argv[1]))
    print(header)
    print(sum("refreshed" in r for r in records))
    """
)


def test_two_processes_refreshing_at_once_redeem_the_refresh_token_once(
    url: str, peer: OAuthPeer, home: dict[str, str], tmp_path: Path
) -> None:
    store = FileTokenStore(Path(home["MCPGEN_CONFIG_DIR"]) / "tokens")
    oauth = OAuth(authorizer=ScriptedUser(peer), store=store)
    login = asyncio.run(oauth.login(url))
    assert login.tokens is not None and login.tokens.refresh_token
    old = login.tokens.access_token
    login.tokens.expires_at = time.time() - 1  # expired: the next use refreshes
    store.save(login)
    script = tmp_path / "refresher.py"
    script.write_text(REFRESHER, encoding="utf-8")
    start = str(time.time() + 3)
    procs = [
        subprocess.Popen([sys.executable, str(script), url, start], stdout=subprocess.PIPE, text=True, env=home)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=60)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    headers = {" ".join(out[:2]) for out in outputs}
    refreshes = sum(int(out[2]) for out in outputs)
    assert refreshes == 1, outputs  # one process redeemed the refresh token; the other took its result
    assert len(headers) == 1 and old not in headers.pop()


def test_the_browser_login_comes_back_to_the_loopback_listener(url: str, peer: OAuthPeer, home: dict[str, str]) -> None:
    import threading

    import httpx

    from mcpgen.runtime.client.auth import LoopbackBrowser, MemoryTokenStore

    opened: list[str] = []

    def browser(authorization_url: str) -> None:
        # The system browser: the user logs in, and the provider's redirect lands on 127.0.0.1.
        def visit() -> None:
            redirect = peer.follow_authorization(authorization_url)
            opened.append(redirect)
            httpx.get(redirect, timeout=10)

        threading.Thread(target=visit, daemon=True).start()

    oauth = OAuth(authorizer=LoopbackBrowser(open_url=browser, timeout=60), store=MemoryTokenStore())
    login = asyncio.run(oauth.login(url))
    assert login.tokens is not None and login.client is not None
    assert opened and opened[0].startswith("http://127.0.0.1:") and "/callback?" in opened[0]


def test_logout_revokes_the_refresh_token_at_the_authorization_server(
    url: str, peer: OAuthPeer, home: dict[str, str]
) -> None:
    store = FileTokenStore(Path(home["MCPGEN_CONFIG_DIR"]) / "tokens")
    login = asyncio.run(OAuth(authorizer=ScriptedUser(peer), store=store).login(url))
    assert login.tokens is not None and login.tokens.refresh_token and login.client is not None
    client, refresh_token = login.client, login.tokens.refresh_token

    out = mcpgen("logout", url, env=home)
    assert out.returncode == 0, out.stderr
    # The refresh token no longer works at the token endpoint, for the client it was issued to.
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "resource": canonical_resource(url)}
    secret = client.client_secret
    auth = (client.client_id, secret) if secret else None
    answer = httpx.post(peer.token_url, data=form if secret else {**form, "client_id": client.client_id}, auth=auth)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant", answer.text
    assert "tokens revoked" in out.stdout and out.stderr == ""
    assert store.load(canonical_resource(url)) is None


def test_logout_forgets_the_login_when_revocation_fails(url: str, peer: OAuthPeer, home: dict[str, str]) -> None:
    store = FileTokenStore(Path(home["MCPGEN_CONFIG_DIR"]) / "tokens")
    login = asyncio.run(OAuth(authorizer=ScriptedUser(peer), store=store).login(url))
    assert login.client is not None
    # A client the authorization server no longer knows: revocation is refused (401 invalid_client).
    login.client = replace(login.client, client_id="unknown-client", client_secret="not-the-secret")
    store.save(login)

    out = mcpgen("logout", url, env=home)
    assert out.returncode == 0, out.stderr
    (warning,) = out.stderr.splitlines()
    assert warning.startswith("mcpgen: warning: could not revoke the tokens") and "forgot them here" in warning
    assert "not-the-secret" not in out.stdout + out.stderr
    assert "logged out" in out.stdout and store.load(canonical_resource(url)) is None


def test_a_login_that_outlasts_the_connect_timeout_still_succeeds(
    url: str, peer: OAuthPeer, home: dict[str, str]
) -> None:
    """The login has its own deadline (--login-timeout); the connection's covers the network only."""
    done = headless_login(url, peer, home, "--connect-timeout", "1", think=2.5)
    assert done.returncode == 0, done.stderr
    assert "logged in" in done.stdout


def test_a_login_past_its_own_deadline_fails_in_one_line(url: str, home: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpgen.cli", "login", url, "--headless", "--login-timeout", "1"],
        stdin=subprocess.PIPE,  # the user never pastes anything
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=home,
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.wait(timeout=60)  # stdin stays open: the user is still "in the browser"
    err = proc.stderr.read()
    proc.stdin.close()
    assert proc.returncode != 0
    assert "not finished within 1 seconds (--login-timeout)" in err, err
