"""The store fixtures shared by the tests that run one contract against both stores: `make_store`
(the in-memory store, and a store on a real redis-server, marked slow) and `redis_url`. Import
both names into a test module to use them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcpgen.runtime.server.store import MemoryStore, Store, open_store
from tests.cluster import needs_redis, redis_server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path) as url:
        yield url


@pytest.fixture(params=["memory", pytest.param("redis", marks=[pytest.mark.slow, needs_redis])])
def make_store(request: pytest.FixtureRequest) -> Callable[[], Store]:
    if request.param == "memory":
        return MemoryStore
    url = request.getfixturevalue("redis_url")
    return lambda: open_store(url)
