"""`OAuth`: the auth object `connect_http(..., auth=OAuth(...))` takes, following the MCP
authorization spec (2025-11-25 and 2026-07-28).

On a 401 it discovers the authorization server (discovery.py), registers if it must (a
pre-registered client, a Client ID Metadata Document URL, or dynamic registration, RFC 7591),
gets a token (authorization code + PKCE through an Authorizer, the device flow, or client
credentials with a secret or a private_key_jwt assertion) with the `resource` parameter
(RFC 8707) on every request, and keeps it in a TokenStore. A 403 `insufficient_scope` asks for
the wider scope, a bounded number of times. A token close to its expiry is refreshed first,
one process at a time (store.refresh_lock).

PKCE and state come from authlib, the client assertion is signed by joserfc; the HTTP exchanges
are plain httpx, with no redirects followed and every answer read under a size cap
(endpoints.py). Every credential passes the binding rule first (core/binding.py).

Secrets (tokens, client secrets, codes) are never logged and never put in an exception message.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlencode, urlsplit

from ...core.binding import Binding, may_send
from ...core.errors import AuthError
from ...core.jsonrpc import is_array
from ...core.redaction import scrub
from ...transports.content_coding import ACCEPT_ENCODING
from .authorizers import Authorizer, LoopbackBrowser
from .challenge import Challenge, parse_challenge
from .discovery import (
    ResourceMetadata,
    ServerMetadata,
    canonical_resource,
    discover_resource,
    discover_server,
    legacy_server_metadata,
)
from .dpop import Nonces, new_key, proof, supported
from .endpoints import (
    FormRequest,
    Signer,
    authenticate,
    check_pkce,
    error_of,
    post_form,
    post_form_noting_nonce,
    register,
)
from .grants import JWT_BEARER, IdentityProvider, current, id_jag
from .store import TokenStore, default_store, refresh_lock
from .tokens import Client, Login, Tokens, bounded_seconds

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("mcpgen.runtime.auth")

Grant = Literal["authorization_code", "client_credentials", "device_code", "jwt_bearer", "enterprise"]
# The grants where the client (or its workload) is the principal: no user, no browser.
_MACHINE_GRANTS = ("client_credentials", "jwt_bearer", "enterprise")
_DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _held(login: Login) -> Tokens | None:
    """login's tokens as they are now: a refresh may have replaced or dropped them."""
    return login.tokens


class OAuth:
    """OAuth 2.1 for one or more MCP servers (each login is kept per server URL)."""

    def __init__(
        self,
        *,
        grant: Grant = "authorization_code",
        client_id: str | None = None,
        client_secret: str | None = None,
        token_endpoint_auth_method: str | None = None,
        private_key: str | None = None,
        signing_algorithm: str = "RS256",
        client_metadata_url: str | None = None,
        client_name: str = "mcpgen",
        scopes: list[str] | None = None,
        authorizer: Authorizer | None = None,
        store: TokenStore | None = None,
        interactive: bool = True,
        max_step_ups: int = 2,
        timeout: float = 30.0,
        issuer: str | None = None,
        dpop: bool | None = False,
        assertion: str | Callable[[], str] | None = None,
        identity_provider: IdentityProvider | None = None,
    ) -> None:
        """
        grant: "authorization_code" (a user logs in), "device_code" (a user logs in on another
            device), or "client_credentials" (the client is the principal: CI and build steps;
            needs client_id and client_secret or private_key), "jwt_bearer" (workload identity
            federation: `assertion` is the workload's JWT), or "enterprise" (enterprise-managed
            authorization: `identity_provider` exchanges the user's ID token for an ID-JAG).
        client_id/client_secret/token_endpoint_auth_method: a pre-registered client; without
            client_id, client_metadata_url is used where the server supports Client ID Metadata
            Documents, else dynamic client registration.
        private_key/signing_algorithm: PEM key for private_key_jwt client authentication.
        scopes: the scopes to ask for; None: those the server's challenge or metadata names.
        authorizer: the user-facing step of a login; None: the system browser and a loopback listener.
        store: where logins are kept; None: the OS keyring, else a 0600 file (see store.py).
        interactive: False: never start a login that needs a user (stored logins and refresh only).
        max_step_ups: how many times one connection asks for a wider scope on insufficient_scope.
        issuer: the authorization server this client belongs to (MCPGEN_OAUTH_ISSUER): every
            credential goes to it only, and a server naming another is refused (binding.py).
            None: whichever authorization server the MCP server's own origin names.
        dpop: bind tokens to a key of this client's (RFC 9449). Off by default: a DPoP-bound
            token is refused by a resource server that takes Bearer tokens only, and the
            authorization server offering DPoP says nothing of the resource. None: wherever the
            authorization server offers it (dpop_signing_alg_values_supported lists ES256).
        assertion: the workload JWT of grant="jwt_bearer" (or a function returning a current one).
        identity_provider: the enterprise identity provider of grant="enterprise".
        """
        self.grant = grant
        self.client_id = client_id
        self.client_secret = client_secret
        self.token_endpoint_auth_method = token_endpoint_auth_method
        self.private_key = private_key
        self.signing_algorithm = signing_algorithm
        self.client_metadata_url = client_metadata_url
        self.client_name = client_name
        self.scopes = scopes
        self.authorizer = authorizer
        self.interactive = interactive
        self.max_step_ups = max_step_ups
        self.issuer = issuer
        self.dpop = dpop
        self.assertion = assertion
        self.identity_provider = identity_provider
        self._nonces = Nonces()
        self._store = store
        self._timeout = timeout
        self._logins: dict[str, Login] = {}
        self._absent: set[str] = set()  # resources the store had no login for (asked once)
        self._servers: dict[str, ServerMetadata] = {}
        self._step_ups = 0
        self._lock = asyncio.Lock()

    @property
    def store(self) -> TokenStore:
        if self._store is None:
            self._store = default_store()
        return self._store

    # -- what the transport asks (transports.auth_hook.AuthHook) -------------------------

    async def authorization(self, resource_url: str) -> str | None:
        tokens = await self._access(resource_url)
        return None if tokens is None else f"{tokens.scheme} {tokens.access_token}"

    async def request_headers(self, resource_url: str, method: str) -> dict[str, str]:
        """The Authorization header and, for a DPoP-bound token, the request's fresh DPoP proof."""
        tokens = await self._access(resource_url)
        if tokens is None:
            return {}
        headers = {"authorization": f"{tokens.scheme} {tokens.access_token}"}
        if tokens.dpop_key is not None:
            nonce = self._nonces.get(resource_url)
            headers["dpop"] = proof(tokens.dpop_key, method, resource_url, token=tokens.access_token, nonce=nonce)
        return headers

    def note_nonce(self, resource_url: str, nonce: str | None) -> None:
        """The resource server's DPoP-Nonce (RFC 9449 §9), for the next proof to it."""
        self._nonces.note(resource_url, nonce)

    async def _access(self, resource_url: str) -> Tokens | None:
        resource = canonical_resource(resource_url)
        async with self._lock:
            login = self._current(resource)
            if login is None or login.tokens is None:
                return None
            if login.tokens.expiring():
                await self._refresh(login)
            tokens = _held(login)
            if tokens is None:
                return None
            may_send("the access token", resource, Binding(resource, bound_to=login.resource))
            return tokens

    async def challenged(self, resource_url: str, status: int, www_authenticate: str) -> bool:
        challenge = parse_challenge(status, www_authenticate)
        if status == 401 and challenge.error == "use_dpop_nonce":
            # The token is fine; the proof lacked the server's nonce, which note_nonce now holds.
            return self._nonces.get(resource_url) is not None
        async with self._lock:
            if status == 403:
                if not challenge.insufficient_scope:
                    return False
                self._step_ups += 1
                if self._step_ups > self.max_step_ups:
                    log.warning("the server still wants a wider scope after %d step-ups: giving up", self.max_step_ups)
                    return False
            kept = self._current(canonical_resource(resource_url))
            refused = kept.tokens.access_token if kept is not None and kept.tokens is not None else None
            login = await self.login(resource_url, challenge)
            # The same token again would only be refused again: no retry with it.
            return login.tokens is not None and login.tokens.access_token != refused

    # -- logging in ------------------------------------------------------------------

    async def login(self, resource_url: str, challenge: Challenge | None = None) -> Login:
        """Discover, register and get a token for resource_url; the login is stored and returned."""
        challenge = challenge or Challenge(status=401)
        resource = canonical_resource(resource_url)
        async with self._http() as http:
            protected = await discover_resource(http, resource_url, challenge.resource_metadata)
            metadata, named_by = await self._server_metadata(http, resource_url, protected)
            previous = self._current(resource)
            if previous is not None and previous.issuer != metadata.issuer:
                previous = None  # the server moved to another authorization server: nothing carries over
            # A stored registration belongs to the issuer it was made with; a configured client to
            # the configured issuer, else to whichever the server's own origin named (binding.py).
            stored = previous.issuer if previous is not None and previous.client is not None else None
            binding = Binding(resource, bound_to=self.issuer or stored, named_by=named_by)
            target = protected.resource if protected and protected.resource else resource
            scope = self._scope(challenge, protected, metadata, previous)
            login = Login(resource=resource, issuer=metadata.issuer, client=previous.client if previous else None)
            if previous is not None and challenge.status == 401 and previous.tokens and previous.tokens.refresh_token:
                # The token was refused before its time (revoked, or the server's clock): a refresh
                # needs no user. Its scope stays what was granted.
                refused = previous.tokens.access_token
                previous.tokens.expires_at = 0.0
                await self._refresh(previous, refused=refused)
                renewed = _held(previous)
                if renewed is not None and renewed.access_token != refused:
                    return previous
            tokens = await self._obtain(http, metadata, login, target, scope, binding)
            login.tokens = tokens
            login.scope = scope
            self._save(login)
            return login

    def _scope(
        self,
        challenge: Challenge,
        protected: ResourceMetadata | None,
        metadata: ServerMetadata,
        previous: Login | None,
    ) -> str | None:
        """The spec's order: configured scopes, the challenge's scope, scopes_supported, none.
        A step-up keeps what was granted and adds what the challenge asks for."""
        if self.scopes is not None:
            wanted = list(self.scopes)
        elif challenge.scope:
            wanted = challenge.scope.split()
        elif protected is not None and protected.scopes_supported:
            wanted = list(protected.scopes_supported)
        else:
            wanted = []
        if challenge.insufficient_scope and previous is not None and previous.scope:
            wanted = [*previous.scope.split(), *wanted]
        # A refresh token outlives the session only if asked for, where the server offers it.
        if (
            wanted
            and self.grant not in _MACHINE_GRANTS
            and metadata.scopes_supported
            and "offline_access" in metadata.scopes_supported
        ):
            wanted.append("offline_access")
        unique = list(dict.fromkeys(s for s in wanted if s))
        return " ".join(unique) if unique else None

    async def _server_metadata(
        self, http: httpx.AsyncClient, resource_url: str, protected: ResourceMetadata | None
    ) -> tuple[ServerMetadata, str | None]:
        """The authorization server to log in with, and the URL of the document that named it."""
        resource = canonical_resource(resource_url)
        if protected is not None:
            servers = protected.authorization_servers
            if not servers:
                raise AuthError("the protected resource metadata names no authorization server")
            issuer = self.issuer if self.issuer in servers else servers[0]
            if self.issuer is not None:
                may_send("the client's credentials", issuer, Binding(resource, bound_to=self.issuer))
            found = await discover_server(http, issuer)
            if found is None:
                raise AuthError(f"no authorization server metadata found for {issuer[:200]!r}")
            return found, protected.url
        if self.issuer is not None:  # no metadata: the configured authorization server is the one
            return await self._metadata_for(http, self.issuer), None
        # 2025-03-26 servers: no resource metadata; the MCP server's origin is the authorization server.
        legacy = legacy_server_metadata(resource_url)
        found = await discover_server(http, legacy.issuer)
        return found or legacy, resource_url

    async def _obtain(
        self,
        http: httpx.AsyncClient,
        metadata: ServerMetadata,
        login: Login,
        resource: str,
        scope: str | None,
        binding: Binding,
    ) -> Tokens:
        if self.grant in _MACHINE_GRANTS:
            login.client = self._configured_client(metadata)
            body = {"grant_type": "client_credentials", "resource": resource}
            if self.grant != "client_credentials":
                body = {"grant_type": JWT_BEARER, "assertion": await self._assertion(http, metadata, resource, scope)}
                body["resource"] = resource
            if scope:
                body["scope"] = scope
            return await self._token_request(http, metadata, login.client, body, binding)
        if not self.interactive:
            raise AuthError(f"not logged in to {login.resource[:200]} (run: mcpgen login {login.resource[:200]})")
        if self.grant == "device_code":
            return await self._device_flow(http, metadata, login, resource, scope, binding)
        return await self._code_flow(http, metadata, login, resource, scope, binding)

    async def _code_flow(
        self,
        http: httpx.AsyncClient,
        metadata: ServerMetadata,
        login: Login,
        resource: str,
        scope: str | None,
        binding: Binding,
    ) -> Tokens:
        # Looked up by name: authlib ships no type information, and a vendored copy of this
        # runtime is type-checked with the user's mypy settings, which know nothing of authlib.
        security = importlib.import_module("authlib.common.security")
        rfc7636 = importlib.import_module("authlib.oauth2.rfc7636")

        if metadata.authorization_endpoint is None:
            raise AuthError(f"the authorization server {metadata.issuer[:200]!r} names no authorization_endpoint")
        check_pkce(metadata)
        authorizer = self.authorizer or LoopbackBrowser()
        redirect_uri = await authorizer.redirect_uri()
        client = await self._client_for(http, metadata, login, redirect_uri, binding)
        login.client = client
        # The authorization URL carries the client id to the authorization server (through the
        # browser): the same rule as every request that carries a credential.
        may_send("the client id", metadata.issuer, binding)
        verifier: str = security.generate_token(64)
        state: str = security.generate_token(32)
        query = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "code_challenge": str(rfc7636.create_s256_code_challenge(verifier)),
            "code_challenge_method": "S256",
            "state": state,
            "resource": resource,
        }
        if scope:
            query["scope"] = scope
        separator = "&" if urlsplit(metadata.authorization_endpoint).query else "?"
        callback = await authorizer.authorize(f"{metadata.authorization_endpoint}{separator}{urlencode(query)}")
        code = self._code_from(callback, state, metadata)
        body = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            "resource": resource,
        }
        return await self._token_request(http, metadata, client, body, binding)

    def _code_from(self, callback: str, state: str, metadata: ServerMetadata) -> str:
        params = {k: v[0] for k, v in parse_qs(urlsplit(callback).query).items() if v}
        if params.get("state") != state:
            raise AuthError("the login's redirect does not carry this login's state: refusing it")
        # RFC 9207: an iss in the answer must be exactly the issuer we asked; a server that says it
        # sends one must send it. Either check failing means a mix-up: the code is not redeemed.
        iss = params.get("iss")
        if iss is not None and iss != metadata.issuer:
            raise AuthError(f"the login's redirect names the issuer {iss[:200]!r}, not {metadata.issuer[:200]!r}")
        if iss is None and metadata.iss_parameter_supported:
            raise AuthError("the authorization server promised an iss parameter and the redirect has none")
        if "error" in params:
            described = params.get("error_description", "")[:200]
            raise AuthError(f"the authorization server refused the login: {params['error'][:100]} {described}".strip())
        code = params.get("code")
        if not code:
            raise AuthError("the login's redirect carries no code")
        return code

    async def _device_flow(
        self,
        http: httpx.AsyncClient,
        metadata: ServerMetadata,
        login: Login,
        resource: str,
        scope: str | None,
        binding: Binding,
    ) -> Tokens:
        import sys

        endpoint = metadata.device_authorization_endpoint
        if endpoint is None:
            raise AuthError(f"the authorization server {metadata.issuer[:200]!r} offers no device authorization")
        client = await self._client_for(http, metadata, login, None, binding)
        login.client = client
        body = {"client_id": client.client_id, "resource": resource, **({"scope": scope} if scope else {})}
        status, answer = await post_form(http, endpoint, self._authenticate(client, metadata, body, binding))
        device_code, user_code = answer.get("device_code"), answer.get("user_code")
        if status != 200 or not isinstance(device_code, str) or not isinstance(user_code, str):
            raise AuthError(f"the device authorization request failed: {error_of(status, answer)}")
        uri = answer.get("verification_uri_complete") or answer.get("verification_uri")
        print(f"To log in, visit {str(uri)[:500]} and enter the code {user_code[:64]}", file=sys.stderr, flush=True)
        # Both numbers are the server's: bounded, so that NaN or 1e400 neither spins nor waits forever.
        interval = max(1.0, bounded_seconds(answer.get("interval"), 5.0, ceiling=60.0))
        deadline = time.monotonic() + bounded_seconds(answer.get("expires_in"), 600.0, ceiling=1800.0)
        while time.monotonic() < deadline:
            await asyncio.sleep(interval)
            grant = {"grant_type": _DEVICE_GRANT, "device_code": device_code, "resource": resource}
            status, answer = await post_form(
                http, metadata.token_endpoint, self._authenticate(client, metadata, grant, binding)
            )
            if status == 200:
                return Tokens.from_response(answer)
            error = answer.get("error")
            if error == "slow_down":
                interval += 5
            elif error != "authorization_pending":
                raise AuthError(f"the device login failed: {error_of(status, answer)}")
        raise AuthError("the device login expired before it was approved")

    async def _assertion(
        self, http: httpx.AsyncClient, metadata: ServerMetadata, resource: str, scope: str | None
    ) -> str:
        """The JWT-bearer grant's assertion: the workload JWT, or an ID-JAG for this server."""
        if self.grant == "jwt_bearer":
            if self.assertion is None:
                raise AuthError('grant="jwt_bearer" needs an assertion (the workload JWT)')
            return current(self.assertion)
        if self.identity_provider is None:
            raise AuthError('grant="enterprise" needs an identity_provider')
        return await id_jag(http, self.identity_provider, audience=metadata.issuer, resource=resource, scope=scope)

    # -- the client ----------------------------------------------------------------------

    def _configured_client(self, metadata: ServerMetadata) -> Client:
        if self.client_id is None:
            raise AuthError("client credentials need a client_id (and a client_secret or private_key)")
        if self.private_key is not None:
            return Client(self.client_id, None, "private_key_jwt")
        method = self.token_endpoint_auth_method
        if method is None:
            supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
            if self.client_secret is None:
                method = "none"
            elif "client_secret_basic" in supported or "client_secret_post" not in supported:
                method = "client_secret_basic"
            else:
                method = "client_secret_post"
        return Client(self.client_id, self.client_secret, method)

    async def _client_for(
        self,
        http: httpx.AsyncClient,
        metadata: ServerMetadata,
        login: Login,
        redirect_uri: str | None,
        binding: Binding,
    ) -> Client:
        if self.client_id is not None:
            return self._configured_client(metadata)
        if login.client is not None:
            return login.client
        if self.client_metadata_url and metadata.client_id_metadata_document_supported:
            return Client(self.client_metadata_url, None, "none")
        if metadata.registration_endpoint is None:
            raise AuthError(
                f"the authorization server {metadata.issuer[:200]!r} offers no registration:"
                " pass a pre-registered client_id"
            )
        return await register(http, metadata, redirect_uri, binding, client_name=self.client_name, scopes=self.scopes)

    def _authenticate(
        self, client: Client, metadata: ServerMetadata, body: dict[str, str], binding: Binding
    ) -> FormRequest:
        return authenticate(client, metadata, body, binding, Signer(self.private_key, self.signing_algorithm))

    # -- the token endpoint -------------------------------------------------------------

    async def _token_request(
        self,
        http: httpx.AsyncClient,
        metadata: ServerMetadata,
        client: Client,
        body: dict[str, str],
        binding: Binding,
        previous: Tokens | None = None,
    ) -> Tokens:
        key = self._dpop_key(metadata, previous)
        endpoint = metadata.token_endpoint
        for attempt in (0, 1):
            request = self._authenticate(client, metadata, body, binding)
            if key is not None:
                request.headers["dpop"] = proof(key, "POST", endpoint, nonce=self._nonces.get(endpoint))
            status, answer, nonce = await post_form_noting_nonce(http, endpoint, request)
            # RFC 9449 §8: the server wants its nonce in the proof: one retry, with a new nonce only.
            asks_nonce = key is not None and status == 400 and answer.get("error") == "use_dpop_nonce"
            if attempt == 1 or not (asks_nonce and self._nonces.note(endpoint, nonce)):
                break
        if status != 200:
            # A hostile server may echo what it was sent, in any encoding: no secret of the request
            # in the message (the one scrubber, core/redaction.py).
            fields = ("refresh_token", "code", "code_verifier", "client_assertion", "assertion")
            secrets = [request.form.get(k) for k in fields]
            message = scrub(error_of(status, answer), [*secrets, client.client_secret])
            raise AuthError(f"the token request ({body['grant_type']}) failed: {message}")
        try:
            tokens = Tokens.from_response(answer, previous)
        except (ValueError, TypeError) as exc:
            raise AuthError(str(exc)) from None
        # Bound only when the server says so: a Bearer answer is presented as Bearer (RFC 9449 §5).
        tokens.dpop_key = key if key is not None and tokens.token_type.lower() == "dpop" else None
        return tokens

    def _dpop_key(self, metadata: ServerMetadata, previous: Tokens | None) -> dict[str, Any] | None:
        """The key the token request proves: a refresh keeps the login's key (its refresh token
        is bound to it), a new login makes one where DPoP is on."""
        if previous is not None and previous.dpop_key is not None:
            return previous.dpop_key
        algorithms = metadata.raw.get("dpop_signing_alg_values_supported")
        offered = supported(algorithms if is_array(algorithms) else None)
        return new_key() if self.dpop or (self.dpop is None and offered) else None

    async def _refresh(self, login: Login, refused: str | None = None) -> None:
        """Refresh login's tokens, one process at a time: whoever waited on the lock takes the
        tokens the holder stored instead of redeeming the (now spent) refresh token again.

        refused: the access token the server just refused (revoked before its expiry): the
        stored copy is taken only when it holds another token, never that one again."""
        with_lock = refresh_lock(login.resource)
        await asyncio.to_thread(with_lock.__enter__)
        try:
            stored = self.store.load(login.resource)
            if (
                stored is not None
                and stored.tokens is not None
                and stored.issuer == login.issuer
                and not stored.tokens.expiring()
                and stored.tokens.access_token not in (refused, None)
            ):
                self._logins[login.resource] = stored
                login.tokens, login.client, login.scope = stored.tokens, stored.client, stored.scope
                return
            tokens = login.tokens
            if tokens is None or not tokens.refresh_token or login.client is None:
                login.tokens = None if tokens is None or tokens.expiring(margin=0) else tokens
                return
            try:
                async with self._http() as http:
                    metadata = await self._metadata_for(http, login.issuer)
                    body = {
                        "grant_type": "refresh_token",
                        "refresh_token": tokens.refresh_token,
                        "resource": login.resource,
                    }
                    # No scope: a refresh keeps what was granted (RFC 6749 §6). The refresh token
                    # and the client's registration go to the issuer they came from, only.
                    binding = Binding(login.resource, bound_to=self.issuer or login.issuer)
                    login.tokens = await self._token_request(http, metadata, login.client, body, binding, tokens)
                    log.info("refreshed the access token for %s", login.resource)
            except AuthError as exc:
                log.warning("refreshing the token for %s failed: %s", login.resource, exc)
                login.tokens = None  # the next request goes without, and its 401 starts a login
            self._save(login)
        finally:
            with_lock.__exit__(None, None, None)

    async def _metadata_for(self, http: httpx.AsyncClient, issuer: str) -> ServerMetadata:
        found = self._servers.get(issuer) or await discover_server(http, issuer)
        if found is None:
            raise AuthError(f"no authorization server metadata found for {issuer[:200]!r}")
        self._servers[issuer] = found
        return found

    # -- kept logins -----------------------------------------------------------------------

    def _current(self, resource: str) -> Login | None:
        """The login kept for resource; one stored for another resource, or (with a configured
        issuer) from another authorization server, is not this one's (binding.py)."""
        login = self._logins.get(resource)
        if login is None and resource not in self._absent:
            login = self.store.load(resource)
            if login is not None and (login.resource != resource or self.issuer not in (None, login.issuer)):
                login = None
            if login is not None:
                self._logins[resource] = login
            else:
                self._absent.add(resource)
        return login

    def _save(self, login: Login) -> None:
        self._logins[login.resource] = login
        self.store.save(replace(login))

    async def logout(self, resource_url: str) -> Logout:
        """Revoke the login's tokens where the authorization server offers revocation (RFC 7009:
        the refresh token first, which ends its whole grant, then the access token; the client
        authenticated as at login), then forget the login here, whether revocation worked or not."""
        resource = canonical_resource(resource_url)
        login = self._current(resource)
        outcome = Logout(forgotten=False)
        if login is not None and login.tokens is not None and login.client is not None:
            try:
                outcome.revoked = await self._revoke(login, login.client, login.tokens)
            except AuthError as exc:
                outcome.problem = str(exc)
        outcome.forgotten = self.forget(resource_url)
        return outcome

    async def _revoke(self, login: Login, client: Client, tokens: Tokens) -> bool:
        """True when the server revoked the tokens, False when it offers no revocation endpoint."""
        async with self._http() as http:
            metadata = await self._metadata_for(http, login.issuer)
            endpoint = metadata.revocation_endpoint
            if endpoint is None:
                return False
            pairs = [(tokens.refresh_token, "refresh_token"), (tokens.access_token, "access_token")]
            binding = Binding(login.resource, bound_to=self.issuer or login.issuer)
            for token, hint in pairs:
                if not token:
                    continue
                body = {"token": token, "token_type_hint": hint}
                status, answer = await post_form(http, endpoint, self._authenticate(client, metadata, body, binding))
                if hint == "access_token" and answer.get("error") == "unsupported_token_type":
                    continue  # a self-contained (JWT) access token cannot be revoked: it just expires
                if status != 200:  # 200 also for a token that was already invalid (RFC 7009 §2.2)
                    message = scrub(error_of(status, answer), [token, client.client_secret])
                    raise AuthError(f"revoking the {hint.replace('_', ' ')} failed: {message}")
            return True

    def forget(self, resource_url: str) -> bool:
        """Log out of resource_url: its stored login (tokens and registration) is deleted."""
        resource = canonical_resource(resource_url)
        self._logins.pop(resource, None)
        self._absent.add(resource)
        return self.store.delete(resource)

    def _http(self) -> httpx.AsyncClient:
        import httpx

        return httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout, connect=10.0),
            follow_redirects=False,
            headers={"accept-encoding": ACCEPT_ENCODING},  # the codings guard.read_body decodes
        )


@dataclass
class Logout:
    """What `OAuth.logout` did: forgotten (a login was kept here), revoked (at the authorization
    server; False: it offers no revocation), problem (why revocation failed, no secret in it)."""

    forgotten: bool
    revoked: bool = False
    problem: str | None = None
