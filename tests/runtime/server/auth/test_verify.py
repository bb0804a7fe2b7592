"""Access token checks in process: a JWT verified with the issuer's keys, RFC 7662 introspection,
and the audience/lifetime/scope checks both share. The authorization server is an httpx
MockTransport (what it is asked is recorded); the clock of the introspection cache is the
module's, set by the test, so nothing waits."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from mcpgen.runtime.core.errors import InvalidToken
from mcpgen.runtime.server.auth import verify
from mcpgen.runtime.server.auth.info import AuthInfo
from mcpgen.runtime.server.auth.settings import AuthSettings
from mcpgen.runtime.server.auth.verify import checked_claims, make_verifier

ISSUER = "https://as.example"
RESOURCE = "https://rs.example/mcp"
NOW = 1_900_000_000
# The bounds, as numbers (not imported: a test must notice when the module's change).
MAX_TOKEN_LENGTH = 16 * 1024
INTROSPECTION_CACHE_SIZE = 10_000
KEYS = {kid: RSAKey.generate_key(2048) for kid in ("k1", "k2")}
SETTINGS = AuthSettings(issuer=ISSUER, resource=RESOURCE, jwks_url="https://as.example/jwks")
INTROSPECTING = AuthSettings(
    issuer=ISSUER,
    resource=RESOURCE,
    introspection_url="https://as.example/introspect",
    client_id="rs",
    client_secret="s3cret",
)


def claims(**extra: Any) -> dict[str, Any]:
    return {"iss": ISSUER, "aud": RESOURCE, "exp": NOW + 3600, "sub": "alice", "scope": "read write", **extra}


def signed(payload: dict[str, Any], kid: str | None = "k1", alg: str = "RS256", key: str = "k1") -> str:
    header = {"alg": alg} if kid is None else {"alg": alg, "kid": kid}
    return jwt.encode(header, payload, KEYS[key])


def segment(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


class AuthServer:
    """The JWKS and introspection endpoints; `answers` maps a token to its introspection answer."""

    def __init__(self, kids: tuple[str, ...] = ("k1",)) -> None:
        self.jwks = {"keys": [{**KEYS[k].as_dict(private=False), "kid": k, "use": "sig"} for k in kids]}
        self.answers: dict[str, dict[str, Any]] = {}
        self.asked: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(request)
        if request.url.path == "/jwks":
            return httpx.Response(200, json=self.jwks)
        token = dict(httpx.QueryParams(request.content.decode()))["token"]
        return httpx.Response(200, json=self.answers.get(token, {"active": False}))


def run(server: AuthServer, settings: AuthSettings, check: Callable[[verify.TokenVerifier], Any]) -> Any:
    async def main() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(server.handle)) as client:
            return await check(make_verifier(settings, client))

    return asyncio.run(main())


def verified(token: str, server: AuthServer | None = None) -> AuthInfo:
    return run(server or AuthServer(), SETTINGS, lambda v: v.verify(token))  # type: ignore[no-any-return]


def refuse(token: str, reason: str, server: AuthServer | None = None, settings: AuthSettings = SETTINGS) -> None:
    """The token is refused with exactly this one-line reason."""
    with pytest.raises(InvalidToken, match=f"^{re.escape(reason)}$"):
        run(server or AuthServer(), settings, lambda v: v.verify(token))


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The verify module's clock, at NOW until a test moves it."""
    now = [float(NOW)]
    monkeypatch.setattr(verify, "time", SimpleNamespace(time=lambda: now[0]))
    return now


def test_a_valid_jwt_becomes_what_handlers_see() -> None:
    info = verified(signed(claims(client_id="app")))
    assert (info.subject, info.client_id, info.scopes) == ("alice", "app", frozenset({"read", "write"}))
    assert (info.issuer, info.audience, info.expires_at) == (ISSUER, (RESOURCE,), NOW + 3600)
    assert info.claims["sub"] == "alice"


def test_the_key_is_the_one_the_token_names_or_the_only_one() -> None:
    two = AuthServer(kids=("k1", "k2"))
    assert verified(signed(claims(), kid="k2", key="k2"), two).subject == "alice"
    # A token without a kid: the only key is used, if there is just one.
    assert verified(signed(claims(), kid=None)).subject == "alice"
    refuse(signed(claims(), kid=None), "signed with an unknown key", AuthServer(kids=("k1", "k2")))
    refuse(signed(claims(), kid="k9"), "signed with an unknown key")
    refuse(signed(claims(), kid="k1", key="k2"), "bad signature")


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("abc", "not a signed JWT"),
        ("a.b.c.d", "not a signed JWT"),
        (segment([1, 2]) + ".e30.sig", "not a signed JWT"),  # a header that is no object
        (base64.urlsafe_b64encode(b"not json").decode() + ".e30.sig", "not a signed JWT"),
        (segment({"alg": "HS256", "kid": "k1"}) + ".e30.sig", "algorithm 'HS256' is not accepted"),
        (segment({"alg": "none"}) + ".e30.", "algorithm 'none' is not accepted"),
        (segment({"kid": "k1"}) + ".e30.sig", "algorithm 'None' is not accepted"),
        (segment({"alg": "X" * 40}) + ".e30.sig", f"algorithm {'X' * 20!r} is not accepted"),
    ],
)
def test_what_is_not_a_usable_jwt_is_refused_with_its_reason(token: str, reason: str) -> None:
    refuse(token, reason)


def test_a_header_of_any_length_is_read_without_its_padding() -> None:
    for raw in (b'{"alg":"HS256"}', b'{"alg":"HS256","x":1}', b'{"alg":"HS256","x":12}', b'{"alg":"HS256","x":123}'):
        header = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        refuse(header + ".e30.sig", "algorithm 'HS256' is not accepted")  # read, then judged


def test_a_token_over_the_length_cap_is_refused_before_anything_is_read() -> None:
    head = segment({"alg": "RS256", "kid": "k1"}) + "."
    at_cap = head + "A" * (MAX_TOKEN_LENGTH - len(head) - 4) + ".sig"
    assert len(at_cap) == MAX_TOKEN_LENGTH
    refuse(at_cap, "bad signature")  # read, and judged on its signature
    refuse(at_cap[:-4] + "A.sig", "not a signed JWT")
    refuse("a" * MAX_TOKEN_LENGTH, "the token is not active", settings=INTROSPECTING)
    refuse("a" * (MAX_TOKEN_LENGTH + 1), "the token is too long", settings=INTROSPECTING)


def test_a_jwt_needs_an_expiry_and_our_issuer() -> None:
    no_exp = claims()
    del no_exp["exp"]
    refuse(signed(no_exp), "the token has no expiry")
    refuse(signed(claims(exp="soon")), "the token has no expiry")
    refuse(signed(claims(iss="https://other.example")), "issued by another authorization server")


def test_audience_is_this_server_in_any_of_its_spellings() -> None:
    slash = AuthSettings(issuer=ISSUER, resource=RESOURCE + "/")
    assert checked_claims(claims(aud=[1, "https://x", RESOURCE]), slash, NOW).audience == ("https://x", RESOURCE)
    assert checked_claims(claims(aud=RESOURCE + "/"), SETTINGS, NOW).audience == (RESOURCE + "/",)
    for aud in ("https://rs.example/other", ["https://rs.example"], None, 7):
        with pytest.raises(InvalidToken, match=r"^the token is not meant for this server \(audience\)$"):
            checked_claims(claims(aud=aud), SETTINGS, NOW)


def test_lifetime_allows_the_leeway_and_not_a_second_more() -> None:
    leeway = SETTINGS.leeway
    assert checked_claims(claims(exp=NOW - leeway), SETTINGS, NOW).expires_at == NOW - leeway
    with pytest.raises(InvalidToken, match="^the token has expired$"):
        checked_claims(claims(exp=NOW - leeway - 1), SETTINGS, NOW)
    assert checked_claims(claims(nbf=NOW + leeway), SETTINGS, NOW).subject == "alice"
    with pytest.raises(InvalidToken, match="^the token is not valid yet$"):
        checked_claims(claims(nbf=NOW + leeway + 1), SETTINGS, NOW)
    # Claims of another type are not a lifetime: no expiry is read from them.
    assert checked_claims(claims(exp="never", nbf="later"), SETTINGS, NOW).expires_at is None
    assert checked_claims(claims(exp=NOW + 0.5), SETTINGS, NOW).expires_at == NOW


@pytest.mark.parametrize(
    ("extra", "scopes"),
    [
        ({"scope": "a  b"}, {"a", "b"}),
        ({"scope": None, "scp": ["a", 1, "b"]}, {"a", "b"}),
        ({"scope": ["a", "b"]}, {"a", "b"}),  # a list under `scope` counts too
        ({"scope": 5}, set()),
        ({"scope": None, "scp": "a b"}, set()),  # `scp` must be a list
    ],
)
def test_scopes_are_read_from_a_string_or_a_list(extra: dict[str, Any], scopes: set[str]) -> None:
    assert checked_claims(claims(**extra), SETTINGS, NOW).scopes == frozenset(scopes)


def test_subject_and_client_are_strings_or_nothing() -> None:
    info = checked_claims(claims(sub=5, azp="web"), SETTINGS, NOW)
    assert (info.subject, info.client_id) == (None, "web")
    assert checked_claims(claims(client_id="app", azp="web"), SETTINGS, NOW).client_id == "app"
    assert checked_claims(claims(client_id=["app"]), SETTINGS, NOW).client_id is None


def introspected(server: AuthServer, *tokens: str, settings: AuthSettings = INTROSPECTING) -> list[Any]:
    """Verifies the tokens in order with one verifier; a refusal is given as its reason."""

    async def check(verifier: verify.TokenVerifier) -> list[Any]:
        results: list[Any] = []
        for token in tokens:
            try:
                results.append(await verifier.verify(token))
            except InvalidToken as exc:
                results.append(str(exc))
        return results

    return run(server, settings, check)  # type: ignore[no-any-return]


def test_introspection_asks_the_authorization_server_with_this_servers_credentials() -> None:
    server = AuthServer()
    server.answers["t1"] = {"active": True, **claims(iss=None)}
    del server.answers["t1"]["iss"]  # RFC 7662 lets the server leave iss out
    [info] = introspected(server, "t1")
    assert (info.subject, info.issuer, info.scopes) == ("alice", ISSUER, frozenset({"read", "write"}))
    [request] = server.asked
    assert (request.method, str(request.url)) == ("POST", "https://as.example/introspect")
    assert dict(httpx.QueryParams(request.content.decode())) == {"token": "t1", "token_type_hint": "access_token"}
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"rs:s3cret").decode()


def test_introspection_refuses_inactive_foreign_and_misaddressed_tokens() -> None:
    server = AuthServer()
    server.answers = {
        "ours": {"active": True, **claims()},
        "string-true": {"active": "true", **claims()},
        "foreign": {"active": True, **claims(iss="https://other.example")},
        "elsewhere": {"active": True, **claims(aud="https://other.example")},
    }
    results = introspected(server, "ours", "string-true", "foreign", "elsewhere", "unknown")
    assert results[0].subject == "alice"
    assert results[1:] == [
        "the token is not active",
        "issued by another authorization server",
        "the token is not meant for this server (audience)",
        "the token is not active",
    ]


def test_an_answer_is_kept_for_the_cache_time_and_never_past_exp(clock: list[float]) -> None:
    server = AuthServer()
    server.answers = {"long": {"active": True, **claims()}, "short": {"active": True, **claims(exp=NOW + 10)}}

    async def check(verifier: verify.TokenVerifier) -> list[int]:
        asked = []
        for at in (0, 59.5, 60, 60.5):  # introspection_cache is 60 s
            clock[0] = NOW + at
            info = await verifier.verify("long")
            assert info.subject == "alice" and info.expires_at == NOW + 3600  # the kept answer, as given
            asked.append(len(server.asked))
        server.asked.clear()
        for at in (0, 9, 10):  # exp is NOW + 10
            clock[0] = NOW + at
            await verifier.verify("short")
            asked.append(len(server.asked))
        return asked

    # Asked at 0, kept until 60 (asked again at 60), then kept until 120; "short" until its exp.
    assert run(server, INTROSPECTING, check) == [1, 1, 2, 2, 1, 1, 2]


def test_without_exp_or_with_no_cache_time_every_request_asks() -> None:
    server = AuthServer()
    no_exp = {"active": True, **claims()}
    del no_exp["exp"]
    server.answers = {"no-exp": no_exp, "t": {"active": True, **claims()}}
    results = introspected(server, "no-exp", "no-exp")
    assert [r.expires_at for r in results] == [None, None] and len(server.asked) == 2
    server.asked.clear()
    uncached = replace(INTROSPECTING, introspection_cache=0.0)
    introspected(server, "t", "t", settings=uncached)
    assert len(server.asked) == 2


def test_an_answer_asked_again_after_its_cache_time_is_the_newest_in_the_cache(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a cache of three tokens: the eviction order is the same at any size)
    monkeypatch.setattr(verify, "INTROSPECTION_CACHE_SIZE", 3)
    server = AuthServer()
    server.answers = {t: {"active": True, **claims()} for t in "abcd"}

    def token_asked(request: httpx.Request) -> str:
        return dict(httpx.QueryParams(request.content.decode()))["token"]

    async def check(verifier: verify.TokenVerifier) -> list[str]:
        for at, token in ((0, "a"), (30, "b"), (60, "a"), (61, "c"), (62, "d"), (63, "a"), (64, "b")):
            clock[0] = NOW + at
            await verifier.verify(token)
        return [token_asked(r) for r in server.asked]

    # At 60 a's answer is stale: asked again, it is now newer than b, so d (the fourth) pushes b
    # out, not a: a is still kept at 63, b is asked again at 64.
    assert run(server, INTROSPECTING, check) == ["a", "b", "a", "c", "d", "b"]


@pytest.mark.slow  # ten thousand introspections
def test_the_introspection_cache_holds_a_bounded_number_of_tokens_oldest_out_first() -> None:
    server = AuthServer()
    tokens = [f"t{n}" for n in range(INTROSPECTION_CACHE_SIZE + 1)]
    server.answers = {t: {"active": True, **claims()} for t in tokens}
    # One more token than the cache holds, then the first again: it was dropped, so it is asked
    # again; the second is still kept.
    introspected(server, *tokens, "t1", "t0")
    assert len(server.asked) == len(tokens) + 1
    assert dict(httpx.QueryParams(server.asked[-1].content.decode()))["token"] == "t0"
