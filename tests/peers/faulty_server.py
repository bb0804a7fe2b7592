"""Test peer: a raw JSON-RPC stdio "MCP server" that misbehaves on purpose (stdlib only).

    python tests/peers/faulty_server.py MODE [FILE]

Modes:
  junk            prints banners, blank lines and non-JSON lines on stdout before and between
                  valid messages; still answers everything (tools/call echoes arguments.text).
  crash-mid-call  answers the handshake and tools/list, exits (code 3) on tools/call without answering.
  hang            answers the handshake and tools/list, never answers tools/call; every
                  notifications/cancelled received is appended to FILE as one JSON line (params).
  big             answers tools/call with a 20 MiB text.
  deep            before each tools/call answer, writes a ~20 KB line nested 5,000 deep (a message
                  no recursive JSON parser can read), then answers normally.
  exit-at-once    exits (code 1) before reading anything.
  answer-exit     answers tools/call, then exits at once (code 0): the answer and the end of
                  stdout arrive together.
  silent          reads stdin and never writes a byte; exits on stdin EOF.
  stubborn        answers like `junk` without the junk, but ignores SIGTERM and keeps running
                  after stdin EOF: only SIGKILL stops it (tests the client's shutdown escalation).

It is a legacy-era server: `server/discover` gets -32601 (so a probing client falls back to
`initialize`), any other unknown method gets -32601 too. The environment variable
FAULTY_DISCOVER changes the discover answer: an error code (e.g. -32600, -32602) or `ignore`
(never answered), because a client's fallback must not be keyed to one error code. Every received message is also
logged to stderr, which the client must route to its logger, not treat as protocol.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
BIG_BYTES = 20 * 1024 * 1024

ECHO_TOOL = {
    "name": "echo",
    "description": "Echo the text back",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}

out = sys.stdout.buffer


def write_line(raw: bytes) -> None:
    out.write(raw + b"\n")
    out.flush()


def send(msg: dict[str, Any]) -> None:
    write_line(json.dumps(msg, separators=(",", ":")).encode())


def junk(mode: str, tag: str) -> None:
    """In junk mode, surround protocol traffic with the kind of noise real servers print."""
    if mode == "junk":
        write_line(f"[faulty_server] banner ({tag}) -- not JSON".encode())
        write_line(b"")
        write_line(b"Starting server... {not json either")
        write_line("unicode noise: \u00e9\u4e2d\U0001f600".encode())


def result(msg_id: Any, res: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": msg_id, "result": res})


def error(msg_id: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "junk"
    record = sys.argv[2] if len(sys.argv) > 2 else None
    print(f"faulty_server: mode={mode} pid={os.getpid()}", file=sys.stderr, flush=True)

    if mode == "exit-at-once":
        print("faulty_server: exiting at once", file=sys.stderr, flush=True)
        sys.exit(1)

    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    junk(mode, "start")
    for line in sys.stdin.buffer:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            print(f"faulty_server: bad line {line[:80]!r}", file=sys.stderr, flush=True)
            continue
        method = msg.get("method")
        msg_id = msg.get("id")
        print(f"faulty_server: got {method or 'response'} id={msg_id}", file=sys.stderr, flush=True)
        if mode == "silent":
            continue
        if method == "notifications/cancelled" and record:
            with open(record, "a", encoding="utf-8") as f:
                f.write(json.dumps(msg.get("params")) + "\n")
        if msg_id is None or method is None:  # notifications and responses need no answer
            continue

        junk(mode, method)
        if method == "server/discover":
            how = os.environ.get("FAULTY_DISCOVER", "-32601")
            if how != "ignore":
                error(msg_id, int(how), f"no server/discover here ({how})")
        elif method == "initialize":
            asked = (msg.get("params") or {}).get("protocolVersion")
            result(
                msg_id,
                {
                    "protocolVersion": asked if asked in SUPPORTED else SUPPORTED[0],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": f"faulty-{mode}", "version": "0.0.1"},
                },
            )
        elif method == "ping":
            result(msg_id, {})
        elif method == "tools/list":
            result(msg_id, {"tools": [ECHO_TOOL]})
        elif method == "tools/call":
            if mode == "crash-mid-call":
                print("faulty_server: crashing mid-call", file=sys.stderr, flush=True)
                os._exit(3)
            if mode == "hang":
                continue
            if mode == "deep":
                write_line(
                    b'{"jsonrpc":"2.0","method":"notifications/message","params":' + b"[" * 5000 + b"]" * 5000 + b"}"
                )
            if mode == "big":
                text = "y" * BIG_BYTES
            else:
                text = str(((msg.get("params") or {}).get("arguments") or {}).get("text", ""))
            result(msg_id, {"content": [{"type": "text", "text": text}], "isError": False})
            if mode == "answer-exit":
                os._exit(0)
        else:
            error(msg_id, -32601, f"Method not found: {method}")
        junk(mode, f"after {method}")

    if mode == "stubborn":
        print("faulty_server: stdin closed, staying alive anyway", file=sys.stderr, flush=True)
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
