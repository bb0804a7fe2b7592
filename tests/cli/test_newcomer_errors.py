"""Errors a newcomer meets (issue 35, item 8), through the real `mcpgen` command: each says what
happened and exits as it should."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BAD = {"type": "object", "properties": {"a": {"type": "int"}}}


def mcpgen(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120, env=env
    )


def test_skip_invalid_with_every_tool_invalid_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    tools = [{"name": "one", "inputSchema": BAD}, {"name": "two"}]
    (tmp_path / "tools.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    for kind in ("client", "server"):
        done = mcpgen(kind, "tools.json", "-o", "out", "--skip-invalid", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "every tool is invalid: nothing left to generate" in done.stderr
        assert "'one'" in done.stderr and "'two'" in done.stderr
        assert not (tmp_path / "out").exists()


def test_skip_invalid_with_one_valid_tool_still_generates_it(tmp_path: Path) -> None:
    tools = [{"name": "one", "inputSchema": BAD}, {"name": "ok", "inputSchema": {"type": "object"}}]
    (tmp_path / "tools.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    done = mcpgen("client", "tools.json", "-o", "out", "--skip-invalid", cwd=tmp_path)
    assert done.returncode == 0 and "(1 tool)" in done.stderr, done.stderr


def test_lint_into_a_reader_that_stops_ends_quietly(tmp_path: Path) -> None:
    # Enough findings to fill the pipe many times over: lint is still writing when `head` goes.
    tools = [
        {"name": f"ns.tool{i}", "inputSchema": {"type": "object", "additionalProperties": False}} for i in range(3000)
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    argv = [sys.executable, "-m", "mcpgen.cli", "lint", "tools.json"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # `| head -1`
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert "ns.tool" in first
    assert "BrokenPipeError" not in err and "Traceback" not in err and "internal error" not in err


# A $ref cycle that never descends into the value: validation would recurse on the same value
# forever, so every value would be refused at run time ("nested too deeply to check").
_CYCLES = {
    "two refs": {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"},
    "itself": {"$defs": {"A": {"$ref": "#/$defs/A"}}, "properties": {"n": {"$ref": "#/$defs/A"}}},
    "anyOf": {"anyOf": [{"required": ["a"]}, {"$ref": "#"}]},
    "allOf": {
        "$defs": {"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"not": {"$ref": "#/$defs/A"}}},
        "properties": {"x": {"type": "array", "items": {"$ref": "#/$defs/B"}}},
    },
    "oneOf": {"$defs": {"A": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}}, "$ref": "#/$defs/A"},
    "if/then/else": {"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"$ref": "#"}},
}
# Recursion through a keyword that looks at a part of the value terminates: still generated.
_RECURSIVE = {
    "type": "object",
    "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}, "next": {"$ref": "#/$defs/N"}},
    "$defs": {"N": {"anyOf": [{"type": "null"}, {"$ref": "#"}]}},
}


def test_every_in_place_ref_cycle_is_found_once_at_its_first_ref() -> None:
    from mcpgen.catalog.checks import ref_problems

    for label, schema in _CYCLES.items():
        found = [(p, m) for p, m in ref_problems({"type": "object", **schema}) if "$ref cycle" in m]
        assert len(found) == 1, (label, found)
        assert found[0][0].endswith("/$ref"), (label, found)
    assert ref_problems(_RECURSIVE) == []
    # A cycle among definitions nothing uses never runs: it refuses nothing.
    assert ref_problems({"$defs": _CYCLES["two refs"]["$defs"], "type": "object"}) == []


def test_a_ref_cycle_is_refused_in_one_line_and_recursion_still_generates(tmp_path: Path) -> None:
    cyc = {"name": "cyc", "inputSchema": {"type": "object", **_CYCLES["two refs"]}}
    (tmp_path / "cyc.json").write_text(json.dumps(cyc), encoding="utf-8")
    done = mcpgen("client", "cyc.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "mcpgen: error: 'cyc'#/inputSchema/$defs/A/$ref: $ref '#/$defs/B' leads back to itself without "
        "descending into the value (a $ref cycle): no value could ever be checked against it"
    ]
    assert not (tmp_path / "out").exists()
    tree = {"name": "tree", "inputSchema": _RECURSIVE}
    (tmp_path / "tree.json").write_text(json.dumps(tree), encoding="utf-8")
    done = mcpgen("client", "tree.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0 and "(1 tool)" in done.stderr, done.stderr


def test_a_wrong_keyword_is_reported_once_however_many_meta_schema_parts_refuse_it(tmp_path: Path) -> None:
    # An array `items` (draft-07's form, in a 2020-12 schema) failed eight parts of the
    # meta-schema and printed the same line eight times.
    props = {"a": {"items": [{"type": "integer"}]}, "b": {"type": "int"}}
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": props}}
    (tmp_path / "t.json").write_text(json.dumps(tool), encoding="utf-8")
    done = mcpgen("client", "t.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == len(set(lines)) == 2, lines
    assert "#/inputSchema/properties/a/items: invalid JSON Schema: 'items' must be an object or a boolean" in lines[0]
    assert "#/inputSchema/properties/b/type: invalid JSON Schema: 'int' is not a JSON Schema type" in lines[1]


def test_schema_errors_print_the_same_lines_whatever_the_hash_seed(tmp_path: Path) -> None:
    # jsonschema walks a schema's properties in set order, which the hash seed picks (a CI run
    # once printed b's line before a's). Each bad property also fails eight meta-schema parts:
    # the limit on errors counts different ones, so the repeats of one never hide another.
    props = {name: {"items": [{"type": "integer"}]} for name in "abcdef"} | {"g": {"type": "int"}}
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": props}}
    (tmp_path / "t.json").write_text(json.dumps(tool), encoding="utf-8")
    outputs: set[str] = set()
    for seed in ("0", "1", "2", "3", "4"):
        done = mcpgen("client", "t.json", "-o", "out", cwd=tmp_path, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 2, done.stderr
        outputs.add(done.stderr)
    assert len(outputs) == 1, outputs
    lines = outputs.pop().splitlines()
    assert [line.split("#", 1)[1].split(":", 1)[0] for line in lines] == [
        *(f"/inputSchema/properties/{name}/items" for name in "abcdef"),
        "/inputSchema/properties/g/type",
    ], lines
