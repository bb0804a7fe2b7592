"""Shared by every test folder: being here puts tests/ on sys.path, so `import serving` and
`import generation` work, and registers the `generate` and `oauth_peer` fixtures for every folder."""

import os

import pytest
from generation import generate  # noqa: F401
from oauth_peer import oauth_peer  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "peer_required(missing, reason): see serving.needs_peer")


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A peer missing on a developer machine is a skip; in CI (CI set) it is a failure, so a
    # broken setup can never pass as a green run with fewer tests.
    for mark in item.iter_markers("peer_required"):
        if mark.kwargs["missing"]:
            reason = f"test peer missing: {mark.kwargs['reason']}"
            if os.environ.get("CI"):
                pytest.fail(f"{reason} (CI is set: a missing peer fails)", pytrace=False)
            pytest.skip(reason)
