"""The alpha harness's (0.2.0-alpha.12) auth/* client scenarios against the generated-client
driver (examples/conformance/client.py, which logs in through mcpgen.runtime.client.auth.OAuth):
every non-extension scenario at 2025-11-25 and 2026-07-28, the two 2025-03-26 back-compat ones,
the client-credentials extensions (secret and private_key_jwt), and the auth extensions (DPoP with
and without nonces, enterprise-managed authorization, workload identity federation)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_conformance import ALPHA, CLIENT, LOOPBACK, NODE24, checks_of, not_passed

# 25 scenarios of 5-40 seconds each (scope-retry-limit waits out the client's retries).
pytestmark = pytest.mark.timeout(900)

VERSIONS = ["2025-11-25", "2026-07-28"]
# What `list --client --spec-version V` names (auth/ only) must be run; these are the others.
BACK_COMPAT = ["auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"]
EXTENSIONS = ["auth/client-credentials-basic", "auth/client-credentials-jwt"]
AUTH_EXTENSIONS = [
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/enterprise-managed-authorization",
    "auth/wif-jwt-bearer",
]
# SUCCESS checks measured when this test was written; fewer means checks silently stopped running.
MIN_SUCCESS = {"2025-11-25": 245, "2026-07-28": 365, "2025-03-26": 19, "extension": 16, "auth-extension": 43}


def listed(version: str) -> list[str]:
    done = subprocess.run(
        [str(NODE24), str(ALPHA), "list", "--client", "--spec-version", version],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [name for name, kinds in re.findall(r"^  - (auth/\S+) \[(.*)\]$", done.stdout, re.M) if kinds != "extension"]


def run(scenario: str, version: str | None, out: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "NODE_OPTIONS": f"--require {LOOPBACK} --no-deprecation"}
    which = ["--spec-version", version] if version else []
    command = [str(NODE24), str(ALPHA), "client", "--command", f"{sys.executable} {CLIENT}", "--scenario", scenario]
    subprocess.run([*command, *which, "-o", str(out)], capture_output=True, text=True, timeout=180, env=env)
    found = checks_of(out)
    return next(iter(found.values()), [])


def run_all(jobs: list[tuple[str, str | None]], tmp: Path) -> dict[str, list[dict[str, Any]]]:
    # Three at a time: each run is a Node harness and a Python client, mostly waiting on each other.
    with ThreadPoolExecutor(3) as pool:
        futures = {
            scenario: pool.submit(run, scenario, version, tmp / scenario.replace("/", "_"))
            for scenario, version in jobs
        }
        return {scenario: future.result() for scenario, future in futures.items()}


def judge(results: dict[str, list[dict[str, Any]]], floor: int) -> None:
    missing = [s for s, checks in results.items() if not checks]
    assert not missing, f"no results for {missing}"
    failed = {s: not_passed(checks) for s, checks in results.items() if not_passed(checks)}
    assert not failed, failed
    assert all(any(c.get("status") == "SUCCESS" for c in checks) for checks in results.values())
    passed = sum(c.get("status") == "SUCCESS" for checks in results.values() for c in checks)
    print(f"{len(results)} scenarios, {passed} checks passed")
    assert passed >= floor, passed


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_every_auth_scenario_of_the_spec_version_passes(version: str, tmp_path: Path) -> None:
    scenarios = listed(version)
    assert len(scenarios) == {"2025-11-25": 14, "2026-07-28": 25}[version], scenarios
    judge(run_all([(s, version) for s in scenarios], tmp_path), MIN_SUCCESS[version])


@pytest.mark.slow
def test_the_2025_03_26_back_compat_scenarios_pass(tmp_path: Path) -> None:
    judge(run_all([(s, "2025-03-26") for s in BACK_COMPAT], tmp_path), MIN_SUCCESS["2025-03-26"])


@pytest.mark.slow
def test_the_client_credentials_extensions_pass(tmp_path: Path) -> None:
    judge(run_all([(s, None) for s in EXTENSIONS], tmp_path), MIN_SUCCESS["extension"])


@pytest.mark.slow
def test_the_auth_extensions_pass_with_no_skipped_check(tmp_path: Path) -> None:
    results = run_all([(s, None) for s in AUTH_EXTENSIONS], tmp_path)
    skipped = {s: [c.get("id") for c in checks if c.get("status") == "SKIPPED"] for s, checks in results.items()}
    assert not any(skipped.values()), skipped
    judge(results, MIN_SUCCESS["auth-extension"])
    # Each extension's own checks ran (not only the discovery every scenario shares).
    ran = {c.get("id") for checks in results.values() for c in checks if c.get("status") == "SUCCESS"}
    own = {"sep-1932-client-rs-nonce", "sep-1932-client-as-nonce", "complete-flow-jwt-bearer", "wif-assertion-verified"}
    assert own <= ran, own - ran


@pytest.mark.slow
def test_27_non_extension_auth_scenarios_are_covered() -> None:
    every = set(listed("2025-11-25")) | set(listed("2026-07-28")) | set(BACK_COMPAT)
    assert len(every) == 27
