"""Catalogs from JSON/YAML files in every document shape (docs/architecture.md, "Sources")."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..catalog.build import build_catalog
from ..catalog.model import OPTIONAL_LISTS, Catalog, FailedList, Problem
from .shapes import foreign_shape, read_tools


def read_document(path: Path) -> tuple[Any, list[Problem]]:
    """Parse a JSON or YAML file (by suffix; unknown suffixes try JSON, then YAML)."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, [Problem(where, f"cannot read file: {reason}")]
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _yaml(where, text)
    try:
        return json.loads(text), []
    except RecursionError:
        return None, [Problem(where, "invalid JSON: nested too deeply")]
    except json.JSONDecodeError as exc:
        if suffix == ".json":
            return None, [Problem(f"{where}, line {exc.lineno}", f"invalid JSON: {exc.msg} (column {exc.colno})")]
        return _yaml(where, text)


# Aliases may add at most this many nodes to a YAML document: past it, a few hundred bytes of
# nested aliases ("billion laughs") would expand to billions of nodes for every later stage.
MAX_YAML_ALIAS_NODES = 100_000


def _yaml(where: str, text: str) -> tuple[Any, list[Problem]]:
    """YAML safely: the node graph is composed first, and its aliases are checked (expansion
    bounded, no cycles) before any Python object is built."""
    import yaml  # type: ignore[import-untyped]  # only needed for YAML input

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        problem = _alias_problem(node)
        if problem:
            return None, [Problem(where, f"invalid YAML: {problem}")]
        return loader.construct_document(node), []
    except RecursionError:
        return None, [Problem(where, "invalid YAML: nested too deeply")]
    except yaml.YAMLError as exc:
        return None, [_yaml_problem(where, exc)]
    finally:
        loader.dispose()


def _yaml_problem(where: str, exc: Exception) -> Problem:
    """`bad.yaml, line 5: invalid YAML: <what the parser found> (column 3)`: the line in words, first."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    what = " ".join(str(getattr(exc, "problem", None) or exc).split())[:200]
    context = getattr(exc, "context", None)
    if context:
        what = f"{what} ({' '.join(str(context).split())[:100]})"
    if mark is None:
        return Problem(where, f"invalid YAML: {what}")
    return Problem(f"{where}, line {mark.line + 1}", f"invalid YAML: {what} (column {mark.column + 1})")


def _alias_problem(root: Any) -> str | None:
    """Why the node graph cannot be expanded safely (None when it can): iterative, memoized."""
    import yaml

    size: dict[int, int] = {}  # id(node) -> nodes in its expansion
    unique = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.MappingNode):
            children = [c for pair in node.value for c in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            continue
        if key in size:
            continue
        if key in on_path:
            return "a recursive alias (a node that contains itself)"
        unique += 1
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                return "a recursive alias (a node that contains itself)"
            if id(child) not in size:
                stack.append((child, False))
    if size[id(root)] - unique > MAX_YAML_ALIAS_NODES:
        return f"aliases expand the document by more than {MAX_YAML_ALIAS_NODES:,} nodes"
    return None


def catalog_from_document(doc: Any, where: str, *, check_schemas: bool = True) -> tuple[Catalog | None, list[Problem]]:
    """Recognise the shape and build a Catalog (`check_schemas`: see catalog/build.py's parse_tool).

    Shapes: `{"tools": [...]}` (tools/list result), a JSON-RPC response wrapping one,
    a list of tools, a single tool (each tool MCP's or an LLM API's function-calling shape:
    shapes.py), and snapshot/capture files
    (`{"initialize": {...}, "tools": {"tools": [...]}, "prompts": ..., ...}` or flat keys).
    """
    if isinstance(doc, list):
        return _finish(build_catalog(read_tools(doc), check_schemas=check_schemas))
    if not isinstance(doc, dict):
        return None, [Problem(where, "expected a JSON object or a list of tools")]
    if doc.get("jsonrpc") == "2.0" and "error" in doc:
        return None, [Problem(where, f"file holds a JSON-RPC error response: {doc['error']!r}"[:300])]
    if doc.get("jsonrpc") == "2.0" and "result" in doc:
        return catalog_from_document(doc["result"], where, check_schemas=check_schemas)
    if "tools" not in doc and ("name" in doc or foreign_shape(doc)):
        return _finish(build_catalog(read_tools([doc]), check_schemas=check_schemas))
    if "tools" not in doc:
        return None, [
            Problem(
                where,
                "no tools found: expected a tools/list result, a tool, or a list of tools "
                "(each in MCP's, OpenAI's, Anthropic's or Gemini's shape)",
            )
        ]
    init_raw = doc.get("initialize")
    init: dict[str, Any] = init_raw if isinstance(init_raw, dict) else {}
    server_info = _first_dict(init.get("serverInfo"), doc.get("serverInfo"), doc.get("server_info"))
    protocol = init.get("protocolVersion") or doc.get("protocolVersion") or doc.get("protocol_version")
    command = doc.get("source_command") or doc.get("command")
    instructions = init.get("instructions", doc.get("instructions"))
    url = doc.get("source_url")
    return _finish(
        build_catalog(
            read_tools(_items(doc.get("tools"), "tools")),
            server_info=server_info,
            protocol_version=protocol if isinstance(protocol, str) else None,
            prompts=_items(doc.get("prompts"), "prompts"),
            resources=_items(doc.get("resources"), "resources"),
            resource_templates=_items(doc.get("resourceTemplates", doc.get("resource_templates")), "resourceTemplates"),
            source_command=tuple(command) if isinstance(command, list) and command else None,
            source_url=url if isinstance(url, str) and url.startswith(("http://", "https://")) else None,
            instructions=instructions if isinstance(instructions, str) else None,
            check_schemas=check_schemas,
            failed_lists=_failed_lists(doc.get("failedLists")),
            extensions=doc.get("extensions"),
        )
    )


def _failed_lists(value: Any) -> tuple[FailedList, ...]:
    """What a snapshot records its live server failed to list (only lists a catalog may go without)."""
    entries = value if isinstance(value, list) else []
    return tuple(
        FailedList(str(e["method"]), str(e.get("error", ""))[:300])
        for e in entries
        if isinstance(e, dict) and e.get("method") in OPTIONAL_LISTS
    )


def _items(value: Any, key: str) -> list[Any]:
    """A list as-is, or the list inside a `{key: [...]}` list-result object."""
    if isinstance(value, dict):
        value = value.get(key)
    return value if isinstance(value, list) else []


def _first_dict(*values: Any) -> dict[str, Any]:
    for v in values:
        if isinstance(v, dict):
            return v
    return {}


def _finish(res: tuple[Catalog, list[Problem]]) -> tuple[Catalog | None, list[Problem]]:
    """The catalog survives only problems that refuse single tools (the CLI decides on them)."""
    cat, problems = res
    if all(p.skippable for p in problems):
        return replace(cat, refused=tuple(problems)), problems
    return None, problems


def load_file(path: str | Path, *, check_schemas: bool = True) -> tuple[Catalog | None, list[Problem]]:
    p = Path(path)
    doc, problems = read_document(p)
    if problems:
        return None, problems
    cat, problems = catalog_from_document(doc, str(p), check_schemas=check_schemas)

    # Name the file in every problem (those the catalog carries too) so a user knows which one.
    def named(pr: Problem) -> Problem:
        return replace(pr, where=f"{p}: {pr.where}" if pr.where != str(p) else pr.where)

    if cat is not None:
        cat = replace(cat, refused=tuple(named(pr) for pr in cat.refused))
    return cat, [named(pr) for pr in problems]


SCHEMA_SUFFIXES = (".json", ".yaml", ".yml")


def load_many(paths: list[Path], *, check_schemas: bool = True) -> tuple[Catalog | None, list[Problem]]:
    """Several files and/or folders of them (each one tool or a list), merged in a stable order.

    Folders contribute their *.json / *.yaml / *.yml files sorted by name; a tool name
    defined twice is an error naming both files.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SCHEMA_SUFFIXES)
        else:
            files.append(path)
    problems: list[Problem] = []
    raw_tools: list[Any] = []
    origin: dict[str, Path] = {}
    server_info: dict[str, Any] = {}
    # A file may also declare prompts, resources and resource templates (the snapshot shape).
    extras: dict[str, list[dict[str, Any]]] = {"prompts": [], "resources": [], "resource_templates": []}
    if not files:
        return None, [Problem(", ".join(map(str, paths)), "no schema files found")]
    for file in files:
        cat, found = load_file(file, check_schemas=check_schemas)
        problems += found
        if cat is None:
            continue
        server_info = server_info or dict(cat.server_info)
        for key in extras:
            extras[key] += getattr(cat, key)
        for tool in cat.tools:
            if tool.name in origin:
                problems.append(Problem(str(file), f"tool {tool.name!r} is already defined in {origin[tool.name]}"))
                continue
            origin[tool.name] = file
            raw_tools.append(tool.raw)
    if problems:
        return None, problems
    return _finish(
        build_catalog(
            raw_tools,
            server_info=server_info,
            prompts=extras["prompts"],
            resources=extras["resources"],
            resource_templates=extras["resource_templates"],
            check_schemas=False,  # each tool's schemas were checked with its file
        )
    )
