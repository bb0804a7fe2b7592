"""Real HTTP peers on 127.0.0.1 for the credential-binding tests (docs/threat-model.md, rule 3):
authorization servers that answer every OAuth endpoint and record every request they get, and an
MCP server that answers 401 with a challenge and serves protected resource metadata naming
whichever authorization server a test says.

    with authorization_server("honest") as honest, authorization_server("hostile") as hostile:
        with mcp_server(names=hostile.url) as mcp: ...
        assert not hostile.saw(secret)   # in no form: raw, percent-encoded, base64, JSON-escaped

They are plain http.server threads: the client under test is mcpgen's own, unmocked.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mcpgen.runtime.core.redaction import secret_forms


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class Peer:
    url: str
    seen: list[Seen] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def saw(self, secret: str) -> bool:
        """Whether any request carried `secret`, in any form the scrubber knows."""
        forms = secret_forms(secret)
        for request in self.seen:
            text = request.path + "\n" + json.dumps(request.headers) + "\n" + request.body
            if any(form in text for form in forms):
                return True
        return False

    def posts(self) -> list[Seen]:
        return [r for r in self.seen if r.method == "POST"]


class _Handler(BaseHTTPRequestHandler):
    peer: Peer
    answer: Any  # (handler, method) -> (status, headers, body)

    def _handle(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        self.peer.seen.append(Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        status, headers, payload = type(self).answer(self.peer, method, self.path, body)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"content-type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def _serve(answer: Any, settings: dict[str, Any]) -> Iterator[Peer]:
    handler = type("Handler", (_Handler,), {"answer": staticmethod(answer)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    peer = Peer(f"http://127.0.0.1:{server.server_address[1]}", settings=settings)
    handler.peer = peer
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield peer
    finally:
        server.shutdown()
        server.server_close()


def _as_answer(peer: Peer, method: str, path: str, body: str) -> tuple[int, dict[str, str], Any]:
    base = peer.url
    route = urlsplit(path).path
    if method == "GET" and route == "/.well-known/oauth-authorization-server":
        metadata = {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register",
            "revocation_endpoint": f"{base}/revoke",
            "device_authorization_endpoint": f"{base}/device",
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": peer.settings.get("pkce", ["S256"]),
            "scopes_supported": ["mcp"],
        }
        metadata = {k: v for k, v in metadata.items() if v is not None}
        return 200, {}, metadata
    if method == "GET" and route == "/authorize":
        query = {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}
        back = {"code": "code-" + peer.settings["name"], "state": query.get("state", ""), "iss": base}
        return 302, {"location": f"{query.get('redirect_uri')}?{urlencode(back)}"}, b""
    if method == "POST" and route == "/token":
        form = {k: v[0] for k, v in parse_qs(body).items()}
        if peer.settings.get("echo"):  # a hostile server hands back what it was sent, as it came
            echoed = f"{body} {peer.seen[-1].headers.get('authorization', '')}"
            return 400, {}, {"error": "invalid_client", "error_description": echoed}
        if form.get("grant_type") == "refresh_token" and peer.settings.get("refuse_refresh"):
            return 400, {}, {"error": "invalid_grant", "error_description": f"refused {form.get('refresh_token')}"}
        count = len(peer.posts())
        name = peer.settings["name"]
        tokens = {"access_token": f"{name}-at-{count}", "refresh_token": f"{name}-rt-{count}", "token_type": "Bearer"}
        return 200, {}, {**tokens, "expires_in": peer.settings.get("expires_in", 3600)}
    if method == "POST" and route == "/register":
        return 201, {}, {"client_id": f"{peer.settings['name']}-dcr", "token_endpoint_auth_method": "none"}
    if method == "POST" and route == "/introspect" and "introspect" in peer.settings:
        return peer.settings["introspect"](peer, method, path, body)  # type: ignore[no-any-return]
    if method == "POST" and route == "/revoke":
        return 200, {}, {}
    if method == "POST" and route == "/device":
        return 200, {}, {"device_code": "dc", "user_code": "UC", "verification_uri": f"{base}/d", "interval": 1}
    return 404, {}, {"error": "not_found"}


@contextmanager
def authorization_server(name: str, **settings: Any) -> Iterator[Peer]:
    """An authorization server at its own origin: RFC 8414 metadata, authorize (redirects straight
    back with a code), token, register, revoke and device endpoints, all recorded."""
    with _serve(_as_answer, {"name": name, **settings}) as peer:
        yield peer


def _mcp_answer(peer: Peer, method: str, path: str, body: str) -> tuple[int, dict[str, str], Any]:
    route = urlsplit(path).path
    if method == "GET" and route.startswith("/.well-known/oauth-protected-resource"):
        names = peer.settings.get("names")
        if names is None:
            return 404, {}, {}
        resource = peer.settings.get("resource", f"{peer.url}/mcp")
        return 200, {}, {"resource": resource, "authorization_servers": [names]}
    if route == "/mcp":
        challenge = 'Bearer error="invalid_token"'
        if peer.settings.get("challenge_metadata"):
            challenge += f', resource_metadata="{peer.settings["challenge_metadata"]}"'
        return 401, {"www-authenticate": challenge}, {"error": "invalid_token"}
    return 404, {}, {}


@contextmanager
def mcp_server(*, names: str | None, challenge_metadata: str | None = None, **settings: Any) -> Iterator[Peer]:
    """An MCP server at /mcp that answers 401 to everything, with protected resource metadata on
    its own origin naming the authorization server `names` (None: no metadata), and a challenge
    whose resource_metadata is `challenge_metadata` (which may be another origin's)."""
    with _serve(_mcp_answer, {"names": names, "challenge_metadata": challenge_metadata, **settings}) as peer:
        yield peer


@contextmanager
def foreign_metadata(names: str, resource: str) -> Iterator[Peer]:
    """Protected resource metadata served from another origin, naming `names` for `resource`."""

    def answer(peer: Peer, method: str, path: str, body: str) -> tuple[int, dict[str, str], Any]:
        return 200, {}, {"resource": resource, "authorization_servers": [names]}

    with _serve(answer, {}) as peer:
        yield peer
