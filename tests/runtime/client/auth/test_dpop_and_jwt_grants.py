"""DPoP proofs and nonces (RFC 9449), the key kept with its token in the store, and the two
JWT-bearer grants (workload identity federation, enterprise-managed authorization) against a
small authorization server on 127.0.0.1 (the conformance harness runs the full flows:
tests/conformance/test_conformance_auth.py)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey

from mcpgen.runtime.client.auth import (
    AuthError,
    FileTokenStore,
    IdentityProvider,
    Login,
    MemoryTokenStore,
    OAuth,
    Tokens,
    parse_challenge,
)
from mcpgen.runtime.client.auth.discovery import ServerMetadata
from mcpgen.runtime.client.auth.dpop import Nonces, new_key, proof
from mcpgen.runtime.client.auth.grants import id_jag
from mcpgen.runtime.client.auth.tokens import Client
from mcpgen.runtime.core.binding import Binding


def decoded(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The proof's header and claims, its signature checked with the key it carries."""
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    verified = jwt.decode(token, ECKey.import_key(header["jwk"]))
    return dict(verified.header), dict(verified.claims)


def test_a_proof_names_the_request_and_hashes_the_token() -> None:
    key = new_key()
    header, claims = decoded(proof(key, "post", "https://h/mcp?x=1#f", token="tok", nonce="n1"))
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert "d" not in header["jwk"]  # the public half only
    assert claims["htm"] == "POST" and claims["htu"] == "https://h/mcp"
    assert claims["ath"] == base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert claims["nonce"] == "n1"
    _, again = decoded(proof(key, "POST", "https://h/mcp"))
    assert again["jti"] != claims["jti"] and "ath" not in again and "nonce" not in again


def test_nonces_are_kept_per_origin_and_bounded() -> None:
    nonces = Nonces()
    assert nonces.note("https://a/x", "n1") and not nonces.note("https://a/y", "n1")  # same origin, same nonce
    assert nonces.get("https://A/z") == "n1" and nonces.get("https://b/") is None
    assert not nonces.note("https://a/", "n" * 600) and not nonces.note("https://a/", "bad\nnonce")
    for i in range(200):
        nonces.note(f"https://h{i}/", "n")
    assert len(nonces._by_origin) <= 64


def test_the_dpop_key_is_stored_with_its_token(tmp_path: Path) -> None:
    store = FileTokenStore(tmp_path / "tokens")
    key = new_key()
    store.save(Login(resource="https://h/mcp", issuer="https://as", tokens=Tokens("t", "DPoP", dpop_key=key)))
    loaded = store.load("https://h/mcp")
    assert loaded is not None and loaded.tokens is not None
    assert loaded.tokens.dpop_key == key and loaded.tokens.scheme == "DPoP"
    assert Tokens("t").scheme == "Bearer"


def test_a_dpop_challenge_is_parsed_like_a_bearer_one() -> None:
    challenge = parse_challenge(401, 'DPoP error="use_dpop_nonce", resource_metadata="https://h/.well-known/x"')
    assert challenge.error == "use_dpop_nonce" and challenge.resource_metadata == "https://h/.well-known/x"


class AuthServer(ThreadingHTTPServer):
    """A token endpoint whose answers the test scripts: (status, body, DPoP-Nonce) per request."""

    answers: list[tuple[int, dict[str, Any], str | None]]
    seen: list[tuple[dict[str, str], dict[str, str]]]


class _Token(BaseHTTPRequestHandler):
    server: AuthServer

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        self.server.seen.append((form, {k.lower(): v for k, v in self.headers.items()}))
        status, body, nonce = self.server.answers.pop(0) if self.server.answers else (500, {}, None)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if nonce:
            self.send_header("dpop-nonce", nonce)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def auth_server() -> Iterator[AuthServer]:
    server = AuthServer(("127.0.0.1", 0), _Token)
    server.answers, server.seen = [], []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def metadata_of(server: AuthServer, dpop: bool = True) -> ServerMetadata:
    issuer = f"http://127.0.0.1:{server.server_address[1]}"
    raw = {"dpop_signing_alg_values_supported": ["ES256"]} if dpop else {}
    return ServerMetadata(issuer=issuer, authorization_endpoint=None, token_endpoint=f"{issuer}/token", raw=raw)


def token_request(oauth: OAuth, metadata: ServerMetadata, body: dict[str, str]) -> Tokens:
    async def run() -> Tokens:
        async with httpx.AsyncClient() as http:
            binding = Binding("https://h/mcp", bound_to=metadata.issuer)
            return await oauth._token_request(http, metadata, Client("c"), body, binding)

    return asyncio.run(run())


def test_the_token_request_retries_once_with_the_servers_nonce(auth_server: AuthServer) -> None:
    auth_server.answers = [
        (400, {"error": "use_dpop_nonce"}, "as-nonce"),
        (200, {"access_token": "t", "token_type": "DPoP"}, None),
    ]
    tokens = token_request(
        OAuth(store=MemoryTokenStore(), dpop=None), metadata_of(auth_server), {"grant_type": "client_credentials"}
    )
    assert tokens.dpop_key is not None and tokens.scheme == "DPoP"
    proofs = [decoded(headers["dpop"])[1] for _, headers in auth_server.seen]
    assert "nonce" not in proofs[0] and proofs[1]["nonce"] == "as-nonce"
    # The token is bound to the key that signed the proofs.
    first_header = json.loads(base64.urlsafe_b64decode(auth_server.seen[0][1]["dpop"].split(".")[0] + "=="))
    assert ECKey.import_key(first_header["jwk"]).thumbprint() == ECKey.import_key(tokens.dpop_key).thumbprint()


def test_a_server_that_keeps_asking_for_nonces_gets_one_retry(auth_server: AuthServer) -> None:
    auth_server.answers = [(400, {"error": "use_dpop_nonce"}, f"n{i}") for i in range(5)]
    with pytest.raises(AuthError, match="use_dpop_nonce"):
        token_request(
            OAuth(store=MemoryTokenStore(), dpop=None), metadata_of(auth_server), {"grant_type": "client_credentials"}
        )
    assert len(auth_server.seen) == 2


def test_a_bearer_answer_is_not_bound_and_no_dpop_without_the_offer(auth_server: AuthServer) -> None:
    auth_server.answers = [(200, {"access_token": "t", "token_type": "Bearer"}, None)] * 2
    bearer = token_request(
        OAuth(store=MemoryTokenStore(), dpop=None), metadata_of(auth_server), {"grant_type": "client_credentials"}
    )
    assert bearer.dpop_key is None and bearer.scheme == "Bearer"
    token_request(OAuth(store=MemoryTokenStore(), dpop=None), metadata_of(auth_server, dpop=False), {"grant_type": "x"})
    assert "dpop" in auth_server.seen[0][1] and "dpop" not in auth_server.seen[1][1]


def test_a_refused_jwt_bearer_grant_names_no_assertion(auth_server: AuthServer) -> None:
    secret_jwt = "eyJhbGciOiJFUzI1NiJ9.workload-secret-assertion.sig"
    auth_server.answers = [(400, {"error": "invalid_grant", "error_description": f"bad {secret_jwt}"}, None)]
    body = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": secret_jwt}
    with pytest.raises(AuthError, match="invalid_grant") as raised:
        token_request(OAuth(store=MemoryTokenStore(), dpop=None), metadata_of(auth_server, dpop=False), body)
    assert secret_jwt not in str(raised.value)


def test_the_id_jag_exchange_sends_the_id_token_and_checks_the_answer(auth_server: AuthServer) -> None:
    idp = f"http://127.0.0.1:{auth_server.server_address[1]}/token"
    provider = IdentityProvider(idp, "idp-client", lambda: "the-id-token")
    auth_server.answers = [
        (200, {"access_token": "jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"}, None),
        (
            200,
            {"access_token": "not-a-jag", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"},
            None,
        ),
    ]

    async def exchange() -> str:
        async with httpx.AsyncClient() as http:
            return await id_jag(http, provider, audience="https://as", resource="https://h/mcp", scope=None)

    assert asyncio.run(exchange()) == "jag"
    form = auth_server.seen[0][0]
    assert form["subject_token"] == "the-id-token" and form["audience"] == "https://as"
    assert form["resource"] == "https://h/mcp" and form["client_id"] == "idp-client"
    with pytest.raises(AuthError, match="token exchange for an ID-JAG failed"):
        asyncio.run(exchange())


def test_the_jwt_bearer_grants_need_their_assertion() -> None:
    metadata = ServerMetadata(issuer="https://as", authorization_endpoint=None, token_endpoint="https://as/token")

    async def assertion_of(oauth: OAuth) -> str:
        async with httpx.AsyncClient() as http:
            return await oauth._assertion(http, metadata, "https://h/mcp", None)

    with pytest.raises(AuthError, match="needs an assertion"):
        asyncio.run(assertion_of(OAuth(grant="jwt_bearer", store=MemoryTokenStore())))
    with pytest.raises(AuthError, match="needs an identity_provider"):
        asyncio.run(assertion_of(OAuth(grant="enterprise", store=MemoryTokenStore())))
    assert asyncio.run(assertion_of(OAuth(grant="jwt_bearer", assertion=lambda: "w", store=MemoryTokenStore()))) == "w"
