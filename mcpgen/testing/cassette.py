"""Cassettes: a recorded session, one JSON object a line, and the server that replays one.

The first line holds the catalog the session was recorded against (a snapshot) and what was
redacted; each later line is one exchange: `{"method", "params", "result"}` or
`{"method", "params", "error": {"code", "message"}}`. Loading checks every exchange against the
catalog (the one in the cassette, or the one given: a changed schema fails here, naming the
tool); replaying matches requests by method and parameters, in recorded order when the same
request was recorded more than once.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..catalog.checks import MAX_DEPTH, schema_depth
from ..catalog.model import Catalog, Problem
from ..catalog.snapshot import snapshot_document
from ..runtime.core import jsonrpc, redaction
from ..runtime.core.errors import RpcError
from ..runtime.core.validation import compile_validator
from ..runtime.server.features import template_pattern
from ..runtime.server.server import RequestContext, Server
from ..sources.files import catalog_from_document

FORMAT = 1
REDACTED = "[REDACTED]"
RECORDED_METHODS = ("tools/call", "prompts/get", "resources/read")
# A cassette is a test fixture, not a log: refuse one that would fill memory.
MAX_CASSETTE_BYTES = 64 * 1024 * 1024
MAX_EXCHANGES = 100_000
# How deep an exchange may nest: deeper, a line is refused before anything recurses into it.
MAX_NESTING = 200
# Characters JSON may hold raw in a string but that some line readers split on: written escaped.
_LINE_BREAKING = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


# -- writing ------------------------------------------------------------------------


@dataclass(frozen=True)
class Redactor:
    """Object keys whose values never reach a cassette (case-insensitive), and secret strings
    (header values) replaced wherever they appear."""

    fields: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = ()

    @classmethod
    def build(cls, fields: Iterable[str], secrets: Iterable[str]) -> Redactor:
        return cls(frozenset(f.lower() for f in fields), tuple(s for s in secrets if s))

    def __call__(self, value: Any) -> Any:
        """`value` with every field redacted, and every secret, including the values those
        fields held (an echoed token must not survive in a result), replaced."""
        found = set(self.secrets)
        if self.fields:
            self._harvest(value, found)
        secrets = sorted((s for s in found if len(s) >= 4), key=len, reverse=True)
        return self._replace(value, secrets)

    def _harvest(self, value: Any, found: set[str]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key.lower() in self.fields and isinstance(item, str):
                    found.add(item)
                self._harvest(item, found)
        elif isinstance(value, list):
            for item in value:
                self._harvest(item, found)

    def _replace(self, value: Any, secrets: list[str]) -> Any:
        if isinstance(value, dict):
            return {k: REDACTED if k.lower() in self.fields else self._replace(v, secrets) for k, v in value.items()}
        if isinstance(value, list):
            return [self._replace(v, secrets) for v in value]
        if isinstance(value, str):
            # Every form a secret may come back in (base64, percent-encoded, cut short), not only the raw one.
            value = redaction.scrub(value, secrets, REDACTED)
        return value


class CassetteWriter:
    """Appends exchanges to a cassette, redacted, one flushed line each."""

    def __init__(self, path: Path, catalog: Catalog, redact: Redactor, *, redacted_headers: Sequence[str]) -> None:
        self.redact = redact
        self._file: IO[str] = path.open("w", encoding="utf-8")
        # The catalog loses secrets but keeps its keys: a property named like a field is schema.
        header = {
            "mcpgen_cassette": FORMAT,
            "catalog": Redactor(secrets=redact.secrets)(snapshot_document(catalog)),
            "redacted": {"headers": sorted(redacted_headers), "fields": sorted(redact.fields)},
        }
        self._line(header)

    def exchange(
        self, method: str, params: dict[str, Any], *, result: Any = None, error: RpcError | None = None
    ) -> None:
        entry: dict[str, Any] = {"method": method, "params": params}
        if error is not None:
            entry["error"] = {"code": error.code, "message": error.message}
        else:
            entry["result"] = result
        self._line(self.redact(entry))

    def _line(self, value: Any) -> None:
        """One JSON line: a raw U+2028, U+2029 or NEL can only stand inside a JSON string, where
        its escape means the same character, so the line holds no separator but its own `\\n`."""
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        for raw, escaped in _LINE_BREAKING.items():
            text = text.replace(raw, escaped)
        self._file.write(text + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


# -- reading ------------------------------------------------------------------------


@dataclass
class Exchange:
    line: int
    method: str
    params: dict[str, Any]
    result: Any = None
    error: tuple[int, str] | None = None


@dataclass
class Cassette:
    catalog: Catalog
    exchanges: list[Exchange] = field(default_factory=list)
    # Fields redacted when recording: a replayed request is redacted the same way before matching.
    redacted_fields: frozenset[str] = frozenset()


def load_cassette(path: Path, catalog: Catalog | None = None) -> tuple[Cassette | None, list[Problem]]:
    """Read and check a cassette; `catalog` (the current source), when given, is what the
    recorded exchanges must still fit."""
    where = str(path)
    try:
        if path.stat().st_size > MAX_CASSETTE_BYTES:
            return None, [Problem(where, f"larger than {MAX_CASSETTE_BYTES // (1024 * 1024)} MB")]
        # Lines end at `\n` only (as written), never at the other separators splitlines() knows.
        lines = [line.removesuffix("\r") for line in path.read_text(encoding="utf-8").split("\n")]
        lines = lines[:-1] if lines and not lines[-1] else lines
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(where, f"cannot read: {getattr(exc, 'strerror', None) or exc}")]
    if not lines:
        return None, [Problem(where, "empty: not a cassette")]
    header, _ = _read_line(lines[0], MAX_DEPTH + 8)  # the recorded catalog: schemas' own depth limit
    if not isinstance(header, dict) or header.get("mcpgen_cassette") != FORMAT:
        return None, [Problem(where, f"line 1 is not an mcpgen cassette header (format {FORMAT})")]
    recorded, problems = catalog_from_document(header.get("catalog"), f"{where} (recorded catalog)")
    if recorded is None:
        return None, problems
    problems = [p for p in problems if not p.warning]
    if len(lines) - 1 > MAX_EXCHANGES:
        return None, [Problem(where, f"more than {MAX_EXCHANGES} exchanges")]
    redacted = header.get("redacted")
    fields = redacted.get("fields") if isinstance(redacted, dict) else None
    cassette = Cassette(catalog or recorded, redacted_fields=frozenset(f for f in fields or [] if isinstance(f, str)))
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        entry, why = _read_line(text)
        exchange = _exchange(entry, number)
        if exchange is None:
            problems.append(Problem(where, f"line {number}: {why or 'not a recorded exchange'}"))
            continue
        cassette.exchanges.append(exchange)
    if catalog is not None:
        problems += _schema_changes(recorded, catalog, where)
    problems += _check_exchanges(cassette, where)
    return (None if problems else cassette), problems


def _read_line(text: str, limit: int = MAX_NESTING) -> tuple[Any, str | None]:
    """One line's JSON value, or (None, why not): not JSON, or nested deeper than MAX_NESTING
    (the parser's own recursion limit is a ValueError there, never a RecursionError)."""
    try:
        value = jsonrpc.stdlib_decode(text)
    except ValueError as exc:
        return None, "not JSON" if "nested" not in str(exc) else f"nested deeper than {limit} levels"
    if schema_depth(value, limit) > limit:
        return None, f"nested deeper than {limit} levels"
    return value, None


def _exchange(entry: Any, number: int) -> Exchange | None:
    if not isinstance(entry, dict) or entry.get("method") not in RECORDED_METHODS:
        return None
    params = entry.get("params")
    if not isinstance(params, dict):
        return None
    error = entry.get("error")
    if error is not None:
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            return None
        return Exchange(number, entry["method"], params, error=(error["code"], str(error.get("message", ""))))
    if "result" not in entry:
        return None
    return Exchange(number, entry["method"], params, result=entry["result"])


def _schema_changes(recorded: Catalog, current: Catalog, where: str) -> list[Problem]:
    now = {tool.name: tool for tool in current.tools}
    problems: list[Problem] = []
    for tool in recorded.tools:
        other = now.get(tool.name)
        if other is None:
            problems.append(
                Problem(where, f"tool {tool.name!r} was recorded but is gone from the source", tool=tool.name)
            )
            continue
        for label, old, new in (
            ("inputSchema", tool.input_schema, other.input_schema),
            ("outputSchema", tool.output_schema, other.output_schema),
        ):
            if old != new:
                problems.append(
                    Problem(where, f"tool {tool.name!r}: its {label} changed since the recording", tool=tool.name)
                )
    return problems


def _check_exchanges(cassette: Cassette, where: str) -> list[Problem]:
    tools = {tool.name: tool for tool in cassette.catalog.tools}
    checks: dict[str, tuple[Any, Any]] = {}
    problems: list[Problem] = []
    for exchange in cassette.exchanges:
        if exchange.method != "tools/call":
            continue
        name = exchange.params.get("name")
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            problems.append(Problem(where, f"line {exchange.line}: tool {name!r} is not in the catalog"))
            continue
        if tool.name not in checks:
            checks[tool.name] = (
                compile_validator(tool.input_schema),
                compile_validator(tool.output_schema) if tool.output_schema is not None else None,
            )
        check_in, check_out = checks[tool.name]
        if REDACTED in json.dumps(exchange.params) or REDACTED in json.dumps(exchange.result):
            continue  # a redacted value may break its schema on purpose: that exchange stays unchecked
        problem = check_in(exchange.params.get("arguments") or {})
        if problem is not None:
            problems.append(
                Problem(where, f"line {exchange.line}: tool {tool.name!r}: recorded arguments do not fit: {problem}")
            )
        result = exchange.result
        if check_out is not None and isinstance(result, dict) and not result.get("isError"):
            if "structuredContent" not in result:
                problems.append(Problem(where, f"line {exchange.line}: tool {tool.name!r}: no structuredContent"))
            else:
                problem = check_out(result["structuredContent"])
                if problem is not None:
                    problems.append(
                        Problem(
                            where, f"line {exchange.line}: tool {tool.name!r}: recorded result does not fit: {problem}"
                        )
                    )
    return problems


# -- replaying ----------------------------------------------------------------------


def _key(method: str, params: dict[str, Any]) -> str:
    wanted = {k: v for k, v in params.items() if k != "_meta"}
    if method == "tools/call":
        wanted.setdefault("arguments", {})
        if wanted["arguments"] is None:
            wanted["arguments"] = {}
    return method + " " + json.dumps(_canonical(wanted), sort_keys=True, ensure_ascii=False)


def _canonical(value: Any) -> Any:
    """JSON equality, not Python's: 2 and 2.0 are the same number on the wire (a typed client
    sends 2.0 for a `number` argument; a hand-written call sends 2)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


class Replay:
    """The recorded answers by request; the same request recorded n times answers in turn."""

    def __init__(self, cassette: Cassette) -> None:
        self.redact = Redactor(fields=cassette.redacted_fields)
        self.by_key: dict[str, list[Exchange]] = {}
        for exchange in cassette.exchanges:
            self.by_key.setdefault(_key(exchange.method, exchange.params), []).append(exchange)
        self._served: dict[str, int] = {}

    def answer(self, method: str, params: dict[str, Any]) -> Any:
        key = _key(method, self.redact(params))
        recorded = self.by_key.get(key)
        if not recorded:
            raise RpcError(jsonrpc.INVALID_PARAMS, self._miss(key))
        count = self._served.get(key, 0)
        self._served[key] = count + 1
        exchange = recorded[min(count, len(recorded) - 1)]
        if exchange.error is not None:
            raise RpcError(*exchange.error)
        return exchange.result

    def _miss(self, key: str) -> str:
        asked = key[:300]
        same_method = [k for k in self.by_key if k.split(" ", 1)[0] == key.split(" ", 1)[0]]
        if not same_method:
            return f"nothing recorded matches {asked}; the cassette holds no {key.split(' ', 1)[0]} request"
        closest = max(same_method, key=lambda k: difflib.SequenceMatcher(None, k[:2000], key[:2000]).ratio())
        return f"nothing recorded matches {asked}; the closest recorded request is {closest[:300]}"


def replay_server(cassette: Cassette) -> Server:
    """A server advertising the cassette's catalog and answering with its recorded exchanges."""
    replay = Replay(cassette)

    async def answer(method: str, params: dict[str, Any]) -> Any:
        return replay.answer(method, params)

    return catalog_server(cassette.catalog, answer, "mcpgen-replay")


Answer = Callable[[str, dict[str, Any]], Awaitable[Any]]


def catalog_server(catalog: Catalog, answer: Answer, default_name: str) -> Server:
    """A server advertising `catalog` verbatim whose every tools/call, prompts/get and
    resources/read is `answer(method, params)`, with params as the client sent them: what the
    replay server and the recording proxy share."""
    info = catalog.server_info or {}
    server = Server(
        str(info.get("name") or default_name), str(info.get("version") or "0"), instructions=catalog.instructions
    )
    for tool in catalog.tools:
        server.add_tool(tool.raw, _tool(tool.name, answer))
    for prompt in catalog.prompts:
        server.add_prompt(prompt, _prompt(str(prompt.get("name")), answer))
    for resource in catalog.resources:
        server.add_resource(resource, _resource(answer))
    for template in catalog.resource_templates:
        if template_pattern(str(template.get("uriTemplate", ""))) is not None:
            server.add_resource_template(template, _template(answer))
    return server


def _tool(name: str, answer: Answer) -> Any:
    async def call(arguments: dict[str, Any], ctx: RequestContext) -> Any:
        return await answer("tools/call", {"name": name, "arguments": arguments})

    return call


def _prompt(name: str, answer: Answer) -> Any:
    async def get(arguments: dict[str, str], ctx: RequestContext) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await answer("prompts/get", params)

    return get


def _resource(answer: Answer) -> Any:
    async def read(uri: str, ctx: RequestContext) -> Any:
        return await answer("resources/read", {"uri": uri})

    return read


def _template(answer: Answer) -> Any:
    async def read(uri: str, variables: dict[str, str], ctx: RequestContext) -> Any:
        return await answer("resources/read", {"uri": uri})

    return read


__all__ = [
    "Cassette",
    "CassetteWriter",
    "Redactor",
    "REDACTED",
    "Replay",
    "catalog_server",
    "load_cassette",
    "replay_server",
]
