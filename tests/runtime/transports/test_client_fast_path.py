"""The client's hot path on real pipes and sockets: a request's send and its wait both end at
its deadline or its cancellation, the stream stays in step afterwards, and what the peer sends
meanwhile (notifications, its own requests) reaches the handlers, with 32 calls in flight.

- stdio: a stdlib child process (below) as the peer; a child that never reads its stdin.
- Streamable HTTP: an in-process raw HTTP/1.1 peer on 127.0.0.1, whose answers to `echo` are
  an event stream that first carries a notification and a request of the server's, and that
  answers only once the client has answered that request (a POST of its own); and a peer that
  answers `initialize`, to pin that the client always opens the standalone GET stream.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import RequestTimeout, Session, connect_http
from mcpgen.runtime.core.jsonrpc import JSONObject, RequestId
from mcpgen.runtime.transports import http_client
from mcpgen.runtime.transports.http_client import StreamableHttpTransport
from mcpgen.runtime.transports.stdio import StdioClientTransport

pytestmark = pytest.mark.timeout(120)

# echo: a notification and a ping of the server's first, the answer once the ping is answered.
# hold: never answered. notifications/cancelled: reported back as notifications/seen-cancel.
STDIO_PEER = r"""
import json, sys
out = sys.stdout.buffer
def send(m):
    out.write(json.dumps(m).encode() + b"\n")
    out.flush()
waiting = {}
for line in sys.stdin.buffer:
    m = json.loads(line)
    method = m.get("method")
    if method == "echo":
        sid = "s%d" % (len(waiting) + 1000 * int(m["id"]))
        waiting[sid] = m
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"for": m["id"]}})
        send({"jsonrpc": "2.0", "id": sid, "method": "ping", "params": {"for": m["id"]}})
    elif method == "notifications/cancelled":
        send({"jsonrpc": "2.0", "method": "notifications/seen-cancel", "params": m["params"]})
    elif method is None and m.get("id") in waiting:
        req = waiting.pop(m["id"])
        send({"jsonrpc": "2.0", "id": req["id"],
              "result": {"text": req["params"]["text"], "pong": m.get("result")}})
"""

# Reads nothing, ever: the pipe to it fills up and the client's send blocks.
DEAF_PEER = "import time\ntime.sleep(600)\n"


def run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(coro_fn(), 60))


class Seen:
    """What reached the client's handlers: notifications by method, the server's requests."""

    def __init__(self) -> None:
        self.notes: dict[str, list[JSONObject]] = {}
        self.requests: list[tuple[str, JSONObject]] = []
        self.arrived = asyncio.Event()

    def on_notification(self, method: str, params: JSONObject) -> None:
        self.notes.setdefault(method, []).append(params)
        self.arrived.set()

    async def on_request(self, method: str, params: JSONObject, request_id: RequestId) -> Any:
        self.requests.append((method, params))
        return {"n": params["for"]}

    async def note(self, method: str) -> JSONObject:
        while not self.notes.get(method):
            self.arrived.clear()
            await self.arrived.wait()
        return self.notes[method][-1]


async def stdio_session(tmp_path: Path, script: str, seen: Seen) -> Session:
    peer = tmp_path / "peer.py"
    peer.write_text(script)
    transport = StdioClientTransport(sys.executable, [str(peer)], shutdown_grace=0.2)
    await transport.start()
    session = Session(transport, on_request=seen.on_request, on_notification=seen.on_notification, timeout=30)
    session.start()
    return session


def test_stdio_timeout_interrupts_a_send_to_a_peer_that_stops_reading(tmp_path: Path) -> None:
    async def main() -> None:
        session = await stdio_session(tmp_path, DEAF_PEER, Seen())
        blob = "x" * (8 * 1024 * 1024)  # far more than a pipe holds: the send blocks in drain
        with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.2s$"):
            await session.request("tools/call", {"name": "echo", "arguments": {"text": blob}}, timeout=0.2)
        assert session.in_flight == 0
        await session.close()

    run(main)


def test_stdio_cancel_mid_wait_keeps_the_stream_in_step(tmp_path: Path) -> None:
    async def main() -> None:
        seen = Seen()
        session = await stdio_session(tmp_path, STDIO_PEER, seen)
        held = asyncio.ensure_future(session.request("hold"))
        await asyncio.sleep(0)  # written: now waiting for an answer that never comes
        held.cancel()
        with pytest.raises(asyncio.CancelledError, match=r"^$"):
            await held
        assert await seen.note("notifications/seen-cancel") == {
            "requestId": 1,
            "reason": "the caller cancelled the request",
        }
        result = await session.request("echo", {"text": "after"})
        assert result == {"text": "after", "pong": {"n": 2}}
        await session.close()

    run(main)


def test_stdio_32_calls_in_flight_with_notifications_and_server_requests(tmp_path: Path) -> None:
    async def main() -> None:
        seen = Seen()
        session = await stdio_session(tmp_path, STDIO_PEER, seen)
        texts = [f"t{i}" for i in range(32)]
        results = await asyncio.gather(*(session.request("echo", {"text": t}) for t in texts))
        assert [r["text"] for r in results] == texts
        ids = sorted(r["pong"]["n"] for r in results)  # each answer waited for its own ping's answer
        assert ids == list(range(1, 33))
        assert sorted(p["for"] for p in seen.notes["notifications/message"]) == ids
        assert sorted(p["for"] for _, p in seen.requests) == ids
        await session.close()

    run(main)


# ---- Streamable HTTP ----------------------------------------------------------------------


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _event(message: JSONObject) -> bytes:
    return _chunk(b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n")


class HttpPeer:
    """A raw HTTP/1.1 handshake-era peer (see the module doc); `hold` is never answered, its
    connection kept open until the client drops it."""

    def __init__(self) -> None:
        self.pongs: dict[str, asyncio.Future[Any]] = {}
        self.cancelled: list[JSONObject] = []
        self.disconnects = 0
        self.holding = 0
        # What reached the peer, in order: "GET" (the standalone stream) or a POST's method.
        self.arrivals: list[str] = []
        # False: a GET gets no answer at all (its head never comes).
        self.answers_get = True
        self.server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one(reader, writer):
                pass
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
        if head[0].startswith("GET "):
            self.arrivals.append("GET")
            if self.answers_get:
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                )
                await writer.drain()
            return await self._until_gone(reader)
        length = int(fields.get("content-length", "0"))
        message = json.loads(await reader.readexactly(length))
        method = message.get("method")
        self.arrivals.append(str(method))
        if method == "hold":
            self.holding += 1
            return await self._until_gone(reader)
        if method == "echo":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
            rid = message["id"]
            sid = f"s{rid}"
            pong = self.pongs[sid] = asyncio.get_running_loop().create_future()
            writer.write(_event({"jsonrpc": "2.0", "method": "notifications/message", "params": {"for": rid}}))
            writer.write(_event({"jsonrpc": "2.0", "id": sid, "method": "ping", "params": {"for": rid}}))
            await writer.drain()
            answer = {"text": message["params"]["text"], "pong": await pong}
            writer.write(_event({"jsonrpc": "2.0", "id": rid, "result": answer}) + b"0\r\n\r\n")
            await writer.drain()
            return True
        if method == "notifications/cancelled":
            self.cancelled.append(message["params"])
        elif method is None and message.get("id") in self.pongs:
            self.pongs.pop(message["id"]).set_result(message.get("result"))
        writer.write(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        return True

    async def _until_gone(self, reader: asyncio.StreamReader) -> bool:
        while await reader.read(65536):  # (whatever else comes on this connection is dropped)
            pass
        self.disconnects += 1
        return False


async def http_session(peer: HttpPeer, seen: Seen) -> Session:
    await peer.start()
    transport = StreamableHttpTransport(peer.url, timeout=30)
    session = Session(transport, on_request=seen.on_request, on_notification=seen.on_notification, timeout=30)
    session.start()
    return session


@pytest.mark.parametrize("how", ["timeout", "cancel"])
def test_http_exchange_in_the_callers_task_ends_at_timeout_or_cancel(how: str) -> None:
    async def main() -> None:
        peer, seen = HttpPeer(), Seen()
        session = await http_session(peer, seen)
        if how == "timeout":
            with pytest.raises(RequestTimeout, match=r"^hold got no response within 0\.2s$"):
                await session.request("hold", timeout=0.2)
            reason = "request timed out"
        else:
            held = asyncio.ensure_future(session.request("hold"))
            while peer.holding == 0:  # the peer has it: the caller is waiting for the answer
                await asyncio.sleep(0.01)
            held.cancel()
            with pytest.raises(asyncio.CancelledError, match=r"^$"):
                await held
            reason = "the caller cancelled the request"
        # The exchange was abandoned in the caller's task (its connection closed), the peer told.
        while peer.disconnects == 0 or not peer.cancelled:
            await asyncio.sleep(0.01)
        assert peer.cancelled == [{"requestId": 1, "reason": reason}]
        result = await session.request("echo", {"text": "after"})
        assert result == {"text": "after", "pong": {"n": 2}}
        assert seen.notes["notifications/message"] == [{"for": 2}]
        await session.close()
        await peer.stop()

    run(main)


def test_http_32_calls_in_flight_with_notifications_and_server_requests() -> None:
    async def main() -> None:
        peer, seen = HttpPeer(), Seen()
        session = await http_session(peer, seen)
        texts = [f"t{i}" for i in range(32)]
        results = await asyncio.gather(*(session.request("echo", {"text": t}) for t in texts))
        assert [r["text"] for r in results] == texts
        ids = sorted(r["pong"]["n"] for r in results)
        assert ids == list(range(1, 33))
        assert sorted(p["for"] for p in seen.notes["notifications/message"]) == ids
        assert sorted(p["for"] for _, p in seen.requests) == ids
        # Answered within the callers' sends: no task per call was left behind in the transport.
        assert session.transport._posts == {}  # type: ignore[attr-defined]
        await session.close()
        await peer.stop()

    run(main)


@pytest.mark.parametrize("answers_get", [True, False])
def test_http_a_call_right_after_the_listen_stream_opens_goes_out_after_its_get(
    answers_get: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server sends what relates to no request on the standalone GET stream and drops it while
    none is open, so the first call exchanged in its caller's task waits for the GET's answer; a
    GET that is never answered holds it LISTEN_SETTLE seconds at most."""
    monkeypatch.setattr(http_client, "LISTEN_SETTLE", 0.5)

    async def main() -> None:
        peer, seen = HttpPeer(), Seen()
        peer.answers_get = answers_get
        session = await http_session(peer, seen)
        session.transport.open_listen_stream()  # type: ignore[attr-defined]
        result = await session.request("echo", {"text": "first"})
        assert result["text"] == "first"
        assert peer.arrivals[:2] == ["GET", "echo"]
        await session.close()
        await peer.stop()

    run(main)


HANDSHAKE = "2025-11-25"


# ---- the standalone GET stream, always opened (handshake era) --------------------------------


def _initialized(request_id: Any) -> bytes:
    """The HTTP answer to `initialize` of a handshake-era peer opening session s1."""
    result = {"protocolVersion": HANDSHAKE, "capabilities": {"tools": {}}, "serverInfo": {"name": "p"}}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )


class HandshakePeer(HttpPeer):
    """An HttpPeer that answers `initialize` and `tools/list`, and on the GET stream sends a ping
    of its own (relating to no request) that must be answered before `tools/list` is."""

    def __init__(self, get_status: int) -> None:
        super().__init__()
        self.get_status = get_status  # 200: a standalone stream; 405: none offered
        self.pong: asyncio.Future[Any] | None = None  # arrivals: "answer" for a response

    async def start(self) -> None:
        await super().start()
        self.pong = asyncio.get_running_loop().create_future()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
        if head[0].startswith("DELETE "):
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
            return True
        if head[0].startswith("GET "):
            self.arrivals.append("GET")
            if self.get_status != 200:
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nallow: POST\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
                return True
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
            ping = {"jsonrpc": "2.0", "id": "unrelated-1", "method": "ping"}  # relates to no request
            writer.write(_event(ping))
            await writer.drain()
            return await self._until_gone(reader)
        message = json.loads(await reader.readexactly(int(fields.get("content-length", "0"))))
        method = message.get("method")
        self.arrivals.append(str(method) if method is not None else "answer")
        if method == "initialize":
            writer.write(_initialized(message["id"]))
        elif method == "tools/list":
            if self.get_status == 200:  # answered once the client has answered the GET's ping
                assert self.pong is not None
                await asyncio.wait_for(asyncio.shield(self.pong), 30)
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
        else:
            if method is None and message.get("id") == "unrelated-1" and self.pong is not None:
                self.pong.set_result(message.get("result"))
            writer.write(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        return True


@pytest.mark.parametrize("get_status", [200, 405])
def test_http_the_client_always_opens_the_get_stream_and_answers_what_comes_on_it(get_status: int) -> None:
    """Handshake era: the client opens the standalone GET stream after `notifications/initialized`
    whatever it declared, because it is the only channel for what the server sends unrelated to
    a request (spec, basic/transports, "Listening for Messages from the Server"): a ping, an
    elicitation a tool asks without naming its call, `tools/list_changed` for re-pinning. A
    server without one answers 405 and the client goes on without it."""

    async def main() -> list[str]:
        peer = HandshakePeer(get_status)
        await peer.start()
        # No callback, no capability of its own: the stream is opened all the same.
        async with connect_http(peer.url, protocol=HANDSHAKE, timeout=30, transport="streamable") as client:
            assert (await client.list_tools()) == []
        await peer.stop()
        if get_status == 200:
            assert peer.pong is not None and peer.pong.done() and peer.pong.result() == {}
        return peer.arrivals

    arrivals = asyncio.run(main())
    assert arrivals[:2] == ["initialize", "notifications/initialized"], arrivals
    assert "GET" in arrivals[2:] and "tools/list" in arrivals[2:], arrivals
    # With a stream, the server's unrelated ping came on it and the client answered it.
    assert ("answer" in arrivals) is (get_status == 200), arrivals


# ---- the standalone GET stream, reopened when the server ends it -----------------------------


class EndingStreamPeer(HandshakePeer):
    """A HandshakePeer whose first GET stream carries a ping with an event id and a `retry`, then
    ends; every later GET must say that id in Last-Event-ID and gets the next ping, the last one
    kept open. Each answered ping resolves its own future."""

    def __init__(self, streams: int) -> None:
        super().__init__(200)
        self.streams = streams
        self.last_event_ids: list[str | None] = []
        self.answered: dict[str, asyncio.Future[Any]] = {}

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self.answered = {f"p{n}": loop.create_future() for n in range(self.streams)}

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        raw = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in raw[1:] if line)}
        if raw[0].startswith("GET "):
            n = len(self.last_event_ids)
            self.last_event_ids.append(fields.get("last-event-id"))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
            ping = {"jsonrpc": "2.0", "id": f"p{n}", "method": "ping"}
            writer.write(_chunk(f"id: e{n}\nretry: 10\n".encode()) + _event(ping))
            await writer.drain()
            if n + 1 < self.streams:
                writer.write(b"0\r\n\r\n")  # the stream ends here
                await writer.drain()
                return False
            return await self._until_gone(reader)
        message = json.loads(await reader.readexactly(int(fields.get("content-length", "0"))))
        method = message.get("method")
        if method == "initialize":
            writer.write(_initialized(message["id"]))
        else:
            if method is None and message.get("id") in self.answered:
                future = self.answered[message["id"]]
                if not future.done():
                    future.set_result(message.get("result"))
            writer.write(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        return True


def test_http_an_ended_get_stream_is_reopened_with_the_last_event_id_and_heard_again() -> None:
    """Handshake era: a server may end the standalone stream (spec, basic/transports); the client
    reopens it after the server's `retry`, saying the last event id it saw, so what the server
    sends later (here a ping on each new stream; in life a `tools/list_changed` that re-pins)
    still arrives. Before, the first stream's end was the last the client heard of the server."""

    async def main() -> None:
        peer = EndingStreamPeer(streams=3)
        await peer.start()
        async with connect_http(peer.url, protocol=HANDSHAKE, timeout=30, transport="streamable"):
            await asyncio.wait_for(asyncio.gather(*peer.answered.values()), 30)
        await peer.stop()
        assert peer.last_event_ids[:3] == [None, "e0", "e1"], peer.last_event_ids

    asyncio.run(main())


def test_http_the_wait_before_reopening_keeps_the_servers_retry_within_bounds_and_backs_off() -> None:
    low, high = http_client.LISTEN_RETRY_BOUNDS
    assert http_client.listen_retry_delay(None, 0) == 1.0  # no retry sent: a second
    assert http_client.listen_retry_delay(0, 0) == low  # a server asking for a spin gets the floor
    assert http_client.listen_retry_delay(10**12, 0) == high
    assert http_client.listen_retry_delay(2000, 0) == 2.0
    # Streams that bring nothing double the wait, never past the longest, however many.
    waits = [http_client.listen_retry_delay(0, barren) for barren in range(40)]
    assert waits == sorted(waits) and waits[1] == 2 * low and waits[-1] == high
