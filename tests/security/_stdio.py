"""Drive the generated example server over stdio with raw bytes, as a hostile client would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "examples/weather"

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call(request_id: int, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def run_stdio(data: bytes, *, timeout: float = 30) -> tuple[list[Any], subprocess.CompletedProcess[bytes]]:
    """Feed `data` to `python -m weather_server` then close stdin; the messages it printed."""
    proc = subprocess.run(
        [sys.executable, "-m", "weather_server"],
        cwd=WEATHER,
        input=data,
        capture_output=True,
        timeout=timeout,
    )
    messages = [json.loads(raw) for raw in proc.stdout.splitlines() if raw.strip()]
    return messages, proc


def answers(messages: list[Any]) -> dict[Any, Any]:
    """Responses by id (notifications left out)."""
    return {m.get("id"): m for m in messages if isinstance(m, dict) and "method" not in m}
