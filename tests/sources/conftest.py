"""Fixtures of the source tests: tests/peers/real_shapes_server.py started over HTTP."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REAL_SHAPES = str(Path(__file__).resolve().parents[1] / "peers/real_shapes_server.py")


@pytest.fixture
def real_shapes_http() -> Iterator[Callable[..., str]]:
    """start(*flags): the real-shapes peer over HTTP on a free port with those flags; its URL.
    Every peer started is killed when the test ends."""
    procs: list[subprocess.Popen[str]] = []

    def start(*flags: str) -> str:
        proc = subprocess.Popen([sys.executable, REAL_SHAPES, *flags, "--http", "0"], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None
        return f"http://127.0.0.1:{proc.stdout.readline().split()[-1]}/mcp"

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
