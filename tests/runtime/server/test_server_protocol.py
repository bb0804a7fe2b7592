"""The runtime server seen from the wire: raw JSON lines to a real process over stdio."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).resolve().parents[2] / "peers" / "runtime_server.py"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
}


class Raw:
    """A line-level client: writes exactly what the test says, reads lines back."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, payload: Any) -> None:
        line = payload if isinstance(payload, str) else json.dumps(payload)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "server closed stdout"
        return json.loads(line)  # every stdout line must be JSON: nothing else may leak there

    def ask(self, payload: Any) -> Any:
        self.send(payload)
        return self.recv()

    def handshake(self, version: str = "2025-11-25") -> dict[str, Any]:
        reply = self.ask(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return dict(reply["result"])

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            assert stream is not None
            stream.close()
        return code


@pytest.fixture
def raw() -> Any:
    client = Raw()
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()
    for stream in (client.proc.stdin, client.proc.stdout, client.proc.stderr):
        if stream is not None and not stream.closed:
            stream.close()


def call(rid: int, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def test_handshake_negotiates_down_and_exits_on_stdin_eof(raw: Raw) -> None:
    assert raw.handshake("2024-11-05")["protocolVersion"] == "2024-11-05"
    assert raw.handshake("1999-01-01")["protocolVersion"] == "2025-11-25"  # unknown → its latest
    assert raw.close() == 0


def test_parse_error_then_the_session_carries_on(raw: Raw) -> None:
    raw.handshake()
    reply = raw.ask("{not json")
    assert reply["error"]["code"] == -32700 and reply["id"] is None
    assert raw.ask({"jsonrpc": "2.0", "id": 5, "method": "ping"}) == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_invalid_request_shapes(raw: Raw) -> None:
    raw.handshake()
    assert raw.ask({"jsonrpc": "2.0", "id": None, "method": "ping"})["error"]["code"] == -32600
    assert raw.ask({"jsonrpc": "2.0", "id": 7, "method": "no/such"})["error"]["code"] == -32601


def test_batches_rejected_unless_2025_03_26(raw: Raw) -> None:
    raw.handshake("2025-11-25")
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert raw.ask([ping])["error"]["code"] == -32600
    raw.handshake("2025-03-26")
    reply = raw.ask(
        [ping, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/x"}]
    )
    assert sorted(r["id"] for r in reply) == [1, 2]


def test_requests_before_initialize_are_refused_but_ping_works(raw: Raw) -> None:
    assert raw.ask({"jsonrpc": "2.0", "id": 1, "method": "ping"})["result"] == {}
    assert raw.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["error"]["code"] == -32600


def test_unknown_tool_is_a_protocol_error_and_handler_errors_are_tool_errors(raw: Raw) -> None:
    raw.handshake()
    assert raw.ask(call(1, "nope", {}))["error"]["code"] == -32602
    reply = raw.ask(call(2, "add", {"a": "x", "b": 1}))  # int("x") raises inside the handler
    assert reply["result"]["isError"] is True
    assert "Traceback" not in json.dumps(reply)


def test_print_in_a_handler_never_reaches_stdout(raw: Raw) -> None:
    raw.handshake()
    reply = raw.ask(call(1, "noisy", {}))
    assert "result" in reply  # recv() already proved the line was pure JSON
    assert raw.ask({"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"] == {}


def test_stateless_requests_need_meta_and_a_supported_version(raw: Raw) -> None:
    discover = raw.ask({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN_META}})
    result = discover["result"]
    assert "2026-07-28" in result["supportedVersions"] and result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "runtime-test-server"
    bad_version = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2031-01-01"}
    error = raw.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": bad_version}})["error"]
    assert error["code"] == -32022 and "2026-07-28" in error["data"]["supported"]
    no_caps = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    assert (
        raw.ask({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": no_caps}})["error"]["code"]
        == -32602
    )
    listed = raw.ask({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": MODERN_META}})["result"]
    assert listed["ttlMs"] >= 0 and listed["cacheScope"] in ("public", "private")
    echoed = raw.ask(call(5, "echo", {"text": "hé"}, MODERN_META))["result"]
    assert echoed["content"][0]["text"] == "hé" and echoed["resultType"] == "complete"


def test_no_log_messages_in_the_stateless_era_without_a_log_level(raw: Raw) -> None:
    raw.send(call(1, "log", {"message": "hidden"}, MODERN_META))
    first = raw.recv()
    assert first.get("id") == 1, f"expected the result first, got {first}"
    raw.send(call(2, "log", {"message": "shown"}, {**MODERN_META, "io.modelcontextprotocol/logLevel": "debug"}))
    note = raw.recv()
    assert note["method"] == "notifications/message"


def test_sigterm_stops_the_server(raw: Raw) -> None:
    raw.handshake()
    raw.proc.send_signal(signal.SIGTERM)
    assert raw.proc.wait(timeout=10) in (0, -signal.SIGTERM)
