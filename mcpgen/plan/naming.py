"""The one place where wire names become Python names.

Rules: NFKC-normalise, transliterate accents, escape other non-ASCII as `u<hex>`,
snake_case methods/fields and PascalCase models, and rename only what Python or pydantic
forbids: keywords, pydantic BaseModel attributes, the generated client's own members and the
names the generated code itself uses (`self`, and the builtins its annotations name). Any other
builtin (`type`, `id`, `format`, `input`) stays as it is: a keyword-only parameter, a method or a
pydantic field may be called so. Collisions are resolved by sorting on the wire name first, so
the result never depends on input order.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..catalog.model import ToolSpec

# Names the generated AsyncClient/Client define themselves (a tool must never shadow them).
CLIENT_MEMBERS = frozenset(
    {
        "call_tool",
        "with_options",
        "tool_definitions",
        "refused_tools",
        "tool_ui",
        "tool_drift",
        # Skills (runtime/client/skills_client.py), on a client whose source declares them
        "list_skills",
        "get_skill",
        "read_skill_file",
        "dispatch",
        "connect",
        "connect_stdio",
        "connect_http",
        "connect_memory",
        "close",
        "aclose",
        "session",
        "list_tools",
        "list_prompts",
        "list_resources",
        "list_resource_templates",
        "get_prompt",
        "read_resource",
        "ping",
        "request",
        "server_info",
        "protocol_version",
        "instructions",
        "tool_names",
        "self",
        "cls",
        # prompts/resources/completion/subscriptions (mcpgen/runtime/surface.py)
        "complete",
        "subscribe_resource",
        "unsubscribe_resource",
        "resource_updates",
        "listen",
        # The runtime's plumbing between its own classes (runtime/client/typed.py): public, so
        # pyright's reportPrivateUsage holds across modules, and reserved here, so a tool named
        # like one is renamed rather than shadowing it.
        "mcpgen_inner",
        "mcpgen_runner",
        "mcpgen_start",
    }
)

# The runtime names a generated package re-exports (the client's `__init__.py`, the server's
# `_generated/__init__.py`): no model class may be called the same, so `pkg.ToolResult` and
# `pkg.models.X` are never two classes of one name. A literal: the templates choose these names
# (a few of runtime.support's `__all__`), and reading support.server would load the server side
# at generation time; tests/render/test_readable.py holds it equal to what packages re-export.
RUNTIME_EXPORTS = frozenset(
    {
        "AsyncClient",
        "AudioContent",
        "AuthInfo",
        "BlobResourceContents",
        "Client",
        "Completion",
        "ConnectionClosed",
        "ContentBlock",
        "Context",
        "EmbeddedResource",
        "ImageContent",
        "InvalidArguments",
        "McpError",
        "Prompt",
        "PromptArgument",
        "PromptMessage",
        "PromptOutput",
        "PromptResult",
        "ProtocolError",
        "RequestTimeout",
        "Resource",
        "ResourceContent",
        "ResourceContents",
        "ResourceLink",
        "ResourceOutput",
        "ResourceTemplate",
        "ResourceUpdates",
        "RpcError",
        "SchemaDriftError",
        "SchemaDriftWarning",
        "SyncResourceUpdates",
        "TextContent",
        "TextResourceContents",
        "ToolError",
        "ToolOutput",
        "ToolOutputError",
        "ToolOutputWarning",
        "ToolResult",
        "ToolsBase",
        "UnknownContent",
        "Unset",
    }
)
# A tool's models are `<Stem>Args` and `<Stem>Result` (nested ones `<Stem>Result<Field>...`): a
# stem that would make one of them a re-exported name gets "Tool" appended (`PromptToolResult`).
_MODEL_SUFFIXES = ("Args", "Result")
RESERVED_STEMS = frozenset(n[: -len(s)] for n in RUNTIME_EXPORTS for s in _MODEL_SUFFIXES if n.endswith(s))


def model_stem(method: str) -> str:
    """The Pascal stem of a tool's model names, stepping around the re-exported runtime names."""
    stem = pascal(method)
    return stem + "Tool" if stem in RESERVED_STEMS else stem


# Names the generated server's ToolsBase defines itself, beside the tool methods.
SERVER_MEMBERS = frozenset({"complete", "subscribe"})

# pydantic.BaseModel attributes (fixed list so output does not drift with the pydantic version).
PYDANTIC_MEMBERS = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "fields",
        "from_orm",
        "json",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
        "model_computed_fields",
        "model_config",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_extra",
        "model_fields",
        "model_fields_set",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "root",
    }
)

# The builtins generated annotations name (JSON's types, and the catalog's tuples). A field,
# method or namespace called so would be that name inside the class body, where pydantic and every
# checker read the annotations of the fields and methods after it (`list: list[str]`, then
# `tags: list[str]`: pydantic fails at import, mypy reports "not valid as a type").
ANNOTATION_BUILTINS = frozenset({"bool", "dict", "float", "int", "list", "str", "tuple"})

# Soft keywords (`type`, `match`, `case`) are names like any other; `_` never comes out of snake().
RESERVED_SNAKE = frozenset(keyword.kwlist) | ANNOTATION_BUILTINS | frozenset({"self", "cls"})

# A name generated code binds beside a tool's method and its parameters starts with "_", which
# snake() never gives (its words are letters and digits, joined by "_"): so no tool or argument
# shadows it, and none is renamed for it. Code mode's tool modules call the connection's client
# through this one (a tool called `current_client` would otherwise call itself).
CODE_MODE_CLIENT = "_current_client"


def _ascii(text: str) -> str:
    """Deterministic ASCII: NFKC, strip accents, then escape what is left as u<hex>."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFKC", text):
        if ch.isascii():
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii())
        out.append(base if base else f" u{ord(ch):04x} ")
    return "".join(out)


def words(text: str) -> list[str]:
    """Split a wire name into lowercase words: camelCase, dashes, dots, spaces all separate."""
    text = _ascii(text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", text) if w]


def snake(text: str, *, empty: str) -> str:
    name = "_".join(words(text)) or empty
    if name[0].isdigit():
        name = f"{empty}_{name}"
    return name


def pascal(snake_name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in snake_name.split("_") if w)


def allocate(
    wire_names: Iterable[str],
    base: dict[str, str],
    reserved: frozenset[str],
    joiner: str = "_",
    claimed: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """Give every wire name a unique Python name; ties go to the smaller wire name.

    A reserved base gets a trailing underscore; a taken one gets `_2`, `_3`, ... (with
    `joiner` in place of `_`: class names use "V", since model generators drop underscores).
    A name in `claimed` belongs to that wire name alone: no other wire name gets it.
    """
    taken: set[str] = set()
    result: dict[str, str] = {}
    for wire in sorted(wire_names):
        cand = base[wire]
        if cand in reserved:
            cand += "_"
        stem, n = cand, 1
        while cand in taken or cand in reserved or (cand in claimed and cand != wire):
            n += 1
            cand = f"{stem}{joiner}{n}"
        taken.add(cand)
        result[wire] = cand
    return result


# A tool's module file is named after its method, cut to a length every file system takes (a
# tool's name has no length limit), and never after a device name Windows keeps (`con.py`).
MODULE_CHARS = 64
WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul"} | {f"{d}{i}" for d in ("com", "lpt") for i in range(1, 10)})


@dataclass(frozen=True)
class FieldName:
    wire: str
    python: str


@dataclass(frozen=True)
class ToolNames:
    wire: str
    method: str  # snake_case method on AsyncClient/Client
    pascal: str  # stem of <Pascal>Args / <Pascal>Result
    module: str  # its models' module, `_models/<module>.py`: the method name, as a safe file name
    args: tuple[FieldName, ...]  # top-level inputSchema properties, in schema order
    result_fields: tuple[FieldName, ...]  # top-level outputSchema properties (unwrapped), schema order

    @property
    def args_model(self) -> str:
        return f"{self.pascal}Args"

    @property
    def result_model(self) -> str:
        return f"{self.pascal}Result"


def field_names(props: Mapping[str, object], extra_reserved: frozenset[str] = frozenset()) -> tuple[FieldName, ...]:
    wires = [w for w in props]
    base = {w: snake(w, empty="field") for w in wires}
    # No field's Python name is another field's wire name: a model built by name
    # (`populate_by_name`) or a typed call's keywords would otherwise read `{"items": ...}` into
    # the field whose wire name is `Items`. So `items` keeps `items`, and `Items` gets `items_2`.
    names = allocate(wires, base, RESERVED_SNAKE | PYDANTIC_MEMBERS | extra_reserved, claimed=frozenset(wires))
    return tuple(FieldName(w, names[w]) for w in wires)


def name_tools(tools: Iterable[ToolSpec], result_props: dict[str, dict[str, object]]) -> dict[str, ToolNames]:
    """Names for every tool; `result_props` maps wire name -> top-level props of its (unwrapped) result."""
    specs = {t.name: t for t in tools}
    base = {w: snake(w, empty="tool") for w in specs}
    # One method name per tool for both sides: it steps around the client's and the server's members.
    methods = allocate(specs, base, RESERVED_SNAKE | CLIENT_MEMBERS | SERVER_MEMBERS)
    # Pascal stems come from the unique method names; re-check since `a_2` and `a2` meet again.
    stems = allocate(specs, {w: model_stem(methods[w]) for w in specs}, RESERVED_STEMS, joiner="V")
    modules = allocate(specs, {w: methods[w][:MODULE_CHARS] for w in specs}, WINDOWS_DEVICES)
    out: dict[str, ToolNames] = {}
    for w, spec in specs.items():
        props = spec.input_schema.get("properties")
        props = props if isinstance(props, dict) else {}
        out[w] = ToolNames(
            wire=w,
            method=methods[w],
            pascal=stems[w],
            module=modules[w],
            args=field_names(props),
            result_fields=field_names(result_props.get(w, {})),
        )
    return out


def package_name(text: str) -> str:
    return snake(text, empty="client")
