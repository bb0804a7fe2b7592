"""Helpers for the build-step tests: run the CLI in-process, snapshot a folder's bytes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import cli_run

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
RUNTIME_SERVER = REPO / "tests" / "peers" / "runtime_server.py"
TOOLS_PEER = Path(__file__).resolve().parent / "tools_peer.py"

FORECAST: dict[str, Any] = {
    "name": "get-forecast",
    "description": "Forecast for a city.",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 14}},
        "required": ["city"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperatures": {"type": "array", "items": {"type": "number"}}},
        "required": ["city", "temperatures"],
    },
}
ALERTS: dict[str, Any] = {
    "name": "get-alerts",
    "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]},
}


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one in-process `mcpgen ...` run."""
    return cli_run(args, capsys)


def tree(path: Path) -> dict[str, bytes]:
    """Every file under path with its bytes (bytecode caches left out)."""
    if not path.exists():
        return {}
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def write_json(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path
