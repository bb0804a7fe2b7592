"""A `kind = "docs"` target in [tool.mcpgen]: written by `mcpgen generate`, held current by `--check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildsteps_support import ALERTS, FORECAST, cli, write_json

PYPROJECT = """\
[project]
name = "sample"

[tool.mcpgen.targets.weather-docs]
kind = "docs"
source = "schemas/weather.json"
output = "docs/weather"
"""


def test_docs_target_is_written_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [FORECAST, ALERTS]})
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["generate"], capsys)
    assert code == 0, err
    out = tmp_path / "docs" / "weather"
    manifest = json.loads((out / ".mcpgen-manifest.json").read_text())
    assert manifest["kind"] == "docs" and manifest["options"] == {"templates": None}
    assert 'id="tool-get-forecast"' in (out / "index.html").read_text()
    assert cli(["generate", "--check"], capsys)[0] == 0

    edited = json.loads(json.dumps(FORECAST))
    edited["description"] = "Forecast for a city, by day."
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [edited, ALERTS]})
    code, out_text, err = cli(["generate", "--check"], capsys)
    assert code == 1 and "out of date" in err
    assert {line.split()[-1].rsplit("/", 1)[-1] for line in out_text.splitlines()} >= {"index.html", "reference.md"}
    assert "by day" not in (out / "index.html").read_text()  # --check writes nothing


def test_python_options_on_a_docs_target_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(tmp_path / "schemas" / "weather.json", {"tools": [FORECAST]})
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + 'runtime = "vendor"\nsync = false\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["generate"], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2 and all(line.startswith("mcpgen: error: ") for line in lines)
    assert "'runtime' applies to client and server targets only" in err and "'sync' applies to client" in err
    assert not (tmp_path / "docs").exists()
