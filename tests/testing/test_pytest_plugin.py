"""The pytest plugin, through pytester: markers pick a mock, a replay or a server object, the
fixtures give a connected generated client, misuse gets one clear line, typed results that
differ are explained field by field; loading it imports nothing but pytest."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from kit_support import SOURCES, load

from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.testing.cassette import CassetteWriter, Redactor

pytest_plugins = ["pytester"]

CANNED = {"timezone": "Mars/Olympus", "datetime": "2026-01-01T00:00:00Z", "day_of_week": "Thursday", "is_dst": False}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A client generated from the time capture, once for the module."""
    folder = tmp_path_factory.mktemp("time_client")
    write_atomic(generate_client(load("time"), ClientOptions()), folder / "client")
    return folder / "client"


@pytest.fixture
def project(pytester: pytest.Pytester, generated: Path) -> str:
    """A user's project: the time capture, a generated client (a fresh name), an overrides file."""
    name = f"time_client_{uuid.uuid4().hex[:8]}"
    shutil.copytree(generated, pytester.path / name)
    shutil.copy(SOURCES["time"], pytester.path / "time.json")
    (pytester.path / "overrides.json").write_text(
        json.dumps({"tools": {"get_current_time": {"structured": CANNED}}}), encoding="utf-8"
    )
    pytester.syspathinsert()
    return name


def test_a_mock_marker_gives_a_connected_generated_client(pytester: pytest.Pytester, project: str) -> None:
    pytester.makepyfile(
        f"""
        import pytest
        from {project} import Client, models

        @pytest.mark.mcpgen_mock("time.json", client=Client)
        def test_drawn(mcpgen_client):
            result = mcpgen_client.get_current_time(timezone="UTC")
            assert isinstance(result, models.GetCurrentTimeResult)

        @pytest.mark.mcpgen_mock("time.json", client=Client, overrides="overrides.json", protocol="legacy")
        def test_canned(mcpgen_client):
            assert mcpgen_client.session.era == "legacy"
            assert mcpgen_client.get_current_time(timezone="UTC").timezone == "Mars/Olympus"
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_replay_marker_serves_a_cassette_and_a_changed_schema_fails_naming_the_tool(
    pytester: pytest.Pytester, project: str
) -> None:
    catalog = load("time")
    writer = CassetteWriter(pytester.path / "time.jsonl", catalog, Redactor(), redacted_headers=[])
    params = {"name": "get_current_time", "arguments": {"timezone": "UTC"}}
    writer.exchange("tools/call", params, result={"content": [], "structuredContent": CANNED, "isError": False})
    writer.close()
    changed = json.loads(SOURCES["time"].read_text(encoding="utf-8"))
    for tool in changed["tools"]["tools"]:
        if tool["name"] == "get_current_time":
            tool["outputSchema"]["required"].append("utc_offset")
    (pytester.path / "changed.json").write_text(json.dumps(changed), encoding="utf-8")
    pytester.makepyfile(
        f"""
        import pytest
        from {project} import Client

        @pytest.mark.mcpgen_replay("time.jsonl", client=Client)
        def test_replayed(mcpgen_client):
            assert mcpgen_client.get_current_time(timezone="UTC").timezone == "Mars/Olympus"

        @pytest.mark.mcpgen_replay("time.jsonl", source="changed.json", client=Client)
        def test_changed(mcpgen_client):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*the cassette does not fit its catalog*", "*'get_current_time'*outputSchema changed*"]
    )


def test_a_server_marker_connects_to_the_factorys_server(pytester: pytest.Pytester, project: str) -> None:
    pytester.makepyfile(
        f"""
        import pytest
        from mcpgen.runtime import Server
        from {project} import Client

        def make():
            server = Server("handmade", "1")
            async def now(arguments, ctx):
                return {{"content": [], "structuredContent": {CANNED!r}, "isError": False}}
            server.add_tool({load("time").tools[0].raw!r}, now)
            return server

        @pytest.mark.mcpgen_server(make, client=Client)
        def test_handmade(mcpgen_client, mcpgen_server):
            assert mcpgen_server.info["name"] == "handmade"
            assert mcpgen_client.get_current_time(timezone="UTC").day_of_week == "Thursday"
        """
    )
    assert load("time").tools[0].name == "get_current_time"
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_misuse_gets_one_clear_line(pytester: pytest.Pytester, project: str) -> None:
    pytester.makepyfile(
        """
        import pytest

        def test_no_marker(mcpgen_client):
            pass

        @pytest.mark.mcpgen_mock("time.json")
        def test_no_client_class(mcpgen_client):
            pass

        @pytest.mark.mcpgen_mock("time.json", overrides="missing.json")
        def test_bad_overrides(mcpgen_server):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*mcpgen: mcpgen_server needs a marker saying what to talk to*",
            "*mcpgen: mcpgen_client needs the generated client class: pass client=*",
            "*mcpgen: *missing.json*cannot read*",
        ],
        consecutive=False,
    )


def test_typed_results_that_differ_are_explained_field_by_field(pytester: pytest.Pytester, project: str) -> None:
    pytester.makepyfile(
        f"""
        import pytest
        from {project} import Client, models

        @pytest.mark.mcpgen_mock("time.json", client=Client, overrides="overrides.json")
        def test_compare(mcpgen_client):
            expected = models.GetCurrentTimeResult.model_validate({{**{CANNED!r}, "timezone": "Europe/Oslo"}})
            assert mcpgen_client.get_current_time(timezone="UTC") == expected
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*GetCurrentTimeResult results differ:*", "*timezone: 'Mars/Olympus' != 'Europe/Oslo'*"]
    )


def test_the_plugin_is_registered_and_loads_nothing_but_pytest() -> None:
    from importlib.metadata import entry_points

    assert [e.value for e in entry_points(group="pytest11") if e.name == "mcpgen"] == ["mcpgen.testing.pytest_plugin"]
    code = (
        "import sys, mcpgen.testing.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('mcpgen.', 'jsonschema', 'pydantic', 'click'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "['mcpgen.testing', 'mcpgen.testing.pytest_plugin']", done.stderr
