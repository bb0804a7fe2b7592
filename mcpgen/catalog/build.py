"""Raw tool objects (from any source) -> a Catalog, every problem collected, none raised.

Each tool is checked on its own: its envelope (name, inputSchema, outputSchema) and whether its
schemas are JSON Schema at all (meta-validation against their own draft); a bad tool is refused
alone (a skippable Problem), and the rest of the catalog goes on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .checks import MAX_DEPTH, schema_depth
from .model import Catalog, FailedList, Problem, ToolSpec
from .normal import canonical, sorted_by


def parse_tool(raw: Any, index: int, *, check_schemas: bool = True) -> tuple[ToolSpec | None, list[Problem]]:
    """Validate one tool object's envelope; every problem found refuses this tool only.

    `check_schemas=False` leaves out the meta-validation of its schemas (most of the time a
    catalog takes to build): for tools already checked once, or a catalog only digested."""
    spec, problems = _parse_tool(raw, index, check_schemas)
    return spec, [replace(p, skippable=True) for p in problems]


def _parse_tool(raw: Any, index: int, check_schemas: bool) -> tuple[ToolSpec | None, list[Problem]]:
    where = f"tool[{index}]"
    if not isinstance(raw, dict):
        return None, [Problem(where, f"a tool must be a JSON object, got {type(raw).__name__}")]
    name = raw.get("name")
    if not isinstance(name, str):
        return None, [Problem(where, "tool has no string 'name'", "/name")]
    where = repr(name)
    problems: list[Problem] = []
    schema = raw.get("inputSchema")
    if schema is None:
        problems.append(Problem(where, "tool has no inputSchema", "/inputSchema"))
    elif not isinstance(schema, dict):
        problems.append(Problem(where, "inputSchema must be a JSON object", "/inputSchema"))
    out = raw.get("outputSchema")
    if out is not None and not isinstance(out, dict):
        problems.append(Problem(where, "outputSchema must be a JSON object", "/outputSchema"))
    if check_schemas:
        problems += _check_schema(where, "/inputSchema", schema)
        problems += _check_schema(where, "/outputSchema", out)
    if problems:
        return None, problems
    title = raw.get("title")
    desc = raw.get("description")
    ann = raw.get("annotations")
    return (
        ToolSpec(
            name=name,
            title=title if isinstance(title, str) else None,
            description=desc if isinstance(desc, str) else None,
            input_schema=schema,  # type: ignore[arg-type]  # checked above
            output_schema=out,
            annotations=ann if isinstance(ann, dict) else None,
            raw=raw,
        ),
        [],
    )


def _check_schema(where: str, pointer: str, schema: Any) -> list[Problem]:
    """Meta-validate against the schema's own draft (2020-12 when it names none)."""
    if not isinstance(schema, dict):
        return []
    from .metaschema import schema_errors

    if schema_depth(schema) > MAX_DEPTH:
        return [Problem(where, f"schema nested deeper than {MAX_DEPTH} levels", pointer)]
    try:
        errors = schema_errors(schema)
    except RecursionError:
        return [Problem(where, "schema nested too deeply to check", pointer)]
    # The meta-schema reaches one keyword through several of its parts (a wrong `items` fails the
    # applicator and the validation vocabularies alike): the same words at the same place once.
    # jsonschema's order of errors varies with the hash seed: sorted, a run prints what the last did.
    problems = {(p.pointer, p.message): p for p in (_problem(where, pointer, error) for error in errors)}
    return [problems[key] for key in sorted(problems)]


def _problem(where: str, pointer: str, error: Any) -> Problem:
    sub = "".join(f"/{p}" for p in error.path)
    if error.validator == "format" and error.validator_value == "regex":
        # Neither RE2 (runtime/core/patterns.py) nor, for a warning, Python's re reads it.
        msg = f"pattern {str(error.instance)[:100]!r} cannot be checked (not a regular expression)"
        return Problem(where, msg, pointer + sub)
    return Problem(where, f"invalid JSON Schema: {_in_words(error)}", pointer + sub)


_SIMPLE_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _in_words(error: Any) -> str:
    """What is wrong with a schema, said plainly (jsonschema's text names meta-schema internals)."""
    key = str(error.path[-1]) if error.path else ""
    value = error.instance
    shown = repr(value)[:80]
    if key == "type" and error.validator in ("anyOf", "enum") and not isinstance(value, list):
        return f"{shown} is not a JSON Schema type (expected one of {', '.join(_SIMPLE_TYPES)})"
    if key == "type" and error.validator in ("enum", "anyOf"):
        return f"{shown} is not a list of JSON Schema types ({', '.join(_SIMPLE_TYPES)})"
    if error.validator == "type":
        wanted = error.validator_value
        names = wanted if isinstance(wanted, list) else [wanted]
        article = {"array": "an array", "object": "an object", "integer": "an integer"}
        expected = " or ".join(article.get(str(n), f"a {n}") for n in names)
        subject = f"{key!r}" if key else "a schema"
        return f"{subject} must be {expected}, not {_json_type(value)}"
    if error.validator == "minimum" and key:
        return f"{key!r} must be at least {error.validator_value}, not {shown}"
    if error.validator == "uniqueItems" and key:
        return f"{key!r} lists the same value twice"
    return " ".join(str(error.message).split())[:300]


def build_catalog(
    tools: list[Any],
    *,
    server_info: dict[str, Any] | None = None,
    protocol_version: str | None = None,
    prompts: list[Any] | None = None,
    resources: list[Any] | None = None,
    resource_templates: list[Any] | None = None,
    source_command: tuple[str, ...] | None = None,
    source_url: str | None = None,
    instructions: str | None = None,
    check_schemas: bool = True,
    failed_lists: tuple[FailedList, ...] = (),
    extensions: Any = None,
) -> tuple[Catalog, list[Problem]]:
    """Parse every tool, collecting all problems; duplicate wire names are an error. The rest of
    the catalog is put in its normal form (normal.py)."""
    specs: list[ToolSpec] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, raw in enumerate(tools):
        spec, probs = parse_tool(raw, i, check_schemas=check_schemas)
        problems += probs
        if spec is None:
            continue
        if spec.name in seen:
            problems.append(Problem(repr(spec.name), "duplicate tool name", skippable=True))
            continue
        seen.add(spec.name)
        specs.append(spec)
    # The normal form (normal.py): live and snapshot sources give the same catalog, byte for byte.
    cat = Catalog(
        server_info=canonical(dict(server_info or {})),
        protocol_version=protocol_version,
        tools=tuple(specs),
        prompts=sorted_by("name", prompts),
        resources=sorted_by("uri", resources),
        resource_templates=sorted_by("uriTemplate", resource_templates),
        source_command=source_command,
        source_url=source_url,
        instructions=instructions,
        failed_lists=failed_lists,
        extensions=extension_names(extensions),
    )
    return cat, problems


# A server declares at most this many extensions that a catalog records (names up to 200 chars).
MAX_EXTENSIONS = 64


def extension_names(value: Any) -> tuple[str, ...]:
    """The extension names of a capabilities.extensions object (or a snapshot's list), sorted;
    anything else (untrusted: a server's, a file's) records none."""
    names = list(value) if isinstance(value, (dict, list)) else []
    return tuple(sorted({n for n in names if isinstance(n, str) and 0 < len(n) <= 200}))[:MAX_EXTENSIONS]
