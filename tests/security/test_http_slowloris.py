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


# How long a connection the server must close may take to be closed: far past the timers the
# tests set (1 to 2 s), so that only a connection never closed fails.
CLOSE_DEADLINE = 30.0
# ... and the connections beyond the cap, which stay within the 30 s header timeout of the others.
REFUSE_DEADLINE = 20.0


def closed_within(socks: list[socket.socket], wanted: int, deadline: float) -> int:
    """How many of `socks` the server closed, polled until `wanted` are or `deadline` s passed."""
    closed: set[int] = set()
    end = time.monotonic() + deadline
    while True:
        closed |= {i for i, sock in enumerate(socks) if i not in closed and closed_by_server(sock, 0.01)}
        if len(closed) >= wanted or time.monotonic() > end:
            return len(closed)
        time.sleep(0.1)


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
            # Closed by the server at all: nothing but the header timer closes a half-sent head
            # (that the flag sets the timer is tested in process: test_http_limits, test_command).
            # A deadline far past the timer, not a measured time: a loaded machine only delays it.
            deadline = time.monotonic() + CLOSE_DEADLINE
            assert all(closed_by_server(sock, max(0.1, deadline - time.monotonic())) for sock in socks)
        finally:
            for sock in socks:
                sock.close()
        assert initialize(port).status_code == 200


@pytest.mark.parametrize("parser", PARSERS)
def test_connections_beyond_the_cap_are_closed_and_logged_once(tmp_path: Path, parser: str) -> None:
    with weather_http(tmp_path, "--header-timeout", "30", "--max-connections", "20", parser=parser) as (port, log):
        socks = half_open(port, 80)
        try:
            # The 60 beyond the cap are closed as the server gets to them (later on a loaded
            # machine): polled until they are, up to a deadline well inside the 30 s header timeout
            # that would close the 20 allowed too.
            refused = closed_within(socks, 60, REFUSE_DEADLINE)
            assert 55 <= refused <= 60  # 80 minus the 20 allowed (a little slack for the probe)
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
            # Closed (the head timer took over: nothing else closes a half-sent head), and not
            # before the head timer's 2 s (the keep-alive timer's 1 s would be earlier). Only the
            # lower bound is a time: a loaded machine makes the close later, never earlier.
            assert closed_by_server(sock, CLOSE_DEADLINE)
            assert time.monotonic() - started > 1.5
        finally:
            sock.close()
        assert initialize(port).status_code == 200
