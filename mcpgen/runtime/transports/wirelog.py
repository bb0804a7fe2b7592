"""Tee of the raw traffic, one JSON object per line: direction, seconds since start, the line.

Reading the wire is how MCP problems get solved, so every transport can write one
(`wire_log=` on connect, or the MCPGEN_WIRE_LOG environment variable).
"""

from __future__ import annotations

import json
import os
import time
from typing import IO


class WireLog:
    def __init__(self, path: str) -> None:
        self._file: IO[str] = open(path, "a", encoding="utf-8")
        self._start = time.monotonic()

    def record(self, direction: str, line: bytes | str) -> None:
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        entry = {"dir": direction, "t": round(time.monotonic() - self._start, 6), "line": text}
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def open_wire_log(path: str | None) -> WireLog | None:
    path = path or os.environ.get("MCPGEN_WIRE_LOG") or None
    return WireLog(path) if path else None
