"""What the tests of tests/docs share beside the browser fixture (conftest.py): a peer that is
missing fails in CI and skips elsewhere. A module of its own, since no test imports conftest."""

from __future__ import annotations

import os

import pytest


def missing(reason: str) -> None:
    """A peer missing in CI fails; on a developer's machine (CI unset) the test is skipped."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)
