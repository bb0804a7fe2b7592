"""The resource-server layer in front of the MCP endpoint (ASGI): protected resource metadata
(RFC 9728), bearer token checks with the MCP spec's 401/403 answers, and the scopes each tool
needs, all before anything reaches the MCP server."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from ...core.errors import AuthServerUnavailable, InvalidToken
from ...core.jsonrpc import is_array, is_object
from ...transports.content_coding import ACCEPT_ENCODING
from ..http.request_body import content_encoding_of, parse_request, refuse_unparsed
from ..server import Server
from .info import current_auth, is_scope_token
from .settings import AuthSettings
from .verify import TokenVerifier, make_verifier

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("mcpgen.runtime.auth")
WELL_KNOWN = "/.well-known/oauth-protected-resource"


class ProtectedResource:
    """Wraps the MCP app: every request to `path` needs a valid bearer token (and the scopes the
    server, and for tools/call the tool, require); the metadata is public."""

    def __init__(
        self,
        app: App,
        server: Server,
        settings: AuthSettings,
        *,
        path: str,
        max_body_bytes: int,
        verifier: TokenVerifier | None = None,
    ) -> None:
        self.app = app
        self.server = server
        self.settings = settings
        self.path = path.rstrip("/") or "/"
        self.max_body_bytes = max_body_bytes
        # Offers only the codings guard.read_body decodes (JWKS and introspection answers).
        self._client = httpx.AsyncClient(headers={"accept-encoding": ACCEPT_ENCODING})
        self.verifier = verifier or make_verifier(settings, self._client)
        resource_path = urlsplit(settings.resource).path.rstrip("/")
        # Clients look at the path form first (RFC 9728 section 3.1); the root form serves a server
        # that is the only resource on its host.
        self.metadata_paths = {WELL_KNOWN + resource_path, WELL_KNOWN}
        scopes = sorted(set(settings.scopes).union(*server.tool_scopes.values()))
        metadata: dict[str, Any] = {
            "resource": settings.resource,
            "authorization_servers": [settings.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": server.info.get("name"),
        }
        if scopes:
            metadata["scopes_supported"] = scopes
        self.metadata = json.dumps(metadata).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = scope["path"].rstrip("/") or "/"
        if route in self.metadata_paths:
            await self._metadata(scope, send)
            return
        if route != self.path or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        if token is None:
            # No credentials: the challenge without an error code (RFC 6750 section 3.1).
            await self._challenge(send, 401, scope=self.settings.scopes)
            return
        try:
            auth = await self.verifier.verify(token)
        except InvalidToken as exc:
            await self._challenge(send, 401, error="invalid_token", description=str(exc))
            return
        except AuthServerUnavailable as exc:
            log.warning("cannot check an access token: %s", exc)
            await _reply(send, 503, b"The authorization server cannot be reached", {"retry-after": "10"})
            return
        needed = set(self.settings.scopes)
        if scope["method"] == "POST":
            # The one parse of this request (the app reads the same Parsed off the scope): what
            # cannot be parsed here is refused, never passed on to a parser that might read it.
            parsed = await parse_request(scope, receive, self.max_body_bytes, content_encoding_of(scope))
            if not parsed.ok:
                await refuse_unparsed(send, parsed)
                return
            for name in _tool_names(parsed.message):
                needed |= self.server.tool_scopes.get(name, frozenset())
        missing = needed - auth.scopes
        if missing:
            # Ask for what the token has plus what is missing, so one re-authorization suffices.
            await self._challenge(
                send,
                403,
                error="insufficient_scope",
                scope=sorted({s for s in auth.scopes if is_scope_token(s)} | needed),
                description=f"needs scope {' '.join(sorted(missing))}",
            )
            return
        reset = current_auth.set(auth)
        try:
            await self.app(scope, receive, send)
        finally:
            current_auth.reset(reset)

    async def _metadata(self, scope: Scope, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _reply(send, 405, b"Method not allowed", {"allow": "GET"})
            return
        await _reply(
            send,
            200,
            self.metadata,
            {"content-type": "application/json", "access-control-allow-origin": "*", "cache-control": "max-age=3600"},
        )

    async def _challenge(
        self,
        send: Send,
        status: int,
        *,
        error: str | None = None,
        description: str | None = None,
        scope: Any = (),
    ) -> None:
        params: list[str] = []
        if error:
            params.append(f'error="{error}"')
        if description:
            params.append(f'error_description="{_quoted(description)}"')
        if scope:
            params.append(f'scope="{" ".join(scope)}"')
        params.append(f'resource_metadata="{self.settings.metadata_url}"')
        body = json.dumps({"error": error or "unauthorized", "error_description": description or "Bearer token needed"})
        await _reply(
            send,
            status,
            body.encode(),
            {"content-type": "application/json", "www-authenticate": "Bearer " + ", ".join(params)},
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def protect(app: App, server: Server, settings: AuthSettings, *, path: str, max_body_bytes: int) -> App:
    """`app` behind the resource-server checks (what serve_http calls when auth is on)."""
    return ProtectedResource(app, server, settings, path=path, max_body_bytes=max_body_bytes)


def _bearer(scope: Scope) -> str | None:
    """The token of the one `Authorization: Bearer` header (RFC 6750 section 2.1); never the query."""
    values = [v for k, v in scope.get("headers", []) if k.lower() == b"authorization"]
    if len(values) != 1:
        return None
    header: bytes = values[0]
    kind, _, token = header.decode("latin-1").partition(" ")
    token = token.strip()
    if kind.lower() != "bearer" or not token or " " in token:
        return None
    return token


def _tool_names(message: object) -> list[str]:
    """The tools a message calls: a tools/call request's name; every one of a batch's (the app
    refuses batches, but a scope check must not depend on that). Anything that is not a string
    name is no tool: the app refuses such a call, and any other method needs only the server's
    scopes."""
    items = message if is_array(message) else [message]
    names: list[str] = []
    for item in items:
        if not is_object(item) or item.get("method") != "tools/call":
            continue
        params = item.get("params")
        name: object = params.get("name") if is_object(params) else None
        if isinstance(name, str):
            names.append(name)
    return names


def _quoted(text: str) -> str:
    """Safe inside a quoted-string of a header: printable ASCII, no quote or backslash."""
    return "".join(ch if " " <= ch <= "~" and ch not in '"\\' else "?" for ch in text)


async def _reply(send: Send, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    pairs = [
        (k.encode(), v.encode()) for k, v in {"content-type": "text/plain; charset=utf-8", **(headers or {})}.items()
    ]
    await send({"type": "http.response.start", "status": status, "headers": pairs})
    await send({"type": "http.response.body", "body": body})
