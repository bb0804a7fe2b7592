"""The key cache against a real JWKS endpoint on loopback: tokens naming made-up keys cost the
authorization server one request per interval, a rotated-in key is picked up, and a hostile JWKS
(too big, symmetric or private keys) gives no usable key."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from joserfc.jwk import RSAKey

from mcpgen.runtime.core.errors import AuthServerUnavailable
from mcpgen.runtime.server.auth.jwks import JwksCache
from mcpgen.runtime.server.auth.remote import MAX_DOCUMENT_BYTES


class Jwks:
    """A JWKS endpoint whose document the test changes, counting the requests it gets."""

    def __init__(self) -> None:
        self.document: Any = {"keys": []}
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                owner.hits += 1
                body = owner.document if isinstance(owner.document, bytes) else json.dumps(owner.document).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks"


@pytest.fixture
def jwks() -> Iterator[Jwks]:
    endpoint = Jwks()
    thread = threading.Thread(target=endpoint.server.serve_forever, daemon=True)
    thread.start()
    yield endpoint
    endpoint.server.shutdown()
    endpoint.server.server_close()


def public(kid: str) -> dict[str, Any]:
    return {**RSAKey.generate_key(2048).as_dict(private=False), "kid": kid, "use": "sig"}


def test_unknown_kids_refetch_at_most_once_per_interval(jwks: Jwks) -> None:
    jwks.document = {"keys": [public("k1")]}

    async def main() -> None:
        async with httpx.AsyncClient() as client:
            cache = JwksCache(client, "http://127.0.0.1:1", jwks.url, min_interval=0.5)
            assert await cache.key("k1") is not None
            assert jwks.hits == 1
            # A flood of made-up kids right after: served from the cache, no request at all.
            for n in range(20):
                assert await cache.key(f"made-up-{n}") is None
            assert jwks.hits == 1
            # The authorization server rotates a key in; after the interval one refetch finds it.
            jwks.document = {"keys": [public("k1"), public("k2")]}
            await asyncio.sleep(0.6)
            results = await asyncio.gather(*(cache.key("k2") for _ in range(10)))
            assert all(key is not None for key in results)
            assert jwks.hits == 2

    asyncio.run(main())


@pytest.mark.parametrize(
    "document",
    [
        {"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "k1"}]},  # a shared secret: algorithm confusion
        {"keys": [{**RSAKey.generate_key(2048).as_dict(private=True), "kid": "k1"}]},  # a private key
        {"keys": [{**public("k1"), "use": "enc"}]},  # not for signatures
        {"keys": "nonsense"},
    ],
)
def test_keys_a_resource_server_must_not_verify_with_are_skipped(jwks: Jwks, document: Any) -> None:
    jwks.document = document

    async def main() -> None:
        async with httpx.AsyncClient() as client:
            assert await JwksCache(client, "http://127.0.0.1:1", jwks.url).key("k1") is None

    asyncio.run(main())


def test_an_oversized_jwks_is_refused(jwks: Jwks) -> None:
    jwks.document = b'{"keys": [' + b" " * MAX_DOCUMENT_BYTES + b"]}"

    async def main() -> None:
        async with httpx.AsyncClient() as client:
            with pytest.raises(AuthServerUnavailable, match="more than"):
                await JwksCache(client, "http://127.0.0.1:1", jwks.url).key("k1")

    asyncio.run(main())
