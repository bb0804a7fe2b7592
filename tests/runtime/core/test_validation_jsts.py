"""validation.py against the JSON Schema Test Suite, in process: the exact check agrees with the
suite on every case it can decide, and the fast pre-check is exact (not only sound) wherever it
compiles, so that a stricter or looser fast path is caught here, not only a wrong one.

(tests/runtime/core/test_fast_check.py holds the soundness half; this file the other half, and
the whole check's verdicts. It is the first test the mutation run of validation.py runs.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime.core.validation import compile_problems, fast_check

JSTS = Path(__file__).resolve().parents[2] / "models" / "jsts"
DIALECTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}

# Groups the exact check cannot decide by design, draft/file#group -> why.
UNDECIDED: dict[str, str] = {
    # A $ref outside the document is never fetched (an empty registry): the check says so instead.
    **{f"draft2020-12/refRemote.json#{i}": "a remote $ref is never fetched" for i in range(15)},
    **{f"draft7/refRemote.json#{i}": "a remote $ref is never fetched" for i in range(11)},
    **{f"draft2020-12/dynamicRef.json#{i}": "a remote $ref is never fetched" for i in (13, 14, 15, 16, 17)},
    "draft2020-12/vocabulary.json#0": "its metaschema is remote",
}


def _groups() -> list[tuple[str, Any, list[dict[str, Any]]]]:
    out = []
    for draft in ("draft2020-12", "draft7"):
        for path in sorted((JSTS / draft).glob("*.json")):
            for i, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                schema = group["schema"]
                if isinstance(schema, dict) and "$schema" not in schema:
                    schema = {"$schema": DIALECTS[draft], **schema}  # (the suite's runner tells its draft so)
                out.append((f"{draft}/{path.name}#{i}", schema, group["tests"]))
    return out


GROUPS = _groups()


def test_the_suite_is_whole() -> None:
    assert len(GROUPS) > 500
    assert sum(len(tests) for _, _, tests in GROUPS) > 2000
    missing = sorted(set(UNDECIDED) - {name for name, _, _ in GROUPS})
    assert missing == []  # every listed group is still in the suite


def test_the_exact_check_agrees_with_the_suite_on_every_case() -> None:
    wrong = []
    for name, schema, tests in GROUPS:
        if name in UNDECIDED:
            continue
        problems = compile_problems(schema, formats=False)  # formats are annotations in the suite's required files
        for test in tests:
            found = problems(test["data"])
            if (found == []) is not test["valid"]:
                wrong.append(f"{name}: {test['description']}: {found[:1]}")
            # A refusal always says where and why.
            assert all(p.message for p in found), name
    assert wrong == []


def test_an_undecided_group_is_refused_saying_why() -> None:
    said = set()
    for name, schema, tests in GROUPS:
        if name in UNDECIDED:
            for test in tests:
                said |= {p.message.split(":")[0] for p in compile_problems(schema, formats=False)(test["data"])}
    assert "unresolvable reference in the schema" in said


@pytest.mark.parametrize("formats", [False, True])
def test_the_fast_check_is_exact_where_it_compiles(formats: bool) -> None:
    """fast(x) is True exactly when the suite calls x valid: a False for a valid instance would
    only cost time today, but it means a keyword's predicate is wrong."""
    compiled = 0
    wrong = []
    for name, schema, tests in GROUPS:
        fast = fast_check(schema, formats=formats)
        if fast is None:
            continue
        compiled += 1
        for test in tests:
            if bool(fast(test["data"])) is not test["valid"]:
                wrong.append(f"{name}: {test['description']}")
    assert wrong == []
    assert compiled > 100


# Keyword files whose every group (in both drafts) the fast path compiles: if one stops
# compiling, the fast path lost a keyword (nothing fails, but every call then pays jsonschema).
FAST_FILES = {
    "draft2020-12": (
        "enum.json",
        "exclusiveMaximum.json",
        "exclusiveMinimum.json",
        "maxItems.json",
        "maxLength.json",
        "maxProperties.json",
        "maximum.json",
        "minItems.json",
        "minLength.json",
        "minProperties.json",
        "minimum.json",
        "required.json",
        "type.json",
    ),
}


# ... but a size given as a decimal (`"maxItems": 2.0`), which jsonschema takes and no tool writes.
DECIMAL_SIZES = {
    f"draft2020-12/{k}.json#1"
    for k in ("maxItems", "maxLength", "maxProperties", "minItems", "minLength", "minProperties")
}


def test_the_fast_path_compiles_the_common_keywords() -> None:
    lost = {
        name
        for name, schema, _ in GROUPS
        if name.split("#")[0].split("/")[1] in FAST_FILES.get(name.split("/")[0], ())
        and fast_check(schema, formats=False) is None
    }
    assert lost == DECIMAL_SIZES
