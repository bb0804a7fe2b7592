"""The conformance suites against a cluster: two worker processes of the generated conformance
server sharing a real Redis (`--store redis://...`), behind a real nginx doing plain round-robin
(no stickiness). Every request of a session may land on either worker: sessions, server->client
requests (elicitation, sampling), SSE streams and subscriptions must hold across them. The same
scenarios and floors as against one process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_conformance import HARNESS, NODE24, SERVER, SERVER_FLOORS, SUITE_ALL_SIZE, below_floor, checks_of, failures
from test_conformance_alpha import EXPECTED, FLOORS, INFO_ONLY, TIMING_SENSITIVE, run_alpha

from tests.cluster import Cluster, RedisServer, cluster, needs_nginx, needs_redis

pytestmark = [pytest.mark.slow, needs_redis, needs_nginx]


@pytest.fixture(scope="module")
def conformance_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("cluster")
    redis = RedisServer(tmp).start()
    try:
        argv = [sys.executable, str(SERVER), "--port", "{port}", "--store", redis.url]
        with cluster(tmp, argv) as running:
            yield running
    finally:
        redis.stop()


def run_suite(url: str, out: Path) -> dict[str, list[dict[str, object]]]:
    subprocess.run(
        [str(NODE24), str(HARNESS), "server", "--url", url, "--suite", "all", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return checks_of(out)


def test_every_server_scenario_passes_against_two_workers(conformance_cluster: Cluster, tmp_path: Path) -> None:
    results = run_suite(conformance_cluster.url, tmp_path)
    assert len(results) == SUITE_ALL_SIZE, sorted(results)
    failed = {s: failures(checks) for s, checks in results.items() if failures(checks)}
    assert not failed, f"{failed}\n{conformance_cluster.logs()[-4000:]}"
    below = below_floor(results, SERVER_FLOORS)
    assert not below, below
    conformance_cluster.assert_alive()


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_every_alpha_scenario_passes_against_two_workers(
    conformance_cluster: Cluster, version: str, tmp_path: Path
) -> None:
    url = conformance_cluster.url
    results = run_alpha(url, version, tmp_path / "all")
    assert sorted(results) == sorted(EXPECTED[version])
    for scenario in [s for s, checks in results.items() if failures(checks) and s in TIMING_SENSITIVE]:
        rerun = run_alpha(url, version, tmp_path / scenario, scenario).get(scenario, [])
        assert rerun, f"the re-run of {scenario} produced no checks"
        results[scenario] = rerun
    failed = {s: failures(checks) for s, checks in results.items() if failures(checks)}
    assert not failed, f"{failed}\n{conformance_cluster.logs()[-4000:]}"
    passed_none = {s for s, checks in results.items() if not any(c.get("status") == "SUCCESS" for c in checks)}
    assert passed_none <= INFO_ONLY, passed_none
    below = below_floor(results, FLOORS[version])
    assert not below, below
    conformance_cluster.assert_alive()
