"""`make demo` prints definitions every provider accepts: its steps 2 and 3 (examples/demo.py)
run in a copy of examples/weather, and the tool definitions its client hands each LLM API, as
printed and in full, pass the checkers written from each API's documentation."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from generation import REPO, imported
from llm_api_checkers import refusals

from mcpgen.runtime.client.llm_tools import LLM_FORMATS, AnthropicOptions, definition_name

PRINTED = re.compile(r"^tools for ([a-z-]+): (\[.*\]); refused: (\{.*\})$", re.M)


@pytest.mark.slow
def test_the_demo_prints_names_every_api_accepts_for_definitions_it_accepts(tmp_path: Path) -> None:
    weather = tmp_path / "weather"
    shutil.copytree(REPO / "examples/weather", weather, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "demo"
    made = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", "-o", str(out / "weather_client"), "--"]
        + [sys.executable, "-m", "weather_server"],
        cwd=weather,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out), os.environ.get("PYTHONPATH", "")])}
    ran = subprocess.run(
        [sys.executable, "use_client.py"], cwd=weather, env=env, capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    printed = {
        api: (ast.literal_eval(names), ast.literal_eval(refused)) for api, names, refused in PRINTED.findall(ran.stdout)
    }
    assert sorted(printed) == sorted(LLM_FORMATS), ran.stdout
    with imported(out, "weather_client") as pkg:
        catalog = pkg.AsyncClient._catalog  # what tool_definitions() reads (llm_host.py)
        for api in LLM_FORMATS:
            definitions = catalog.llm_definitions(api).tools
            assert printed[api] == ([definition_name(d, api) for d in definitions], {}), api
            assert len(definitions) == 3 and refusals(definitions, api) == [], api
        assert refusals(catalog.llm_definitions("gemini", None, "parameters").tools, "gemini", "parameters") == []
        every = AnthropicOptions(defer_loading=True, allowed_callers=["code_execution_20250825"], cache_control=True)
        assert refusals(catalog.llm_definitions("anthropic", every).tools, "anthropic") == []
    assert "weather.alert" not in ran.stdout.split("tools for", 1)[1]  # mapped: 'weather_alert'
