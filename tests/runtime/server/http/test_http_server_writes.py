"""How the HTTP server writes its responses: what one event-loop step writes leaves in one write
(`OneWrite`), so a response's head and body reach the client together, under both of uvicorn's
HTTP implementations (httptools with uvloop as installed, and h11 on asyncio's loop with both
hidden from the server process)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from rt_support import PY, RUNTIME_SERVER, run, text_of
from serving import ServerProcess

from mcpgen.runtime import connect_http
from mcpgen.runtime.server.http.asgi import WHOLE_KEY
from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.server.http.protocol import ONE_WRITE_MAX, OneWrite
from tests.security._inproc import app_serving

pytestmark = pytest.mark.timeout(120)

# Run the test server with httptools and uvloop impossible to import: uvicorn falls back to h11
# and asyncio's own loop, as in an install without them.
_HIDE = "import sys, runpy\nsys.modules['httptools'] = None\nsys.modules['uvloop'] = None\n"


class _Recorder:
    """A transport that records what is written to it, and when it is closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


def test_writes_of_one_step_leave_in_one_write() -> None:
    async def scenario() -> list[bytes]:
        recorder = _Recorder()
        writer = OneWrite(recorder, asyncio.get_running_loop())  # type: ignore[arg-type]
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        writer.write(b"{}")
        assert recorder.writes == []  # held until the step ends
        await asyncio.sleep(0)
        writer.write(b"next")
        await asyncio.sleep(0)
        return recorder.writes

    assert run(scenario()) == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", b"next"]


def test_close_sends_what_is_held_first_and_big_writes_leave_at_once() -> None:
    async def scenario() -> _Recorder:
        recorder = _Recorder()
        writer = OneWrite(recorder, asyncio.get_running_loop())  # type: ignore[arg-type]
        writer.write(b"head")
        writer.write(b"x" * (ONE_WRITE_MAX + 1))
        assert recorder.writes == [b"head" + b"x" * (ONE_WRITE_MAX + 1)]  # flow control sees it now
        writer.write(b"last")
        writer.close()
        await asyncio.sleep(0)
        return recorder

    recorder = run(scenario())
    assert recorder.writes[1:] == [b"last"] and recorder.closed


def test_a_whole_response_waits_for_its_completion_not_for_the_step_end() -> None:
    # A head marked WHOLE_KEY (asgi.json_body) schedules no flush: the response's completion
    # (the protocol's on_response_complete) writes head and body at once, in one write.
    async def scenario() -> tuple[list[bytes], list[bytes]]:
        recorder = _Recorder()
        loop = asyncio.get_running_loop()
        writer = OneWrite(recorder, loop)  # type: ignore[arg-type]
        writer.whole = True
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        writer.write(b"{}")
        await asyncio.sleep(0)
        held = list(recorder.writes)  # no flush was scheduled
        writer.whole = False
        writer.flush()
        return held, recorder.writes

    held, written = run(scenario())
    assert held == []
    assert written == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]


def test_nothing_is_written_to_a_closing_transport() -> None:
    async def scenario() -> list[bytes]:
        recorder = _Recorder()
        writer = OneWrite(recorder, asyncio.get_running_loop())  # type: ignore[arg-type]
        writer.write(b"late")
        recorder.closed = True  # the peer went away before the step ended
        await asyncio.sleep(0)
        return recorder.writes

    assert run(scenario()) == []


@pytest.fixture(params=["as installed", "h11 and asyncio"], scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    argv = [PY, RUNTIME_SERVER, "--http", "--port", "{port}"]
    if request.param != "as installed":
        argv = [PY, "-c", f"{_HIDE}sys.argv = {argv[1:]!r}\nrunpy.run_path({RUNTIME_SERVER!r}, run_name='__main__')"]
    process = ServerProcess(argv, log_dir=tmp_path_factory.mktemp("server")).start()
    yield process
    process.stop()


def _post(body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n"
        b"Mcp-Method: tools/call\r\nMcp-Name: echo\r\n" + f"Content-Length: {len(data)}\r\n\r\n".encode() + data
    )


@pytest.mark.slow
def test_each_answer_arrives_whole_in_one_read(server: ServerProcess) -> None:
    """30 calls on one kept-alive connection: the first read after each request holds its whole
    answer (status line, headers and the full body), never the head alone."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(30):
            params = {"name": "echo", "arguments": {"text": f"hello {i}"}, "_meta": meta}
            sock.sendall(_post({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}))
            first = sock.recv(65536)
            head, sep, body = first.partition(b"\r\n\r\n")
            assert sep, f"call {i}: the first read held only part of the head: {first!r}"
            assert head.startswith(b"HTTP/1.1 200"), head
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            assert len(body) == length, f"call {i}: the first read held {len(body)} of {length} body bytes"
            answer = json.loads(body)
            assert answer["id"] == i and answer["result"]["content"][0]["text"] == f"hello {i}", answer


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_streamed_answers_and_concurrent_calls(server: ServerProcess, protocol: str) -> None:
    """An SSE answer (progress events, then the result) and 20 calls in flight, both eras."""

    async def scenario() -> tuple[list[float], str, list[str]]:
        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        async with connect_http(server.url, protocol=protocol) as session:
            result = await session.call_tool("progress", {"steps": 3}, progress=on_progress)
            many = await asyncio.gather(*(session.call_tool("echo", {"text": str(i)}) for i in range(20)))
        return seen, text_of(result), [text_of(r) for r in many]

    seen, text, echoed = run(scenario())
    assert seen == [1, 2, 3] and text == "done 3"
    assert echoed == [str(i) for i in range(20)]


def test_the_hiding_prelude_hides_both() -> None:
    """The h11 variant above really runs without httptools and uvloop."""
    code = _HIDE + "import importlib\nfor name in ('httptools', 'uvloop'):\n"
    code += "    try:\n        importlib.import_module(name)\n    except ImportError:\n        continue\n"
    code += "    raise SystemExit(name + ' imported')\n"

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


async def _flag_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers with whether the connection's writer holds the response whole after its head
    (`send.__self__`: the request's cycle), the head marked WHOLE_KEY on a path of /whole."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    head: dict[str, Any] = {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"5")]}
    if scope["path"] == "/whole":
        head[WHOLE_KEY] = True
    await send(head)
    held = send.__self__.transport.whole is True
    await send({"type": "http.response.body", "body": b"true " if held else b"false"})


def test_a_cycle_sees_whole_key_and_pipelined_requests_keep_their_own() -> None:
    # Two requests in one write: uvicorn queues the second cycle while the first answers; each
    # sees its own head's marker, and the first's completion forgets it.
    async def scenario() -> bytes:
        async with app_serving(_flag_app, HttpLimits()) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            ask = b"GET %s HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
            writer.write(ask % b"/whole" + ask % b"/plain" + ask % b"/whole")
            answers = b""
            while answers.count(b"\r\n\r\n") < 3 or not answers.endswith((b"true ", b"false")):
                answers += await asyncio.wait_for(reader.read(4096), 30)
            writer.close()
            return answers

    answers = run(scenario())
    bodies = [part.split(b"\r\n\r\n")[1] for part in answers.split(b"HTTP/1.1 ")[1:]]
    assert bodies == [b"true ", b"false", b"true "]
