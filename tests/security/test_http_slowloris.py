"""Slowloris against the generated server's HTTP mode: connections that never finish their
headers are closed after --header-timeout, connections beyond --max-connections are closed at
once, the refusals are logged a line per period (not one per connection), and an honest client
is served afterwards."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from serving import started

from ._asgi import INIT_PARAMS, rpc
from ._stdio import WEATHER

pytestmark = pytest.mark.slow

PARTIAL = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


# Both of uvicorn's HTTP implementations carry the guards: httptools (a dependency) and h11, which
# uvicorn uses where httptools cannot be imported (hidden here from the server process).
PARSERS = ["httptools", "h11"]
_HIDE_HTTPTOOLS = "import runpy, sys\nsys.modules['httptools'] = None\n"


@contextmanager
def weather_http(tmp_path: Path, *flags: str, parser: str = "httptools") -> Iterator[tuple[int, Path]]:
    # The shared helper's probe is a bare connect that sends nothing: one half-open connection
    # of our own, closed at once, which the limits below are sized to allow.
    argv = [sys.executable, "-m", "weather_server", "--http", "--port", "{port}", *flags]
    if parser == "h11":
        run = f"sys.argv = {argv[2:]!r}\nrunpy.run_module('weather_server', run_name='__main__', alter_sys=True)"
        argv = [sys.executable, "-c", _HIDE_HTTPTOOLS + run]
    with started(argv, cwd=WEATHER, log_dir=tmp_path) as server:
        yield server.port, tmp_path / f"server-{server.port}.log"


def half_open(port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            sock.sendall(PARTIAL)
        except OSError:
            pass  # already refused
        socks.append(sock)
    return socks


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    sock.settimeout(wait)
    try:
        return sock.recv(1024) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def initialize(port: int) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{port}/mcp",
        content=rpc(1, "initialize", INIT_PARAMS),
        headers={"accept": "application/json, text/event-stream", "content-type": "application/json"},
        timeout=10,
    )


@pytest.mark.parametrize("parser", PARSERS)
def test_partial_headers_are_closed_after_the_header_timeout(tmp_path: Path, parser: str) -> None:
    with weather_http(tmp_path, "--header-timeout", "1", parser=parser) as (port, _):
        socks = half_open(port, 30)
        try:
            started = time.monotonic()
            assert all(closed_by_server(sock, 4) for sock in socks)
            assert time.monotonic() - started < 4
        finally:
            for sock in socks:
                sock.close()
        assert initialize(port).status_code == 200


@pytest.mark.parametrize("parser", PARSERS)
def test_connections_beyond_the_cap_are_closed_and_logged_once(tmp_path: Path, parser: str) -> None:
    with weather_http(tmp_path, "--header-timeout", "30", "--max-connections", "20", parser=parser) as (port, log):
        socks = half_open(port, 80)
        try:
            time.sleep(0.5)
            refused = sum(closed_by_server(sock, 0.05) for sock in socks)
            assert refused >= 55  # 80 minus the 20 allowed (a little slack for the probe)
            refusals = [ln for ln in log.read_text().splitlines() if "refusing a connection" in ln]
            assert 1 <= len(refusals) <= 2, refusals
        finally:
            for sock in socks:
                sock.close()
        time.sleep(0.3)
        assert initialize(port).status_code == 200


def _one_exchange(sock: socket.socket, body: bytes) -> None:
    """A whole POST on a kept-alive connection, and its whole answer read back."""
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    sock.sendall(head + body)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection instead of answering"
        data += chunk
    answer_head, _, rest = data.partition(b"\r\n\r\n")
    assert answer_head.startswith(b"HTTP/1.1 200"), answer_head
    length = next(
        int(line.split(b":", 1)[1])
        for line in answer_head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk
        rest += chunk


@pytest.mark.parametrize("parser", PARSERS)
def test_a_partial_head_after_an_answer_is_closed_after_the_header_timeout(tmp_path: Path, parser: str) -> None:
    # The keep-alive timeout is the shorter one: after an answer, the head timer waits for the next
    # request's first bytes; those bytes stop the keep-alive timer, the head timer must take over.
    flags = ("--header-timeout", "2", "--keep-alive-timeout", "1")
    with weather_http(tmp_path, *flags, parser=parser) as (port, _):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            _one_exchange(sock, rpc(1, "initialize", INIT_PARAMS))
            sock.sendall(PARTIAL)
            started = time.monotonic()
            assert closed_by_server(sock, 6)
            assert 1.5 < time.monotonic() - started < 4
        finally:
            sock.close()
        assert initialize(port).status_code == 200
