"""`mcpgen server` writes a contract test once: a fresh scaffold's run reports the unimplemented
handlers as expected failures; a handler returning what its outputSchema refuses fails, naming
the tool; the user's edits survive regeneration."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "examples/weather"


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def pytest_in(folder: Path) -> subprocess.CompletedProcess[str]:
    """What a user does: plain `pytest` in the output folder."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def scaffold(tmp_path: Path) -> Path:
    shutil.copytree(WEATHER / "schemas", tmp_path / "schemas")
    done = mcpgen("server", "schemas", "-o", "weather_server", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "test_weather_server_contract.py" in done.stderr
    return tmp_path / "weather_server"


@pytest.mark.slow
def test_a_fresh_scaffold_reports_unimplemented_handlers_as_expected_failures(scaffold: Path) -> None:
    run = pytest_in(scaffold)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = run.stdout.strip().splitlines()[-1]
    # 3 tools x 2 eras x 3 valid draws are xfail; each tool's invalid-arguments case passes
    # (arguments are checked before a handler runs, implemented or not).
    assert "18 xfailed" in summary and "6 passed" in summary and "failed" not in summary.replace("xfailed", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        # a plain value the Result model refuses: the adapter cannot send it
        ("{'city': 42} or ", "tool 'get-forecast' failed with valid arguments"),
        # a model built without validation: it is sent, and its JSON breaks the outputSchema
        (
            "models.GetForecastResult.model_construct(city=args.city, days='soon') or ",
            "tool 'get-forecast' returned a result its outputSchema refuses",
        ),
    ],
)
def test_a_handler_that_breaks_its_output_schema_fails_naming_the_tool(
    scaffold: Path, wrong: str, message: str
) -> None:
    handlers = (WEATHER / "weather_server/handlers.py").read_text(encoding="utf-8")
    (scaffold / "handlers.py").write_text(handlers, encoding="utf-8")
    assert pytest_in(scaffold).returncode == 0  # the example's handlers keep the contract
    anchor = "return models.GetForecastResult.model_validate("
    broken = handlers.replace(anchor, "return " + wrong + anchor[len("return ") :])
    assert broken != handlers
    (scaffold / "handlers.py").write_text(broken, encoding="utf-8")
    run = pytest_in(scaffold)
    assert run.returncode == 1
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED")]
    assert failed and all("get-forecast" in line for line in failed)
    assert message in run.stdout


@pytest.mark.slow
def test_the_contract_file_is_the_users_after_it_is_written(scaffold: Path) -> None:
    contract = scaffold / "test_weather_server_contract.py"
    mine = contract.read_text(encoding="utf-8") + "\n# my own addition\n"
    contract.write_text(mine, encoding="utf-8")
    done = mcpgen("server", "schemas", "-o", "weather_server", cwd=scaffold.parent)
    assert done.returncode == 0, done.stderr
    assert contract.read_text(encoding="utf-8") == mine
    check = mcpgen("server", "schemas", "-o", "weather_server", "--check", cwd=scaffold.parent)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
def test_the_examples_keep_their_contract() -> None:
    """The bundled servers' own contract files (tools that ask for sampling and elicitation too)."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "examples/weather/weather_server",
            "examples/conformance/conformance_server",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert "xfail" not in run.stdout.strip().splitlines()[-1]
