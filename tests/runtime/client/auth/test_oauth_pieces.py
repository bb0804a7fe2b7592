"""The OAuth client's pieces on their own: the challenge parser, the checks on metadata from
outside, the token store's file permissions, what a run without a login does, and that the
generated client's import needs none of the oauth extra."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mcpgen.runtime.client.auth import (
    AuthError,
    FileTokenStore,
    Login,
    MemoryTokenStore,
    OAuth,
    Tokens,
    parse_challenge,
)
from mcpgen.runtime.client.auth.discovery import (
    canonical_resource,
    check_endpoint,
    check_resource,
    parse_server_metadata,
    resource_metadata_urls,
    server_metadata_urls,
)
from mcpgen.runtime.client.auth.tokens import Client


def test_the_challenge_gives_error_scope_and_metadata_url() -> None:
    header = 'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/y"'
    challenge = parse_challenge(403, header)
    assert challenge.insufficient_scope
    assert challenge.scope == "a b" and challenge.resource_metadata == "https://x/.well-known/y"
    assert not parse_challenge(401, header).insufficient_scope


@pytest.mark.parametrize("header", ["", "Basic realm=x", "Bearer", 'Bearer scope="' + "s" * 100000, "Bearer ,,,=,"])
def test_a_hostile_or_empty_challenge_parses_to_little(header: str) -> None:
    challenge = parse_challenge(401, header)
    assert challenge.scope is None or len(challenge.scope) <= 2048


def test_discovery_urls_follow_the_specs_order() -> None:
    assert resource_metadata_urls("https://h/p/mcp", None) == [
        "https://h/.well-known/oauth-protected-resource/p/mcp",
        "https://h/.well-known/oauth-protected-resource",
    ]
    assert server_metadata_urls("https://as/tenant") == [
        "https://as/.well-known/oauth-authorization-server/tenant",
        "https://as/.well-known/openid-configuration/tenant",
        "https://as/tenant/.well-known/openid-configuration",
    ]


def test_metadata_for_another_server_or_issuer_is_refused() -> None:
    check_resource("https://h/mcp", "https://h/mcp")
    check_resource("https://H/mcp/", "https://h/mcp")
    # RFC 9728 §3.3: the resource is this server's URL exactly; a parent, a missing one or another
    # origin's is refused.
    for named in ("https://h/", "https://h", None, "https://evil.example/mcp", "https://h/other", "http://h/mcp"):
        for fetched_from in (None, "https://h/.well-known/oauth-protected-resource/mcp", "https://h/custom"):
            with pytest.raises(AuthError, match="protected resource metadata names"):
                check_resource("https://h/a/mcp" if named == "https://h/a" else "https://h/mcp", named, fetched_from)
    # Only the root well-known URL's identifier is the origin itself (RFC 9728 §3.1).
    check_resource("https://h/mcp", "https://h", "https://h/.well-known/oauth-protected-resource")
    with pytest.raises(AuthError, match="names the resource 'https://h/a'"):
        check_resource("https://h/a/mcp", "https://h/a", "https://h/.well-known/oauth-protected-resource")
    with pytest.raises(AuthError, match="names the issuer"):
        parse_server_metadata({"issuer": "https://evil", "token_endpoint": "https://evil/t"}, "https://as")


def test_the_resource_sent_to_the_authorization_server_never_carries_the_urls_userinfo() -> None:
    # The canonical URI is the `resource` parameter of every authorization and token request:
    # a password in the server's URL would go to the authorization server, another origin.
    assert canonical_resource("HTTPS://alice:pw-hunter2@MCP.Example:8443/Path/mcp?x=1#f") == (
        "https://mcp.example:8443/Path/mcp"
    )
    assert canonical_resource("http://bob@[::1]:9000/mcp") == "http://[::1]:9000/mcp"
    assert canonical_resource("https://h/mcp") == "https://h/mcp"
    check_resource("https://alice:pw-hunter2@h/mcp", "https://h/mcp")  # the same server, named without it
    with pytest.raises(AuthError, match="the protected resource metadata names the resource") as refused:
        check_resource("https://alice:pw-hunter2@h/mcp", "https://evil.example/mcp")
    assert "hunter2" not in str(refused.value)


def test_login_failures_name_the_server_without_its_secrets(tmp_path: Path) -> None:
    url = "http://alice:pw-hunter2-secret@127.0.0.1:9/mcp?access_token=tok-SECRET-4242"
    env = {**os.environ, "MCPGEN_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "login", url, "--headless"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("mcpgen: error: login to http://127.0.0.1:9/mcp failed: "), done.stderr
    assert "hunter2" not in done.stderr + done.stdout and "tok-SECRET" not in done.stderr + done.stdout


@pytest.mark.parametrize("url", ["http://as.example/token", "ftp://as/token", "javascript:alert(1)", "https:///x"])
def test_endpoints_must_be_https_or_loopback(url: str) -> None:
    with pytest.raises(AuthError, match="refusing the token_endpoint"):
        check_endpoint(url, "token_endpoint")
    assert check_endpoint("http://127.0.0.1:9/token", "t") and check_endpoint("https://as/t", "t")


def test_the_file_store_is_private_and_survives_a_corrupt_file(tmp_path: Path) -> None:
    store = FileTokenStore(tmp_path / "tokens")
    login = Login(
        "https://h/mcp", "https://as", Client("id", "sec", "client_secret_basic"), Tokens("at", "Bearer", "rt")
    )
    store.save(login)
    [path] = list((tmp_path / "tokens").glob("*.json"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "tokens").stat().st_mode) == 0o700
    loaded = store.load("https://h/mcp")
    assert loaded is not None and loaded.tokens is not None and loaded.tokens.refresh_token == "rt"
    assert store.resources() == ["https://h/mcp"]
    path.write_text("{not json", encoding="utf-8")
    assert store.load("https://h/mcp") is None and store.resources() == []
    path.write_text(json.dumps({**login.to_json(), "resource": "https://other/mcp"}), encoding="utf-8")
    assert store.load("https://h/mcp") is None  # a record filed under another name is not this one
    assert store.delete("https://h/mcp") and not store.delete("https://h/mcp")


def test_a_short_lived_token_is_refreshed_a_quarter_before_expiry() -> None:
    tokens = Tokens.from_response({"access_token": "a", "expires_in": 8})
    assert not tokens.expiring()
    tokens.expires_at = time.time() + 1.5
    assert tokens.expiring()
    assert not Tokens.from_response({"access_token": "a"}).expiring()
    with pytest.raises(ValueError, match="answer holds no access_token"):
        Tokens.from_response({"token_type": "Bearer"})


def test_a_generated_client_imports_without_the_oauth_extra(tmp_path: Path) -> None:
    # The extra's modules made unimportable: connect_http and the auth package still import.
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\nfor name in ('authlib', 'joserfc', 'keyring', 'filelock'):\n    sys.modules[name] = None\n",
        encoding="utf-8",
    )
    code = "import mcpgen.runtime.support.client, mcpgen.runtime.client.auth; from mcpgen.runtime import connect_http"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr


class EchoingServer(ThreadingHTTPServer):
    """An authorization server that refuses every token request, echoing the form it got."""


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._send(200, {"issuer": issuer, "token_endpoint": f"{issuer}/token"})

    def do_POST(self) -> None:  # noqa: N802
        form = self.rfile.read(int(self.headers.get("content-length", "0"))).decode()
        self._send(400, {"error": "invalid_grant", "error_description": f"{form} {self.headers.get('authorization')}"})

    def _send(self, status: int, body: dict[str, str]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_echoing_the_refresh_token_does_not_get_it_into_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MCPGEN_CONFIG_DIR", str(tmp_path))
    server = EchoingServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        issuer = f"http://127.0.0.1:{server.server_address[1]}"
        store = MemoryTokenStore()
        client = Client("cid", "client-secret-xyz", "client_secret_post")
        tokens = Tokens("access-abc", "Bearer", "refresh-secret-123", expires_at=time.time() - 5)
        store.save(Login("http://127.0.0.1:1/mcp", issuer, client, tokens))
        oauth = OAuth(store=store, interactive=False)
        with caplog.at_level(logging.INFO, logger="mcpgen.runtime.auth"):
            header = asyncio.run(oauth.authorization("http://127.0.0.1:1/mcp"))
    finally:
        server.shutdown()
    assert header is None  # the refresh failed: the next request goes without, and gets a 401
    assert "invalid_grant" in caplog.text
    for secret in ("refresh-secret-123", "client-secret-xyz", "access-abc"):
        assert secret not in caplog.text
