"""`mcpgen lint`: each provider rule fires on the feature its documentation names (and cites it),
strict-mode rules are warnings, and `--fix` rewrites schemas into ones that accept exactly the
same instances (checked on instances drawn from both, valid and invalid)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen.catalog.instances import InstanceGenerator
from mcpgen.catalog.portability import RULES, NotPortable, lint_tools, portable

OK_TOOL: dict[str, Any] = {
    "name": "get_weather",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string", "pattern": "^[A-Za-z ]+$"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


def _tool(name: str = "get_weather", **schema: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": schema}


# rule id -> (a tool that breaks exactly this rule, the pointer the finding names, the Gemini field)
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "openai-name": ({**OK_TOOL, "name": "weather.get"}, "/name", "parametersJsonSchema"),
    "anthropic-name": ({**OK_TOOL, "name": "w" * 65}, "/name", "parametersJsonSchema"),
    "gemini-name": ({**OK_TOOL, "name": "1weather"}, "/name", "parametersJsonSchema"),
    "openai-root-object": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "anyOf": [{}]}},
        "/inputSchema/anyOf",
        "parametersJsonSchema",
    ),
    "anthropic-root-object": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "oneOf": [{"required": ["city"]}]}},
        "/inputSchema/oneOf",
        "parametersJsonSchema",
    ),
    "gemini-root-object": ({**OK_TOOL, "inputSchema": {"type": "array"}}, "/inputSchema/type", "parametersJsonSchema"),
    "gemini-parameters-root-object": (
        {**OK_TOOL, "inputSchema": {"type": "string"}},
        "/inputSchema/type",
        "parameters",
    ),
    "openai-strict": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "required": []}},
        "/inputSchema/properties/city",
        "parametersJsonSchema",
    ),
    "gemini-keyword": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "$defs": {}}},
        "/inputSchema/$defs",
        "parameters",
    ),
    "gemini-type-list": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "properties": {"city": {"type": ["string", "integer"]}}}},
        "/inputSchema/properties/city/type",
        "parameters",
    ),
    "gemini-enum": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "properties": {"city": {"enum": [1, 2]}}}},
        "/inputSchema/properties/city/enum",
        "parameters",
    ),
    "gemini-subschema-object": (
        {**OK_TOOL, "inputSchema": {**OK_TOOL["inputSchema"], "properties": {"city": True}}},
        "/inputSchema/properties/city",
        "parameters",
    ),
}


def _gemini_clean(tool: dict[str, Any]) -> dict[str, Any]:
    # Gemini's subset has no additionalProperties: the baseline tool without it, for Gemini only.
    out = copy.deepcopy(tool)
    out["inputSchema"].pop("additionalProperties", None)
    return out


def test_the_baseline_tool_passes_every_provider() -> None:
    assert lint_tools([OK_TOOL], ["openai", "anthropic", "gemini"]) == []
    assert lint_tools([_gemini_clean(OK_TOOL)], ["gemini"], "parameters") == []


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_each_rule_fires_on_its_feature_and_cites_its_source(rule_id: str) -> None:
    tool, pointer, field = CASES[rule_id]
    rule = RULES[rule_id]
    if rule.provider == "gemini":
        tool = _gemini_clean(tool)
    findings = lint_tools([tool], [rule.provider], field)
    assert [(f.rule.id, f.pointer) for f in findings] == [(rule_id, pointer)], findings
    assert rule.source.startswith("https://") and rule.source in findings[0].line()
    assert rule.severity == ("warning" if "strict" in rule_id or "name" in rule_id else "error")


def test_every_rule_is_exercised() -> None:
    assert set(CASES) == set(RULES)


# ---- --fix ----------------------------------------------------------------------------------

FIXABLE: list[dict[str, Any]] = [
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "where": {"$ref": "#/$defs/Place"},
            "also": {"$ref": "#/$defs/Place", "description": "prose only"},
            "near": {"$ref": "#/$defs/Place", "required": ["zip"]},  # a sibling that validates
            "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "maxItems": 3},
        },
        "required": ["where"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"city": {"type": "string", "maxLength": 5}, "zip": {"$ref": "#/$defs/Zip"}},
                "required": ["city"],
            },
            "Zip": {"type": "string", "pattern": "^[0-9]{5}$"},
            "Tag": {"enum": ["a", "b", 3]},
        },
    },
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"n": {"$ref": "#/definitions/N", "maximum": 0}},  # draft 7 ignores the sibling
        "definitions": {"N": {"type": "integer", "minimum": 1, "maximum": 9}},
        "additionalProperties": False,
    },
]


def _validator(schema: dict[str, Any]) -> Any:
    return jsonschema.validators.validator_for(schema)(schema)


@pytest.mark.parametrize("index", range(len(FIXABLE)))
def test_fix_accepts_exactly_what_the_original_accepts(index: int) -> None:
    original = FIXABLE[index]
    fixed = portable(original)
    text = json.dumps(fixed)
    assert "$ref" not in text and "$defs" not in text and "definitions" not in text and "$schema" not in text
    old, new = _validator(original), jsonschema.Draft202012Validator(fixed)
    instances: list[Any] = []
    for seed in range(6):
        for schema in (original, fixed):
            gen = InstanceGenerator(schema, seed=seed)
            instances += gen.valid_many(5) + gen.invalid_many(5)
    valid = [i for i in instances if old.is_valid(i)]
    assert len(valid) >= 20 and len(instances) - len(valid) >= 20  # both sides well sampled
    disagree = [i for i in instances if old.is_valid(i) != new.is_valid(i)]
    assert not disagree, disagree[:3]


@pytest.mark.parametrize(
    "schema, reason",
    [
        ({"type": "object", "properties": {"next": {"$ref": "#"}}}, "recursive"),
        ({"type": "object", "properties": {"x": {"$ref": "other.json#/A"}}}, "leaves the document"),
        ({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}}, "does not resolve"),
        ({"type": "object", "properties": {"x": {"$id": "https://e.example/x", "$ref": "#/A"}}}, "nested $id"),
    ],
)
def test_fix_refuses_what_it_cannot_rewrite_exactly(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(NotPortable, match=reason.replace("$", r"\$")):
        portable(schema)


def _lint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "lint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_lint_command_exit_codes_and_fix(tmp_path: Path) -> None:
    warn_only = copy.deepcopy(OK_TOOL)
    warn_only["inputSchema"]["required"] = []
    (tmp_path / "warn.json").write_text(json.dumps({"tools": [warn_only]}))
    done = _lint("warn.json", "--provider", "openai", cwd=tmp_path)
    assert done.returncode == 0 and "warning: openai" in done.stdout and "1 finding: 0 errors, 1 warning" in done.stdout

    (tmp_path / "refs.json").write_text(json.dumps({"tools": [{"name": "find", "inputSchema": FIXABLE[0]}]}))
    done = _lint("refs.json", "--provider", "gemini", cwd=tmp_path)
    assert done.returncode == 0, done.stdout  # parametersJsonSchema takes $ref
    done = _lint("refs.json", "--provider", "gemini", "--gemini-field", "parameters", cwd=tmp_path)
    assert done.returncode == 1 and "'$ref' is not supported" in done.stdout
    done = _lint("refs.json", "--provider", "anthropic", "--fix", "portable.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = json.loads((tmp_path / "portable.json").read_text())["tools"][0]["inputSchema"]
    assert fixed == portable(FIXABLE[0])
    done = _lint("refs.json", "--json", "--gemini-field", "parameters", cwd=tmp_path)
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and all(f["source"].startswith("https://") for f in doc)

    recursive = {"name": "tree", "inputSchema": {"type": "object", "properties": {"kid": {"$ref": "#"}}}}
    (tmp_path / "rec.json").write_text(json.dumps({"tools": [recursive]}))
    done = _lint("rec.json", "--provider", "gemini", "--gemini-field", "parameters", "--fix", "out.json", cwd=tmp_path)
    assert done.returncode == 1 and "not fixed: tree" in done.stderr and "recursive" in done.stderr
    assert json.loads((tmp_path / "out.json").read_text())["tools"][0] == recursive  # left as it was


def test_fix_refuses_an_exponential_expansion_quickly() -> None:
    # Each definition refers to the next four times: inlining would copy D10 4**10 times.
    refs = lambda i: [{"$ref": f"#/$defs/D{i + 1}"} for _ in range(4)]  # noqa: E731
    defs: dict[str, Any] = {f"D{i}": {"type": "array", "prefixItems": refs(i)} for i in range(10)}
    defs["D10"] = {"type": "integer"}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}
    with pytest.raises(NotPortable, match="grow the schema past"):
        portable(schema)
