"""The oidc-provider peer itself: what the auth tests rely on it for (JWT access tokens bound to a
resource, scripted login, refresh, dynamic registration)."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from oauth_peer import OAuthPeer

pytestmark = pytest.mark.slow
RESOURCE = "http://127.0.0.1:8123/mcp"


def claims_of(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_client_credentials_token_is_a_jwt_for_the_resource(oauth_peer: OAuthPeer) -> None:
    claims = claims_of(oauth_peer.client_credentials(RESOURCE, "mcp:tools").access_token)
    assert claims["aud"] == RESOURCE
    assert claims["iss"] == oauth_peer.issuer
    assert claims["scope"] == "mcp:tools"
    assert claims["client_id"] == oauth_peer.client_id


def test_the_short_lived_client_gets_one_second_tokens(oauth_peer: OAuthPeer) -> None:
    claims = claims_of(oauth_peer.client_credentials(RESOURCE, "mcp:tools", short_lived=True).access_token)
    assert claims["exp"] - claims["iat"] == 1


def test_scripted_login_gives_a_user_token_and_a_refresh_token(oauth_peer: OAuthPeer) -> None:
    tokens = oauth_peer.authorization_code(RESOURCE, "mcp:tools mcp:admin", login="bob")
    assert claims_of(tokens.access_token)["sub"] == "bob"
    assert tokens.refresh_token
    refreshed = oauth_peer.refresh(tokens.refresh_token, RESOURCE)
    assert claims_of(refreshed.access_token)["aud"] == RESOURCE


def test_dynamic_registration_is_advertised_and_works(oauth_peer: OAuthPeer) -> None:
    metadata = httpx.get(oauth_peer.metadata_url).json()
    registered = httpx.post(
        metadata["registration_endpoint"],
        json={"redirect_uris": ["http://127.0.0.1:9/cb"], "token_endpoint_auth_method": "none"},
    )
    assert registered.status_code == 201, registered.text
    assert registered.json()["client_id"]
