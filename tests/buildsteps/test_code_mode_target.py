"""`layout = "code-mode"` in a [tool.mcpgen] target: the same package `--layout code-mode` makes,
checked by `--check` like any other target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildsteps_support import ALERTS, FORECAST, cli, write_json

PYPROJECT = """\
[tool.mcpgen.targets.weather]
kind = "client"
source = "schemas/weather.json"
output = "weather_tools"
layout = "code-mode"
"""


def test_code_mode_target_generates_and_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [FORECAST, ALERTS]})
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["generate"], capsys)
    assert code == 0, err
    tools = sorted(p.name for p in (tmp_path / "weather_tools" / "tools").glob("*.py"))
    assert tools == ["__init__.py", "get_alerts.py", "get_forecast.py"]
    manifest = json.loads((tmp_path / "weather_tools" / ".mcpgen-manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["layout"] == "code-mode" and manifest["options"]["name"] == "weather_tools"
    code, _, err = cli(["generate", "--check"], capsys)
    assert code == 0 and "up to date" in err
    # The flat layout is another package: --check says which files differ.
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('layout = "code-mode"\n', ""), encoding="utf-8")
    code, _, err = cli(["generate", "--check"], capsys)
    assert code == 1 and "tools/get_forecast.py" in err + _


@pytest.mark.parametrize(
    ("extra", "message"),
    [('layout = "tree"', "'layout' must be one of flat, code-mode"), ("", "'layout' applies to client targets only")],
)
def test_bad_layout_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], extra: str, message: str
) -> None:
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [FORECAST]})
    text = PYPROJECT.replace('layout = "code-mode"', extra) if extra else PYPROJECT.replace('"client"', '"server"')
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["generate"], capsys)
    assert code == 2 and message in err, err
