"""No silent renames: a name that is not the plain snake_case of its wire name (a keyword or member
stepped around, a collision numbered) is listed in one line after generation and in the manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from generation import cli_run, tool, write_json

from mcpgen.kinds import RENAMES_SHOWN


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return cli_run(args, capsys)


NESTED = {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}


def test_renames_are_listed_after_generation_and_in_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = [
        tool("get-x", {"class": {"type": "string"}, "plain-name": {"type": "string"}}),
        tool("get_x", {"edge": NESTED}),
        tool("list"),  # a builtin the generated annotations name
        tool("fetch", {"type": {"type": "string"}}),  # nothing renamed here: other builtins stay
    ]
    src = write_json(tmp_path / "tools.json", {"tools": tools})
    code, out, err = run_cli(["client", str(src), "-o", str(tmp_path / "c")], capsys)
    assert code == 0, err
    lines = err.splitlines()
    # scripts read this line: unchanged (11 files: 5, then _models/ with 4 tools and _shared)
    assert lines[-1] == f"wrote 11 files to {tmp_path / 'c'} (4 tools)"
    assert lines[-2] == (
        "mcpgen: renamed 4 names: get-x.class -> class_, get_x -> get_x_2, list -> list_, GetX2ArgsEdge.from -> from_"
    )
    manifest = json.loads((tmp_path / "c" / ".mcpgen-manifest.json").read_text())
    assert manifest["renames"] == [
        {"wire": "get-x.class", "python": "class_"},
        {"wire": "get_x", "python": "get_x_2"},
        {"wire": "list", "python": "list_"},
        {"wire": "GetX2ArgsEdge.from", "python": "from_"},
    ]


def test_a_server_lists_its_renames_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_json(tmp_path / "tools.json", {"tools": [tool("class"), tool("ok")]})
    code, _, err = run_cli(["server", str(src), "-o", str(tmp_path / "srv")], capsys)
    assert code == 0, err
    assert "mcpgen: renamed 1 name: class -> class_\n" in err
    manifest = json.loads((tmp_path / "srv" / ".mcpgen-manifest.json").read_text())
    assert manifest["renames"] == [{"wire": "class", "python": "class_"}]


def test_many_renames_are_cut_short_and_hostile_names_shown_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keywords = ["and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del"]
    tools = [tool(k) for k in keywords] + [tool("a_b"), tool("a\x1bb")]  # ESC sorts first: a_b -> a_b_2
    tools += [tool("ab\x7f"), tool("ab")]  # snake_case "ab", taken: shown as a repr, no raw DEL
    src = write_json(tmp_path / "tools.json", {"tools": tools})
    code, _, err = run_cli(["client", str(src), "-o", str(tmp_path / "c")], capsys)
    assert code == 0, err
    line = next(x for x in err.splitlines() if "renamed" in x)
    assert line.startswith("mcpgen: renamed 12 names: a_b -> a_b_2, 'ab\\x7f' -> ab_2, and -> and_, ")
    assert line.count(" -> ") == RENAMES_SHOWN
    assert line.endswith(f", and {12 - RENAMES_SHOWN} more (listed in .mcpgen-manifest.json)")
    assert "\x1b" not in err and "\x7f" not in err
    manifest = json.loads((tmp_path / "c" / ".mcpgen-manifest.json").read_text())
    assert len(manifest["renames"]) == 12 and {"wire": "ab\x7f", "python": "ab_2"} in manifest["renames"]


def test_nothing_renamed_nothing_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_json(tmp_path / "tools.json", {"tools": [tool("get-weather", {"cityName": {"type": "string"}})]})
    code, _, err = run_cli(["client", str(src), "-o", str(tmp_path / "c")], capsys)
    assert code == 0, err
    assert "mcpgen: renamed" not in err
    assert json.loads((tmp_path / "c" / ".mcpgen-manifest.json").read_text())["renames"] == []
