"""The bundled examples are what the current generator makes of their schemas (`--check`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TARGETS = {
    "weather_server": ["server", "weather/schemas", "-o", "weather/weather_server"],
    "conformance_server": ["server", "conformance/schemas", "-o", "conformance/conformance_server"],
    "conformance_client": ["client", "conformance/client_tools.yaml", "-o", "conformance/conformance_client"],
}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_example_is_up_to_date(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(EXAMPLES)
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main([*TARGETS[name], "--check"])
    out, err = capsys.readouterr()
    assert ei.value.code == 0, out + err
    assert "up to date" in out + err
