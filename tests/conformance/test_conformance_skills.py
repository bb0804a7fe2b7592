"""The alpha harness's (0.2.0-alpha.12) Skills extension scenarios (SEP-2640, `[extension]`):
the 3 server scenarios against examples/conformance's server (which serves
examples/conformance/skills through its handlers.py's SKILLS_DIR) and the 4 client scenarios
with the generated-client driver (examples/conformance/client.py). Each must pass with no
SKIPPED check: a scenario whose extension is not declared skips every check, which is no pass."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_conformance import (  # noqa: F401 (server_url is a fixture)
    ALPHA,
    NODE24,
    checks_of,
    not_passed,
    run_client_scenario,
    run_server_scenarios,
    server_url,
    successes,
)

# The checks each scenario passed when measured (alpha.12): floors, so that checks that silently
# stopped running fail the test.
SERVER_SCENARIOS = {"sep-2640-skills-directory": 7, "sep-2640-skills-enumeration": 32, "sep-2640-skills-manifest": 6}
CLIENT_SCENARIOS = {
    "sep-2640-client-no-prefetch": 1,
    "sep-2640-client-verify-digest": 1,
    "sep-2640-client-verify-size": 1,
    "sep-2640-client-verify-frontmatter": 1,
}


def skipped(checks: list[dict[str, Any]]) -> list[str]:
    return [f"{c.get('id')}: {c.get('errorMessage')}" for c in checks if c.get("status") == "SKIPPED"]


def judge(checks: list[dict[str, Any]], floor: int) -> None:
    assert checks, "the scenario produced no checks"
    assert not skipped(checks), skipped(checks)
    assert not not_passed(checks), not_passed(checks)
    assert successes(checks) >= floor, checks


@pytest.mark.slow
def test_the_harness_lists_exactly_these_skills_scenarios() -> None:
    for side, expected in (("--server", SERVER_SCENARIOS), ("--client", CLIENT_SCENARIOS)):
        listed = subprocess.run([str(NODE24), str(ALPHA), "list", side], capture_output=True, text=True, timeout=60)
        assert set(re.findall(r"^  - (sep-2640-\S+)", listed.stdout, re.M)) == set(expected), side


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(SERVER_SCENARIOS))
def test_the_skills_server_scenarios_pass_with_no_skipped_check(
    server_url: str,  # noqa: F811
    scenario: str,
    tmp_path: Path,
) -> None:
    # No --spec-version: an extension scenario is on no spec's timeline (the harness skips it
    # there). It negotiates the newest version, 2026-07-28, whose cache attributes it judges.
    results = run_server_scenarios(server_url, tmp_path, scenario=scenario, timeout=300)
    judge(results.get(scenario, []), SERVER_SCENARIOS[scenario])


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(CLIENT_SCENARIOS))
def test_the_skills_client_scenarios_pass_with_no_skipped_check(scenario: str, tmp_path: Path) -> None:
    judge(run_client_scenario(scenario, tmp_path, ALPHA), CLIENT_SCENARIOS[scenario])
