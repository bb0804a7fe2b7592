"""The server-start helper every test uses: it fails fast, with the server's output, when the
server dies or never listens, and it survives losing its port to another process."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from serving import ServerProcess, serving

pytestmark = pytest.mark.timeout(60)

# A server that binds the port it is given, or dies like uvicorn does when the port is taken.
TINY_SERVER = """
import socket, sys, time
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError as e:
    print(f"[Errno {e.errno}] error while attempting to bind: address already in use", file=sys.stderr)
    sys.exit(1)
s.listen()
time.sleep(60)
"""


def test_a_server_that_dies_fails_at_once_with_its_output() -> None:
    # The exit ends the wait, not the deadline: a wait for this one would outlast pytest's timeout.
    with pytest.raises(AssertionError, match="exited with 3 before listening: .*boom"):
        with serving([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"], timeout=3600):
            pass


def test_a_server_that_never_listens_fails_at_its_timeout() -> None:
    with pytest.raises(AssertionError, match="did not listen"):
        with serving([sys.executable, "-c", "import time; print('idle'); time.sleep(60)"], timeout=1.5):
            pass


@pytest.mark.parametrize("listening", [False, True])
def test_a_port_lost_to_a_race_is_retried_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listening: bool
) -> None:
    # Bound but not listening: the server's bind fails and it dies saying so. Listening: the
    # helper sees a listener that is not its server before starting it. Either way: another port.
    import serving as helper

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    if listening:
        squatter.listen()
    taken = squatter.getsockname()[1]
    ports = iter([taken])
    real = helper.free_port
    monkeypatch.setattr(helper, "free_port", lambda: next(ports, None) or real())
    script = tmp_path / "tiny.py"
    script.write_text(TINY_SERVER, encoding="utf-8")
    server = ServerProcess([sys.executable, str(script), "{port}"], log_dir=tmp_path)
    try:
        server.start(timeout=30)
        assert server.port != taken
        server.assert_alive()
        if not listening:
            assert "address already in use" in (tmp_path / f"server-{taken}.log").read_text()
    finally:
        server.stop()
        squatter.close()
    assert server.proc is not None and server.proc.poll() is not None


def test_assert_alive_reports_a_server_that_died_later(tmp_path: Path) -> None:
    script = tmp_path / "short.py"
    script.write_text(TINY_SERVER.replace("time.sleep(60)", "time.sleep(1); print('gone'); sys.exit(5)"))
    server = ServerProcess([sys.executable, str(script), "{port}"], log_dir=tmp_path).start()
    try:
        assert server.proc is not None
        server.proc.wait(60)  # it exits on its own after a second (waited for, not slept for)
        with pytest.raises(AssertionError, match="died: .*gone"):
            server.assert_alive()
    finally:
        server.stop()
