"""`bind_listeners`: one SO_REUSEPORT socket per worker on Linux (the kernel spreads connections
over them), one shared socket where SO_REUSEPORT is missing, an address in use refused either way."""

from __future__ import annotations

import select
import socket
from collections.abc import Iterator

import pytest

from mcpgen.runtime.server.http import workers
from mcpgen.runtime.server.http.workers import bind_listeners

needs_reuseport = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="no SO_REUSEPORT here")


@pytest.fixture
def listeners() -> Iterator[list[socket.socket]]:
    bound = bind_listeners("127.0.0.1", 0, 2)
    yield bound
    for listener in bound:
        listener.close()


@needs_reuseport
def test_each_worker_gets_its_own_socket_on_one_port(listeners: list[socket.socket]) -> None:
    assert len(listeners) == 2
    ports = {listener.getsockname()[1] for listener in listeners}
    assert len(ports) == 1 and ports != {0}
    assert all(listener.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) for listener in listeners)


@needs_reuseport
def test_connections_reach_every_socket(listeners: list[socket.socket]) -> None:
    # The kernel hashes each connection (by its source port) to one socket of the group: of 64,
    # all on one socket would happen once in 2**63 runs.
    port = listeners[0].getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(64)]
    try:
        accepted = [0, 0]
        for index, listener in enumerate(listeners):
            listener.setblocking(False)
            while select.select([listener], [], [], 0.5)[0]:
                conn, _ = listener.accept()
                conn.close()
                accepted[index] += 1
        assert sum(accepted) == 64
        assert min(accepted) > 0, accepted
    finally:
        for client in clients:
            client.close()


@pytest.mark.parametrize("count", [1, 2])
def test_an_address_in_use_is_refused(count: int) -> None:
    # Even a SO_REUSEPORT group of the same user: a reuse-port bind alone would join it silently.
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if hasattr(socket, "SO_REUSEPORT"):
            taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError, match="in use"):
            bind_listeners("127.0.0.1", taken.getsockname()[1], count)
    finally:
        taken.close()


def test_without_reuseport_every_worker_shares_one_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(workers.socket, "SO_REUSEPORT", raising=False)
    bound = bind_listeners("127.0.0.1", 0, 3)
    try:
        assert len(bound) == 1
        assert bound[0].getsockname()[1] != 0
    finally:
        bound[0].close()


def test_one_worker_gets_one_socket() -> None:
    bound = bind_listeners("127.0.0.1", 0, 1)
    try:
        assert len(bound) == 1
    finally:
        bound[0].close()
