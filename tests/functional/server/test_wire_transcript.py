"""A generated server answers exactly as recorded: every byte of every response line.

tests/functional/server/wire/ holds a catalog covering each result shape (plain text, content blocks,
ToolResult, object / wrapped / bare results in both eras), every failure a handler can cause,
prompts, resources, templates, completion and subscriptions, and a handlers.py filling most
of it in. transcript.json is what the server generated from them answered to REQUESTS
below; it was recorded with the generator and runtime of commit ce3b0c5, before the
server's machinery moved from each generated package into the runtime's adapter, so this
test shows the move changed nothing on the wire. It was re-recorded once since, when the plan
began to list prompts and resources sorted by name (as it lists tools): only those two lists
changed order; once more when invalid arguments began to be answered with every problem,
one line each by JSON pointer (only those error texts changed); and once more when a structured
result's text copy became compact JSON, written by msgspec (only spaces in those texts went).

Re-record only for an intended wire change (review the diff):
    MCPGEN_UPDATE_WIRE=1 .venv/bin/python -m pytest -q tests/functional/server/test_wire_transcript.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "wire"
TRANSCRIPT = HERE / "transcript.json"
MODERN = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _calls(meta: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """The same requests for either era; `meta` marks a stateless (2026-07-28) request."""

    def p(**params: Any) -> dict[str, Any]:
        return {**params, "_meta": meta} if meta is not None else params

    def call(name: str, arguments: Any = None) -> tuple[str, dict[str, Any]]:
        return "tools/call", p(name=name, **({} if arguments is None else {"arguments": arguments}))

    return [
        ("tools/list", p()),
        *(call("plain", {"kind": k}) for k in ("text", "blocks", "tuple", "result", "error-result", "number")),
        call("plain", {"kind": "other"}),  # fails the exact JSON Schema check (enum)
        call("plain", {"kind": "text", "extra": 1}),  # additionalProperties: false
        call("plain"),  # no arguments at all: "kind" is missing
        call("plain", ["not", "an", "object"]),
        *(call("fails", {"how": h}) for h in ("tool-error", "not-implemented", "crash")),
        call("not-written", {}),
        call("no-such-tool", {}),
        call("object.result", {"a": 1}),
        call("object.result", {"a": 2, "b": "bee"}),
        call("object.result", {"a": -1}),
        call("object.result", {"a": "1"}),  # no coercion of "1"
        call("wrapped-object", {}),
        call("wrapped-list", {"n": 4}),
        call("bare-list", {"n": 2}),
        call("unicode", {"text": "héllo «wörld» \u2028 \U0001f600"}),
        ("prompts/list", p()),
        ("prompts/get", p(name="greet", arguments={"who": "Ada"})),
        ("prompts/get", p(name="greet", arguments={"who": "Ada", "tone": "warmly", "unknown": "x"})),
        ("prompts/get", p(name="greet", arguments={})),
        ("prompts/get", p(name="greet", arguments={"who": 3})),
        ("prompts/get", p(name="conversation", arguments={"topic-name": "tides"})),
        ("prompts/get", p(name="whole")),
        ("prompts/get", p(name="unwritten-prompt")),
        ("prompts/get", p(name="no-such-prompt")),
        ("resources/list", p()),
        ("resources/templates/list", p()),
        *(("resources/read", p(uri=f"test://{u}")) for u in ("text", "bytes", "untyped", "list", "whole", "unwritten")),
        ("resources/read", p(uri="test://items/a%20b/head")),
        ("resources/read", p(uri="test://unwritten/1")),
        ("resources/read", p(uri="test://nowhere")),
        (
            "completion/complete",
            p(ref={"type": "ref/prompt", "name": "greet"}, argument={"name": "who", "value": "al"}),
        ),
        ("completion/complete", p(ref={"type": "ref/prompt", "name": "greet"}, argument={"name": "who", "value": "v"})),
        ("resources/subscribe", p(uri="test://text")),
        ("resources/unsubscribe", p(uri="test://text")),
        ("resources/subscribe", p(uri="test://unwritten")),
    ]


def requests() -> list[dict[str, Any]]:
    handshake = [
        {
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"method": "notifications/initialized"},
    ]
    out = handshake + [{"method": m, "params": params} for m, params in _calls(None) + _calls(MODERN)]
    for i, message in enumerate(m for m in out if not m["method"].startswith("notifications/")):
        message["id"] = i + 1
    return [{"jsonrpc": "2.0", **m} for m in out]


def replay(package: Path, env: dict[str, str]) -> list[str]:
    """Each request's response line, exactly as the server wrote it (and any line before it)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", package.name],
        cwd=package.parent,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []
    try:
        for message in requests():
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            while "id" in message:
                line = proc.stdout.readline().decode("utf-8")
                assert line, f"the server closed its output before answering {message}"
                lines.append(line.rstrip("\n"))
                if json.loads(line).get("id") == message["id"]:
                    break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return lines


def generate(out: Path, env: dict[str, str]) -> Path:
    package = out / "wire_server"
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "server", str(HERE / "catalog.json"), "-o", str(package)],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    shutil.copy(HERE / "handlers.py", package / "handlers.py")
    return package


def test_the_generated_server_answers_byte_for_byte_as_recorded(tmp_path: Path) -> None:
    # MCPGEN_WIRE_PYTHONPATH: record with another mcpgen (an export of an older commit).
    env = {**os.environ, "PYTHONPATH": os.environ.get("MCPGEN_WIRE_PYTHONPATH", "")}
    lines = replay(generate(tmp_path, env), env)
    if os.environ.get("MCPGEN_UPDATE_WIRE"):
        TRANSCRIPT.write_text(json.dumps(lines, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    recorded = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
    assert len(lines) == len(recorded)
    for got, want in zip(lines, recorded, strict=True):
        assert got == want
    # Not vacuous: tool results, tool errors, protocol errors, and both eras are all in there.
    answers = [json.loads(line) for line in lines]
    results = [a["result"] for a in answers if "result" in a]
    assert sum(1 for r in results if r.get("isError") is True) >= 10
    assert sum(1 for r in results if "structuredContent" in r) >= 10
    assert sum(1 for a in answers if "error" in a) >= 10
    assert sum(1 for r in results if r.get("resultType") == "complete") >= 30


def test_the_transcript_holds_the_era_rule_for_a_bare_result() -> None:
    """A non-object result is bare in the stateless era and {"result": ...} in the handshake era."""
    answers = {a["id"]: a for a in map(json.loads, json.loads(TRANSCRIPT.read_text(encoding="utf-8")))}
    bare = {
        "modern" if "_meta" in r["params"] else "legacy": answers[r["id"]]["result"]["structuredContent"]
        for r in requests()
        if r["method"] == "tools/call" and r["params"]["name"] == "bare-list"
    }
    assert bare == {"legacy": {"result": ["item 0", "item 1"]}, "modern": ["item 0", "item 1"]}
