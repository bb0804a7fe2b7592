"""Fixtures for the runtime tests: every test must leave no child process behind. Being here
puts tests/runtime/ on sys.path, so the test folders below import rt_support and memory_transport."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rt_support import children_of  # noqa: E402


@pytest.fixture(autouse=True)
def no_leftover_children() -> Iterator[None]:
    """Fail a test that leaves a child process (running or zombie) of the test process behind."""
    before = set(children_of(os.getpid()))
    yield
    deadline = time.monotonic() + 10.0
    while True:
        left = {pid: desc for pid, desc in children_of(os.getpid()).items() if pid not in before}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"child processes left behind (pid: state cmdline): {left}"
