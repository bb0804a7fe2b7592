"""The scale-out peers themselves: nginx really alternates between its upstreams, and
redis-server answers on the URL it is given (the scale-out tests rely on both)."""

from __future__ import annotations

import asyncio
import sys
import urllib.request
from pathlib import Path

import pytest
import redis.asyncio as redis

from tests.cluster import needs_nginx, needs_redis, redis_server, round_robin
from tests.serving import started

pytestmark = pytest.mark.slow

# A server that says which port it is on, to every request.
_WHOAMI = """\
import http.server, sys
port = int(sys.argv[1])
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = str(port).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


@needs_nginx
def test_nginx_alternates_between_upstreams(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", _WHOAMI, "{port}"]
    with started(argv, path="/") as one, started(argv, path="/") as two:
        with round_robin(tmp_path, [one.base, two.base], path="/") as proxy:
            seen = [urllib.request.urlopen(proxy.url, timeout=10).read().decode() for _ in range(6)]
    assert sorted(set(seen)) == sorted({str(one.port), str(two.port)})
    assert all(a != b for a, b in zip(seen, seen[1:], strict=False)), seen  # in turn, never twice in a row


@needs_redis
def test_redis_server_answers(tmp_path: Path) -> None:
    async def roundtrip(url: str) -> bytes | None:
        client = redis.Redis.from_url(url)
        try:
            await client.set("mcpgen-test", b"here")
            return await client.get("mcpgen-test")  # type: ignore[no-any-return]
        finally:
            await client.aclose()

    with redis_server(tmp_path) as url:
        assert asyncio.run(roundtrip(url)) == b"here"
