"""`formatter = "black"` / `--formatter black`: black writes the generated Python, the manifest
names it, --check is stable with it and reports a switch of formatter as stale output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildsteps_support import ALERTS, FORECAST, cli, tree, write_json

from mcpgen.output import unchanged
from mcpgen.output.installed import installed_version
from mcpgen.output.manifest import MANIFEST_NAME
from mcpgen.quick_check import quick_check

PYPROJECT = """\
[project]
name = "sample"

[tool.mcpgen]
formatter = "black"

[tool.mcpgen.targets.weather]
kind = "client"
source = "schemas/weather.json"
output = "weather_client"

[tool.mcpgen.targets.weather-server]
kind = "server"
source = ["schemas"]
output = "weather_server"
"""

PACKAGES = ("weather_client", "weather_server")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [FORECAST, ALERTS]})
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["generate"], capsys)
    assert code == 0, err
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.slow
def test_black_check_and_mypy_strict_pass_on_packages_black_formatted(project: Path) -> None:
    black = _run([sys.executable, "-m", "black", "--check", "--line-length", "100", *PACKAGES], project)
    assert black.returncode == 0, black.stdout + black.stderr
    assert "would be left unchanged" in black.stderr
    mypy = _run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *PACKAGES], project)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_the_manifest_names_black_and_its_version(project: Path) -> None:
    for package in PACKAGES:
        doc = json.loads((project / package / MANIFEST_NAME).read_text())
        assert (doc["formatter"], doc["formatter_version"]) == ("black", installed_version("black"))
        assert doc["formatter_version"] != "unknown"


def test_check_is_stable_with_black_and_the_flag_writes_the_same_bytes(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree(project)
    code, out, err = cli(["generate", "--check"], capsys)
    assert code == 0, out + err
    assert tree(project) == before
    # `mcpgen client --formatter black` is the same target from flags: the same bytes.
    other = tmp_path_factory.mktemp("flags") / "weather_client"
    schema = str(project / "schemas" / "weather.json")
    code, _, err = cli(["client", schema, "-o", str(other), "--formatter", "black"], capsys)
    assert code == 0, err
    assert tree(other) == tree(project / "weather_client")


def test_switching_formatter_makes_check_report_the_output_stale(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(unchanged.TRUST_ENV, "1")
    assert quick_check(["generate", "--check"]) == 0  # black's output, settled by its manifest
    capsys.readouterr()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('formatter = "black"', 'formatter = "ruff"'))
    # The quick path steps aside: the manifest names another formatter than the target's.
    assert quick_check(["generate", "--check"]) is None
    code, out, err = cli(["generate", "--check", "--target", "weather"], capsys)
    assert code == 1, out + err
    assert f"changed  weather_client/{MANIFEST_NAME}" in out  # the manifest names another formatter
    assert "weather_client is out of date" in err


def test_a_target_may_choose_its_own_formatter(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('output = "weather_client"', 'output = "weather_client"\nformatter = "ruff"')
    pyproject.write_text(text)
    code, out, err = cli(["generate"], capsys)
    assert code == 0, out + err
    client = json.loads((project / "weather_client" / MANIFEST_NAME).read_text())
    server = json.loads((project / "weather_server" / MANIFEST_NAME).read_text())
    assert (client["formatter"], server["formatter"]) == ("ruff", "black")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        pytest.param(('formatter = "black"', 'formatter = "yapf"'), "'formatter' must be one of ruff, black", id="top"),
        pytest.param(
            ('output = "weather_client"', 'output = "weather_client"\nformatter = 1'),
            "'formatter' must be a string",
            id="target",
        ),
    ],
)
def test_a_bad_formatter_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], message: str
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(*edit))
    code, _, err = cli(["generate"], capsys)
    assert code == 2
    assert message in err


def test_black_missing_is_one_line_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = write_json(tmp_path / "weather.json", {"tools": [FORECAST]})
    monkeypatch.setitem(sys.modules, "black", None)  # `import black` raises ImportError
    code, _, err = cli(["client", str(schema), "-o", str(tmp_path / "out"), "--formatter", "black"], capsys)
    assert code == 2
    assert "black formatter is not installed (pip install 'mcpgen[black]')" in err
    assert not (tmp_path / "out").exists()
