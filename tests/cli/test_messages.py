"""What the CLI says: errors that point at the fix (file, line, tool, pointer, plain words), one
`mcpgen: error:` line per problem and nothing else on failure, suggestions for misspelled
options, counts in the right number, and help with examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from generation import cli_run

from mcpgen.cli import cli as click_group


def run(args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path | None = None) -> tuple[int, str, str]:
    if cwd is not None:
        import os

        old = Path.cwd()
        os.chdir(cwd)
    try:
        return cli_run(args, capsys)
    finally:
        if cwd is not None:
            os.chdir(old)


def only_error_lines(err: str) -> list[str]:
    lines = err.strip().splitlines()
    assert lines, "no error was printed"
    assert all(line.startswith("mcpgen: error: ") for line in lines), err
    assert "Traceback" not in err and "errors.pydantic.dev" not in err
    return lines


def test_yaml_error_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\ninputSchema:\n  type: object\n  properties: [\n    a: 1\n  bad: : :\n")
    code, _, err = run(["client", str(bad), "-o", str(tmp_path / "out")], capsys)
    assert code == 2
    (line,) = only_error_lines(err)
    assert line.startswith(f"mcpgen: error: {bad}, line 6: invalid YAML: "), line
    assert not (tmp_path / "out").exists()


def test_json_error_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "tools": [\n    {"name": "x",}\n  ]\n}\n')
    code, _, err = run(["client", str(bad), "-o", str(tmp_path / "out")], capsys)
    (line,) = only_error_lines(err)
    assert code == 2 and line.startswith(f"mcpgen: error: {bad}, line 3: invalid JSON: "), line


def test_schema_errors_name_file_tool_pointer_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "tools.json"
    schema = {"type": "object", "required": "a", "properties": {"a": {"type": "strng"}, "b": {"minLength": -1}}}
    src.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
    code, _, err = run(["client", str(src), "-o", str(tmp_path / "out")], capsys)
    lines = only_error_lines(err)
    assert code == 2 and len(lines) == 3, lines  # every problem, one line each
    prefix = f"mcpgen: error: {src}: 't'#/inputSchema"
    assert f"{prefix}/properties/a/type: invalid JSON Schema: 'strng' is not a JSON Schema type (expected one of" in err
    assert f"{prefix}/required: invalid JSON Schema: 'required' must be an array, not a string" in err
    assert f"{prefix}/properties/b/minLength: invalid JSON Schema: 'minLength' must be at least 0, not -1" in err
    assert "is not valid under any of the given schemas" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["client", "{dir}/missing.json", "-o", "{dir}/out"],
        ["client", "{dir}/two.json", "-o", "{dir}/out"],
        ["client", "--url", "http://127.0.0.1:9/mcp", "--header", "nocolon", "-o", "{dir}/out"],
        ["inspect", "{dir}/two.json"],
        ["snapshot", "{dir}/two.json", "-o", "{dir}/snap.json"],
        ["client", "-o", "{dir}/out"],
        ["generate"],
    ],
    ids=["missing", "two-bad-tools", "bad-header", "inspect", "snapshot", "no-source", "bad-config"],
)
def test_failure_prints_only_error_lines(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"type": "object", "properties": {"a": {"type": 5}}}
    (tmp_path / "two.json").write_text(
        json.dumps(
            [{"name": "x", "inputSchema": bad}, {"name": "y", "inputSchema": {"type": "object"}, "title": 3}]
        ).replace('"title": 3', '"outputSchema": 4')
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpgen.targets.a]\nkind = "client"\nsource = "two.json"\noutput = "x"\nruntme = "vendor"\n'
    )
    code, out, err = run([a.format(dir=tmp_path) for a in args], capsys, cwd=tmp_path)
    assert code == 2 and out == ""
    only_error_lines(err)


def test_misspelled_options_get_a_suggestion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.json").write_text(json.dumps([{"name": "x", "inputSchema": {"type": "object"}}]))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpgen.targets.a]\nkind = "client"\nsource = "t.json"\noutput = "x"\nruntme = "vendor"\n'
    )
    code, _, err = run(["generate"], capsys, cwd=tmp_path)
    assert code == 2 and "unknown option 'runtme' (did you mean 'runtime'" in err, err
    code, _, err = run(["client", str(tmp_path / "t.json"), "-o", str(tmp_path / "o"), "--runtme", "vendor"], capsys)
    assert code == 2 and "--runtime" in err and "Did you mean" in err, err


def test_counts_are_in_the_right_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps([{"name": "x", "inputSchema": {"type": "object"}}]))
    out = tmp_path / "pkg"
    code, _, err = run(["client", str(src), "-o", str(out)], capsys)
    assert code == 0 and err.strip().endswith(f"to {out} (1 tool)") and "1 tools" not in err, err
    (out / "client.py").write_text("# edited\n")
    code, _, err = run(["client", str(src), "-o", str(out), "--check"], capsys)
    assert code == 1 and "(1 file differs)" in err, err
    code, _, err = run(["snapshot", str(src), "-o", str(tmp_path / "s.json")], capsys)
    assert code == 0 and "(1 tool, 0 prompts, 0 resources, 0 resource templates)" in err, err


def test_inspect_of_a_file_names_the_file_and_marks_optional_prompt_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "snap.json"
    prompt = {"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "tone"}]}
    src.write_text(json.dumps({"tools": [], "prompts": [prompt]}))
    code, out, _ = run(["inspect", str(src)], capsys)
    assert code == 0 and "server: ?" not in out and out.startswith(f"source: {src}\n"), out
    assert "greet   who, tone?" in out, out


@pytest.mark.parametrize("command", sorted(click_group.commands))
def test_help_has_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0 and "Examples:\n" in out and f"  mcpgen {command} " in out, out
    if command in ("client", "server", "inspect", "snapshot"):
        assert out.startswith(f"Usage: mcpgen {command} [OPTIONS]") and "[-- COMMAND [ARGS]...]" in out.splitlines()[0]
