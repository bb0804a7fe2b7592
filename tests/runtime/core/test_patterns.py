"""Issue 34 rule 6: no pattern from a schema runs in a backtracking engine.

The structural test puts a catastrophic pattern in every position a pattern can sit and runs
every reader of patterns on a hostile string, with Python's `re` rigged to fail the test if it
is ever handed that pattern: each reader must give RE2's verdict (runtime/core/patterns.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcpgen.catalog.build import build_catalog
from mcpgen.catalog.instances import InstanceGenerator, Unsatisfiable
from mcpgen.runtime.core.patterns import compile_pattern, pattern_problem
from mcpgen.runtime.core.validation import compile_problems, exact_problems, fast_check

EVIL = "^(a+)+$"  # exponential in Python's re on "aaaa...!"
HOSTILE = "a" * 40 + "!"
JSTS = Path("/work/shared/jsts/tests")
HERE_JSTS = Path(__file__).resolve().parents[2] / "models" / "jsts"

S = {"type": "string", "pattern": EVIL}
D7 = "http://json-schema.org/draft-07/schema#"
PP = {"patternProperties": {EVIL: {}}}
REF_PP = {"$defs": {"p": PP}, "$ref": "#/$defs/p", "unevaluatedProperties": False}
DEEP = {"properties": {"a": {"items": {"anyOf": [{"properties": {"b": S}}]}}}}
PP_INT = {"patternProperties": {EVIL: {"type": "integer"}}}
# (position, schema, an instance whose check needs the pattern, the verdict RE2 gives)
POSITIONS: list[tuple[str, dict[str, Any], Any, bool]] = [
    ("pattern", S, HOSTILE, False),
    ("property", {"type": "object", "properties": {"x": S}}, {"x": HOSTILE}, False),
    ("items", {"type": "array", "items": S}, [HOSTILE], False),
    ("prefixItems", {"type": "array", "prefixItems": [S]}, [HOSTILE], False),
    ("anyOf", {"anyOf": [S, {"type": "integer"}]}, HOSTILE, False),
    ("oneOf", {"oneOf": [S, {"type": "integer"}]}, HOSTILE, False),
    ("allOf", {"allOf": [S]}, HOSTILE, False),
    ("not", {"not": S}, HOSTILE, True),
    ("if/then", {"if": S, "then": {"minLength": 100}}, HOSTILE, True),
    ("$defs via $ref", {"$defs": {"s": S}, "properties": {"x": {"$ref": "#/$defs/s"}}}, {"x": HOSTILE}, False),
    ("draft-07", {"$schema": D7, "definitions": {"s": S}, "items": {"$ref": "#/definitions/s"}}, [HOSTILE], False),
    ("patternProperties", PP_INT, {HOSTILE: "x"}, True),
    ("patternProperties matching", PP_INT, {"aaa": "x"}, False),
    ("patternProperties + additionalProperties", {**PP, "additionalProperties": False}, {HOSTILE: 1}, False),
    ("patternProperties + additional schema", {**PP, "additionalProperties": {"type": "string"}}, {HOSTILE: 1}, False),
    ("propertyNames", {"propertyNames": S}, {HOSTILE: 1}, False),
    ("additionalProperties schema", {"additionalProperties": S}, {"k": HOSTILE}, False),
    ("contains", {"contains": S}, [HOSTILE], False),
    ("dependentSchemas", {"dependentSchemas": {"k": {"properties": {"k": S}}}}, {"k": HOSTILE}, False),
    ("unevaluatedProperties", {**PP, "unevaluatedProperties": False}, {HOSTILE: 1}, False),
    ("unevaluatedProperties through $ref", REF_PP, {"aaa": 1}, True),
    ("deep nesting", DEEP, {"a": [{"b": HOSTILE}]}, False),
]  # fmt: skip


@pytest.fixture
def no_backtracking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's re fails the test when handed the hostile pattern (every re.* goes through _compile)."""
    real = re._compile  # type: ignore[attr-defined]

    def guarded(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, str) and "(a+)+" in pattern:
            raise AssertionError(f"Python's re was handed the schema pattern {pattern!r}")
        return real(pattern, flags)

    monkeypatch.setattr(re, "_compile", guarded)


@pytest.mark.usefixtures("no_backtracking")
@pytest.mark.parametrize(("where", "schema", "instance", "valid"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_every_reader_matches_every_position_in_linear_time(
    where: str, schema: dict[str, Any], instance: Any, valid: bool
) -> None:
    # The runtime: a server's argument check and a client's result check (formats on and off).
    for formats in (True, False):
        assert (compile_problems(schema, formats=formats)(instance) == []) is valid
    # A generated model's exact check, wrapped or not.
    assert (exact_problems(json.dumps(schema))(instance) == []) is valid
    fast = fast_check(schema)
    if fast is not None and fast(instance):
        assert valid  # the fast path only ever says yes when jsonschema does
    # The generator: a catalog with the pattern in an input and an output schema (meta-validation),
    # and the testing kit's instances (mocks, lint), accepting and drawing.
    wrapped = {"type": "object", "properties": {"v": schema}}
    tool = {"name": "t", "inputSchema": wrapped, "outputSchema": wrapped}
    catalog, problems = build_catalog([tool])
    assert [t.name for t in catalog.tools] == ["t"] and problems == []
    generator = InstanceGenerator(schema)
    assert generator.accepts(instance) is valid
    try:
        assert generator.accepts(generator.valid())
    except Unsatisfiable:
        pass  # (no string of the pattern was found: fine, as long as nothing backtracked)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(?=a)b", "lookaround"),
        ("(?<!a)b", "lookaround"),
        (r"(a)\1", "backreference"),
        (r"(?<n>a)\k<n>", "backreference"),
        ("a{1,5000}", "RE2 cannot run it"),
        (r"\z", "no ECMA-262 escape"),
        (r"\Q", "no ECMA-262 escape"),
        ("(?i)a", "inline flags"),
        ("[a", "not closed"),
        ("a" * 20_000, "longer than"),
    ],
)
def test_what_needs_backtracking_or_is_no_ecma_is_refused_with_a_reason(pattern: str, why: str) -> None:
    problem = pattern_problem(pattern)
    assert problem is not None and why in problem
    assert compile_pattern(pattern).search("b") is False  # refused: never matches
    assert compile_problems({"pattern": pattern})("b") != []  # and the instance is refused, saying why
    assert "cannot be checked" in str(compile_problems({"pattern": pattern})("b")[0])


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^abc$", "abc\n", False),  # Python's $ would match before the newline
        (r"^\d$", "\u0663", False),  # ARABIC-INDIC DIGIT THREE: ASCII digits only
        (r"^\w$", "é", False),
        (r"^\s$", "\u00a0", True),  # NBSP: ECMA white space, not RE2's
        (r"^\s$", "\ufeff", True),
        (r"^\S$", "\u2028", False),
        ("^.$", "\u2028", False),  # . stops at ECMA's line terminators
        ("^.$", "\r", False),
        ("^.$", "é", True),
        (r"^\u00e9$", "é", True),
        (r"^\ud83d\udc32$", "\U0001f432", True),  # a surrogate pair is one code point
        (r"^\u{1F432}$", "\U0001f432", True),
        (r"^\x41\cJ$", "A\n", True),
        (r"^\p{Letter}+$", "été", True),
        (r"^\p{Script=Greek}$", "α", True),
        (r"^\P{L}$", "1", True),
        ("^[^]$", "\n", True),
        ("^[]$", "a", False),
        ("^[[:a]+$", "[:a", True),  # no POSIX classes in ECMA: [ is a literal
        (r"^[\s]$", "\u3000", True),
        (r"^[\b]$", "\b", True),
        (r"\bfoo\b", "a foo b", True),
        ("(?<year>[0-9]{4})", "in 2024", True),
        (r"^\/\-$", "/-", True),
    ],
)
def test_ecma_262_meaning(pattern: str, text: str, matches: bool) -> None:
    compiled = compile_pattern(pattern)
    assert compiled.refused is None, compiled.refused
    assert compiled.search(text) is matches


def _suite(*files: Path) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    out = []
    for path in files:
        for group in json.loads(path.read_text(encoding="utf-8")):
            out.append((f"{path.parent.name}/{path.name}: {group['description']}", group["schema"], group["tests"]))
    return out


@pytest.mark.parametrize("formats", [False, True])
def test_the_json_schema_test_suite_pattern_tests_agree(formats: bool) -> None:
    """pattern and patternProperties of both drafts, and the optional ECMA-262 and non-BMP files."""
    base = JSTS if JSTS.is_dir() else HERE_JSTS
    files = [base / d / f"{k}.json" for d in ("draft2020-12", "draft7") for k in ("pattern", "patternProperties")]
    files += [
        p
        for p in (base / "draft2020-12" / "optional" / n for n in ("ecmascript-regex.json", "non-bmp-regex.json"))
        if p.is_file()
    ]
    cases = _suite(*files)
    assert len(cases) > 20
    wrong = [
        f"{name}: {test['description']}"
        for name, schema, tests in cases
        for test in tests
        if (compile_problems(schema, formats=formats)(test["data"]) == []) is not test["valid"]
    ]
    assert wrong == []


# Every call of Python's re on a pattern that is not a literal, and why it is no schema pattern.
RE_CALLS_ALLOWED = {
    ("mcpgen/catalog/metaschema.py", "re.compile(instance)"): "compiled, never matched (is it a regex at all?)",
    ("mcpgen/output/handlers_file.py", "re.search(f'\\\\b{name}\\\\b', used)"): "a Python identifier the plan made",
    ("mcpgen/render/emitters.py", "re.compile('[' + re.escape(table_keys) + _UNSAFE + ']')"): (
        "a character class of the emitters' own escape tables, escaped"
    ),
    ("mcpgen/runtime/client/features.py", "re.sub(_VARIABLE, one, template)"): "a constant pattern",
    ("mcpgen/runtime/server/features.py", "re.compile(''.join(parts) + '\\\\Z')"): "a URI template's escaped literals",
}


def test_no_other_module_runs_re_on_a_pattern_it_was_handed() -> None:
    """A new reader of schema patterns that calls Python's re directly fails here: use compile_pattern."""
    import ast

    root = Path(__file__).resolve().parents[3]
    found = {}
    for path in sorted((root / "mcpgen").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr
                in ("compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split")
                and node.args
                and not isinstance(node.args[0], ast.Constant)
            ):
                found[(path.relative_to(root).as_posix(), ast.unparse(node))] = node.lineno
    assert set(found) == set(RE_CALLS_ALLOWED), found
