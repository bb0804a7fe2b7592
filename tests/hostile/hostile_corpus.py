"""A corpus of hostile and awkward MCP tools: which ones must be generated, which refused."""

from __future__ import annotations

from typing import Any

MARK = "PWNED"  # appears in every hostile string; never allowed outside a string literal
EVIL = [
    f'"{MARK}',
    f"'''{MARK}'''",
    f'"""{MARK}"""',
    f"\\{MARK}\\",
    f"{MARK}\nimport os; os.system('echo {MARK}')\n",
    f"{MARK}\x00nul",
    f"{MARK}\u2028line\u2029para",
    f"\u202e{MARK}\u202c\u200f",
    f"{MARK}" + "x" * 10_000,
    f"__import__('os').system('{MARK}')",
    f"{{{MARK}}} %s {{0}} ${{x}}",
    f"{MARK}天気 café Ωmega",
    f"{MARK}\r\n\t\x7f\x85\ufeff",
    f"{{{{ {MARK} }}}} {{% if 1 %}}{MARK}{{% endif %}} {{# {MARK}",
    f"```python\nimport os  # {MARK}\nos.system('{MARK}')\n```",
]
WEIRD_NAMES = [
    "class",
    "print",
    "list",
    "model_dump",
    "model_config",
    "schema",
    "root",
    "self",
    "None",
    "",
    "a-b",
    "a_b",
    "A B",
    "3d",
    "__init__",
    "_EXACT_SCHEMAS",
    "_mcpgen_exact",
    "_check_exact",
    "Any",
    "_shared",
    "con",
    "w" * 300,
]


def _props() -> dict[str, Any]:
    props: dict[str, Any] = {}
    for i, e in enumerate(EVIL):
        props[e] = {"type": "string", "title": e, "description": e, "enum": [e, f"v{i}"], "default": e}
    for n in WEIRD_NAMES:
        props[n] = {"type": ["integer", "null"], "description": n}
    props[f"pattern{MARK}"] = {"type": "string", "pattern": '^"""\\\\(?<=")x$|' + MARK, "format": EVIL[2]}
    props["always"] = True
    props["never"] = False
    props["anything"] = {}
    props["inf"] = {"type": "number", "default": float("inf")}
    props["nan"] = {"type": "number", "default": float("nan")}
    props["huge"] = {"type": "integer", "default": 10**200}
    props["meta"] = {"type": "object", "_meta": {EVIL[0]: EVIL[2]}, "x-" + EVIL[3]: EVIL[4]}
    return props


def nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "integer", "maximum": depth}
    for _ in range(depth):
        node = {"type": "object", "properties": {"n": node}, "required": ["n"]}
    return node


def good_tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = [
        {
            "name": e,
            "title": e,
            "description": e,
            "inputSchema": {"type": "object", "description": e, "properties": _props()},
            "outputSchema": {"type": "object", "properties": {e: {"type": "string", "description": e}}},
            "_meta": {e: e},
        }
        for e in EVIL[:4]
    ]
    tools += [
        {"name": n, "inputSchema": {"type": "object", "properties": {n: {"type": "string"}}}} for n in WEIRD_NAMES
    ]
    tools += [
        {"name": "deep", "inputSchema": nested(60)},
        {
            "name": "wide",
            "inputSchema": {
                "type": "object",
                "properties": {f"p{i}": {"type": "integer"} for i in range(5000)},
                "required": [f"p{i}" for i in range(0, 5000, 7)],
            },
        },
        {
            "name": "recursive",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "L": {
                        "type": ["object", "null"],
                        "properties": {"next": {"$ref": "#/$defs/L"}, "v": {"type": "integer"}},
                    }
                },
                "properties": {"head": {"$ref": "#/$defs/L"}, "self": {"$ref": "#"}},
            },
        },
        {
            "name": "lookbehind",
            "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "(?<=a)b"}}},
        },
        {"name": "no_type", "inputSchema": {"properties": {"x": {"type": "integer"}}}},
        {"name": "empty_schema", "inputSchema": {}},
    ]
    return tools


# name -> words the refusal message must contain
BAD_TOOLS: list[tuple[dict[str, Any], str]] = [
    ({"name": "schema_true", "inputSchema": True}, "inputSchema must be a JSON object"),
    ({"name": "schema_false", "inputSchema": False}, "inputSchema must be a JSON object"),
    ({"name": "schema_list", "inputSchema": [1]}, "inputSchema must be a JSON object"),
    ({"name": "no_schema"}, "no inputSchema"),
    (
        {"name": "ref_missing", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}},
        "does not resolve",
    ),
    (
        {"name": "ref_file", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}}},
        "does not resolve",
    ),
    (
        {"name": "ref_relative", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "../../x.json"}}}},
        "does not resolve",
    ),
    (
        {
            "name": "ref_url",
            "inputSchema": {"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/x.json"}}},
        },
        "does not resolve",
    ),
    (
        {"name": "ref_evil", "inputSchema": {"type": "object", "properties": {"a": {"$ref": EVIL[4]}}}},
        "does not resolve",
    ),
    (
        {
            "name": "bad_pattern",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
        },
        "pattern",
    ),
    (
        {
            "name": "ecma_pattern",
            # ECMA-262 that needs backtracking (lookbehind), and that Python's re cannot read either.
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "(?<=a)\\p{L}+"}}},
        },
        "pattern",
    ),
    ({"name": "required_str", "inputSchema": {"type": "object", "required": "a"}}, "invalid JSON Schema"),
    # jsonschema recurses per level: beyond what it can check, a schema is refused, never half-checked.
    ({"name": "deep_210", "inputSchema": nested(210)}, "nested too deeply"),
    ({"name": "too_deep", "inputSchema": nested(600)}, "nested deeper"),
    (
        {"name": "unknown_dialect", "inputSchema": {"$schema": "http://127.0.0.1:9/meta", "type": "object"}},
        "unknown $schema",
    ),
    ({"name": 7, "inputSchema": {"type": "object"}}, "no string 'name'"),
    ({"name": "a-b", "inputSchema": {"type": "object"}}, "duplicate tool name"),
]
