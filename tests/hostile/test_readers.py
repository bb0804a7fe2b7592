"""The untrusted-input rule against every reader of outside input at once: skill folders and
served skill files, task ids and task records read back from the store, W3C trace context, the
LLM discovery meta-tools, icons, cache hints and URL-mode elicitation URLs.

Each reader is fed every field oversize, of every wrong type, as every hostile string of
hostile_readers.py (code-looking text, traversal, other origins, controls, a megabyte) and
nested deep, and must end in the rule's outcome: a value within the reader's bounds (a URL
of its own origin, a file inside its folder), or a refusal of its one error type with a
one-line reason; never another exception, never a value past a bound. Where a session carries
the value (tasks, skills, URL elicitation), the session answers a ping afterwards."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_readers import (
    DEEP,
    DEEP_BYTES,
    HOSTILE_STRINGS,
    HOSTILE_VALUES,
    OTHER_ORIGIN,
    WRONG_TYPES,
    deep,
    label,
    one_line,
)

from mcpgen.plan.icons import MAX_ICONS, MAX_LINK_CHARS, SHOWN_CHARS, icons_of
from mcpgen.runtime import RpcError, Server, connect_memory
from mcpgen.runtime.client.catalog import ToolCatalog
from mcpgen.runtime.client.llm_discovery import MAX_LOAD_AT_ONCE, MAX_LOADED, Discovery
from mcpgen.runtime.client.options import ConnectOptions
from mcpgen.runtime.client.result_cache import MAX_ENTRIES, MAX_RESULT_BYTES, MAX_TTL_MS, ResultCache
from mcpgen.runtime.client.skills import MAX_URI_CHARS, parse_entry, read_skill_file
from mcpgen.runtime.client.tasks import task_id_of, task_meta
from mcpgen.runtime.client.tool_search import MAX_QUERY, MAX_WORDS, query_words
from mcpgen.runtime.client.url_elicitation import MAX_MESSAGE_CHARS, MAX_URL_CHARS, satisfied, url_params
from mcpgen.runtime.core.errors import ProtocolError, SkillVerificationError
from mcpgen.runtime.core.jsonrpc import INVALID_PARAMS, URL_ELICITATION_REQUIRED
from mcpgen.runtime.core.skills import MAX_BYTES, MAX_FILES, MAX_FRONTMATTER_CHARS, digest_of, split_frontmatter
from mcpgen.runtime.core.tables import ToolRow
from mcpgen.runtime.core.trace_context import MAX_TRACESTATE, trace_context_of, valid_traceparent
from mcpgen.runtime.server.cache_hints import CacheHint
from mcpgen.runtime.server.skills import scan_skills
from mcpgen.runtime.server.store import MemoryStore
from mcpgen.runtime.server.tasks import TaskRecord

pytestmark = pytest.mark.timeout(120)

GOOD_MD = "---\nname: {name}\ndescription: d\n---\nbody\n"


def _ids(values: list[Any]) -> list[str]:
    return [f"{i}-{label(v)}" for i, v in enumerate(values)]


# -- skill folders (server) --------------------------------------------------------------


def _skill(top: Path, name: str = "ok", md: str | None = None) -> Path:
    folder = top / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(GOOD_MD.format(name=name) if md is None else md, "utf-8", errors="surrogatepass")
    return folder


def _frontmatter(block: str) -> str:
    return f"---\nname: ok\ndescription: d\n{block}\n---\n"


# Each a frontmatter the reader must refuse in one line: YAML it does not take (anchors,
# aliases, tags), oversize, and nesting built to exhaust the stack, by indentation and by flow.
HOSTILE_FRONTMATTER = {
    "anchor": (_frontmatter("a: &x [1, 2]\nb: *x"), "YAML this reader does not take"),
    "tag": (_frontmatter("a: !!python/object/apply:os.system ['id']"), "YAML this reader does not take"),
    "oversize": (_frontmatter("a: " + "x" * (MAX_FRONTMATTER_CHARS + 1)), "over 65536 characters"),
    "mapping nest": (
        _frontmatter("\n".join(" " * i + f"k{i}:" for i in range(300)) + "\n" + " " * 300 + "v: 1"),
        "nests deeper",
    ),
    "list nest": (_frontmatter("a:\n" + "\n".join(" " * (i + 1) + "-" for i in range(300))), "nests deeper"),
    "flow nest": (_frontmatter("a: " + "[" * 30_000 + "]" * 30_000), "nests deeper"),
    "no name": ("---\ndescription: d\n---\n", "no non-empty string 'name'"),
    "name of another": (GOOD_MD.format(name="other"), "not its folder's name"),
    "code name": (GOOD_MD.format(name="\"__import__('os').system('id')\""), "not its folder's name"),
    "not utf-8": ("---\nname: ok\ndescription: \udcff\n---\n", "utf-8"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FRONTMATTER))
def test_a_hostile_skill_md_is_refused_in_one_line_by_the_server_and_the_reader(case: str, tmp_path: Path) -> None:
    text, reason = HOSTILE_FRONTMATTER[case]
    _skill(tmp_path, md=text)
    with pytest.raises(ValueError, match=f"SKILL.md.*{reason}") as refused:
        scan_skills(tmp_path)
    one_line(refused.value)


@pytest.mark.parametrize("name", ["Upper", "a--b", "-a", "a_b", "x" * 65, "caf\u00e9", "a\x1bb"])
def test_a_skill_folder_breaking_the_naming_rule_is_refused(name: str, tmp_path: Path) -> None:
    _skill(tmp_path, name)
    with pytest.raises(ValueError, match="naming rule") as refused:
        scan_skills(tmp_path)
    one_line(refused.value)


def _too_many_files(folder: Path) -> None:
    for i in range(MAX_FILES + 1):
        (folder / f"f{i}.txt").write_bytes(b"")


def _too_many_bytes(folder: Path) -> None:
    with open(folder / "big.bin", "wb") as big:  # sparse: the bound is on the size, not the read
        big.truncate(MAX_BYTES + 1)


def _link_out(folder: Path) -> None:
    (folder / "passwd").symlink_to("/etc/passwd")


def _link_folder_out(folder: Path) -> None:
    (folder / "etc").symlink_to("/etc", target_is_directory=True)


def _link_skill_md(folder: Path) -> None:
    (folder / "SKILL.md").unlink()
    (folder.parent / "elsewhere.md").write_text(GOOD_MD.format(name="ok"))
    (folder / "SKILL.md").symlink_to(folder.parent / "elsewhere.md")


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "pipe")


FOLDER_ATTACKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "files": (_too_many_files, "files"),
    "bytes": (_too_many_bytes, "bytes"),
    "link out": (_link_out, "link"),
    "folder link out": (_link_folder_out, "link"),
    "SKILL.md a link": (_link_skill_md, "link"),
    "fifo": (_fifo, "no regular file"),
}


@pytest.mark.parametrize("case", sorted(FOLDER_ATTACKS))
def test_a_skill_folder_past_a_bound_or_leaving_the_folder_is_refused(case: str, tmp_path: Path) -> None:
    attack, reason = FOLDER_ATTACKS[case]
    attack(_skill(tmp_path / "skills"))
    with pytest.raises(ValueError, match=reason) as refused:
        scan_skills(tmp_path / "skills")
    one_line(refused.value)


def test_hostile_strings_in_frontmatter_values_stay_data(tmp_path: Path) -> None:
    fields = "\n".join(f"f{i}: {json.dumps(s[:2000])}" for i, s in enumerate(HOSTILE_STRINGS) if "\ud800" not in s)
    _skill(tmp_path, md=_frontmatter(fields))
    [skill] = scan_skills(tmp_path)
    assert all(isinstance(v, str) for k, v in skill.frontmatter.items() if k.startswith("f"))


# -- served skill entries and files (client) -------------------------------------------------

ROOT = "skill://ok"
MD = GOOD_MD.format(name="ok").encode()


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "uri": f"{ROOT}/SKILL.md",
        "frontmatter": {"name": "ok", "description": "d"},
        "resources": [{"uri": f"{ROOT}/SKILL.md", "digest": digest_of(MD), "size": len(MD)}],
    }
    entry.update(changes)
    return entry


def _file(**changes: Any) -> dict[str, Any]:
    return {"uri": f"{ROOT}/a.txt", "digest": digest_of(b"a"), "size": 1, **changes}


def _entries() -> list[Any]:
    """Every field of an entry and of a manifest item given every hostile value."""
    out: list[Any] = [*HOSTILE_VALUES]
    for value in HOSTILE_VALUES:
        out.append(_entry(uri=value))
        out.append(_entry(frontmatter=value))
        out.append(_entry(frontmatter={"name": value, "description": "d"}))
        out.append(_entry(frontmatter={"name": "ok", "description": value}))
        out.append(_entry(resources=value))
        for key in ("uri", "digest", "size"):
            out.append(_entry(resources=[*_entry()["resources"], _file(**{key: value})]))
        if isinstance(value, str):
            out.append(_entry(resources=[*_entry()["resources"], _file(uri=f"{ROOT}/{value}")]))
    for uri in ["skill://other/a.txt", "https://evil.example/ok/a", f"{ROOT}/../other/SKILL.md", f"{ROOT}//a"]:
        out.append(_entry(resources=[*_entry()["resources"], _file(uri=uri)]))
    many = [_file(uri=f"{ROOT}/f{i}") for i in range(MAX_FILES + 1)]
    out.append(_entry(resources=many))
    out.append(_entry(resources=[*_entry()["resources"], _file(size=MAX_BYTES)]))
    out.append(_entry(resources=[*_entry()["resources"], _file(uri=f"{ROOT}/" + "a" * MAX_URI_CHARS)]))
    return out


def test_every_field_of_a_skill_entry_is_checked_before_it_becomes_a_skill() -> None:
    accepted = 0
    for raw in _entries():
        try:
            skill = parse_entry(raw)
        except SkillVerificationError as refused:
            one_line(refused)
            continue
        accepted += 1
        # What is accepted is bounded and inside the skill's folder, whatever the input was.
        assert skill.uri.startswith("skill://") and len(skill.uri) <= MAX_URI_CHARS
        assert skill.files is not None and len(skill.files) <= MAX_FILES and skill.total_size <= MAX_BYTES
        for f in skill.files:
            assert f.uri.startswith(skill.root + "/") and ".." not in f.path.split("/") and f.uri.isprintable()
            assert "%2" not in f.uri.lower() and "\\" not in f.uri
    assert accepted > 5  # the hostile descriptions are data: taken, not refused


class _Served:
    """A session whose resources/read answers `result` (what a hostile server would send)."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.read: list[str] = []

    async def read_resource(self, uri: str) -> Any:
        self.read.append(uri)
        return self.result


def _contents(**content: Any) -> dict[str, Any]:
    return {"contents": [{"uri": f"{ROOT}/SKILL.md", **content}]}


def _served_files() -> list[Any]:
    out: list[Any] = [*HOSTILE_VALUES]
    for value in HOSTILE_VALUES:
        out += [_contents(text=value), _contents(blob=value), {"contents": value}, {"contents": [value]}]
        out.append({"contents": [{"uri": value, "text": MD.decode()}]})
    out.append(_contents(text="x" * (MAX_BYTES + 1)))
    out.append(_contents(blob="QUFB" * MAX_BYTES))
    out.append(_contents(text=MD.decode() + " "))  # one byte over the manifest
    out.append(_contents(text=MD.decode().replace("d\n", "e\n")))  # same size, other digest
    out.append({"contents": [_contents(text=MD.decode())["contents"][0]] * 2})
    return out


def test_a_served_skill_file_is_returned_only_when_its_size_and_digest_match() -> None:
    skill = parse_entry(_entry())
    for result in _served_files():
        with pytest.raises(SkillVerificationError, match="skill") as refused:
            asyncio.run(read_skill_file(_Served(result), skill))  # type: ignore[arg-type]
        one_line(refused.value)
    content = asyncio.run(read_skill_file(_Served(_contents(text=MD.decode())), skill))  # type: ignore[arg-type]
    assert content.data == MD


@pytest.mark.parametrize("path", ["../other/SKILL.md", "https://evil.example/x", "a/../../b", "%2e%2e/x", "a\\..\\b"])
def test_a_dynamic_skill_reads_nothing_outside_its_folder(path: str) -> None:
    skill = parse_entry(_entry(resources="dynamic"))
    served = _Served(_contents(text=MD.decode()))
    with pytest.raises(LookupError, match="no file of the skill") as refused:
        asyncio.run(read_skill_file(served, skill, path))  # type: ignore[arg-type]
    one_line(refused.value)
    assert served.read == []


def test_a_hostile_skills_server_leaves_the_session_alive() -> None:
    server = Server("hostile-skills", "1.0", capabilities={"extensions": {"io.modelcontextprotocol/skills": {}}})
    entries = [e for e in _entries()[-40:]]

    async def listing(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"skills": entries}

    server.add_method("skills/list", listing)

    async def main() -> None:
        async with connect_memory(server, protocol="2026-07-28") as session:
            with pytest.raises(SkillVerificationError, match="skill") as refused:
                await session.list_skills()
            one_line(refused.value)
            await session.ping()

    asyncio.run(asyncio.wait_for(main(), 30))


# -- task ids and records read back from the store -------------------------------------------


def _record(**changes: Any) -> bytes:
    good = json.loads(TaskRecord("t" * 24, ttl_ms=1000, poll_ms=100, beat=1.0).encode())
    return json.dumps({**good, **changes}).encode()


def test_every_field_of_a_stored_task_record_is_checked() -> None:
    fields = ["id", "status", "created", "updated", "ttl", "poll", "beat", "message", "inputs", "result", "error"]
    assert TaskRecord.decode(_record()) is not None
    for raw in [DEEP_BYTES, b"\xff\xfe", b"[]", b"null", b"x" * (5 << 20)]:
        assert TaskRecord.decode(raw) is None
    for key in fields:
        for value in [*HOSTILE_VALUES, deep(900, {})]:
            record = TaskRecord.decode(_record(**{key: value}))
            if record is None:
                continue
            # A record taken is one of the shapes the server writes, every number finite.
            assert isinstance(record.task_id, str) and record.status in ("working", "input_required", "completed")
            for number in (record.ttl_ms, record.poll_ms):
                assert type(number) is int and 0 <= number, (key, value)
            assert isinstance(record.beat, float) and record.beat == record.beat and abs(record.beat) < 1e300
            assert record.message is None or isinstance(record.message, str)
            assert isinstance(record.input_requests, dict)
            assert all(v is None or isinstance(v, dict) for v in (record.result, record.error))


def _sendable(value: Any) -> bool:
    """What a client can put on the wire at all (no lone surrogate, no NaN)."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode()
    except (ValueError, RecursionError):
        return False
    return True


async def _empty(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {"content": []}


def test_hostile_task_ids_and_planted_records_are_unknown_in_one_line_and_the_session_survives() -> None:
    store = MemoryStore()
    server = Server("tasks-hostile", "1.0")
    server.add_tool({"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}, _empty)
    server.tasks.use_store(store)
    planted = {
        f"{i:024d}": _record(id=f"{i:024d}", **{key: value})
        for i, (key, value) in enumerate(
            [("beat", float("nan")), ("beat", float("inf")), ("ttl", True), ("poll", -5), ("status", "evil")]
        )
    }

    async def main() -> None:
        for task_id, raw in planted.items():
            assert await store.create_task(task_id, raw, 60, 100)
        async with connect_memory(server, protocol="2026-07-28") as session:
            meta = {"_meta": task_meta(session)}
            sendable = [v for v in HOSTILE_VALUES if _sendable(v)]
            for task_id in [*sendable, *planted]:
                for method in ("tasks/get", "tasks/cancel", "tasks/update"):
                    params = {"taskId": task_id, "inputResponses": {}, **meta}
                    with pytest.raises(RpcError, match="Unknown task") as refused:
                        await session.session.request(method, params)
                    assert refused.value.code == INVALID_PARAMS
                    one_line(refused.value)
            await session.ping()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_task_id_a_server_mints_is_taken_only_printable_and_bounded() -> None:
    for value in HOSTILE_VALUES:
        try:
            task_id = task_id_of({"taskId": value})
        except ProtocolError as refused:
            one_line(refused)
            continue
        assert task_id == value and task_id.isprintable() and len(task_id) <= 256


# -- W3C trace context ----------------------------------------------------------------------


def test_trace_context_takes_only_the_w3c_format_and_never_echoes_a_value(caplog: pytest.LogCaptureFixture) -> None:
    good = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"
    caplog.set_level(logging.DEBUG, "mcpgen.runtime.trace")
    for value in [*HOSTILE_VALUES, good + "-x", "01-" + "a" * 32 + "-" + "b" * 16 + "-01-" + "c" * 300]:
        for meta in ({"traceparent": value}, {"traceparent": good, "tracestate": value}, {"tracestate": value}):
            trace = trace_context_of(meta)
            if trace is not None:
                assert valid_traceparent(trace.traceparent) and len(trace.traceparent) <= 256
                assert trace.tracestate is None or len(trace.tracestate) <= MAX_TRACESTATE
                assert trace.traceparent == good or value != meta.get("traceparent")
    logged = caplog.text
    assert "evil.example" not in logged and "etc/passwd" not in logged and "x" * 1000 not in logged
    members = ",".join(f"k{i}=v" for i in range(40))
    assert trace_context_of({"traceparent": good, "tracestate": members}) == trace_context_of({"traceparent": good})


# -- LLM discovery queries ---------------------------------------------------------------------


def _catalog(count: int) -> ToolCatalog:
    tools = [{"name": f"tool_{i}", "description": f"does {i}", "inputSchema": {"type": "object"}} for i in range(count)]
    table = {t["name"]: ToolRow("Args", None, "content") for t in tools}
    return ToolCatalog(tuple(json.dumps(t) for t in tools), table, {}, {})


def test_discovery_bounds_what_the_model_sends() -> None:
    catalog = _catalog(60)
    discovery = Discovery()
    for meta, key in (("search_tools", "query"), ("describe_tool", "name"), ("load_tools", "names")):
        for value in [*HOSTILE_VALUES, [*HOSTILE_STRINGS], ["tool_1"] * (MAX_LOAD_AT_ONCE + 1)]:
            try:
                answer = discovery.answer(catalog, meta, {key: value})
            except ValueError as refused:
                one_line(refused)
                continue
            assert isinstance(json.loads(answer), (list, dict))
    for batch in range(10):
        discovery.answer(catalog, "load_tools", {"names": [f"tool_{batch * 6 + i}" for i in range(6)]})
    assert len(discovery.loaded) == MAX_LOADED
    for query in HOSTILE_STRINGS + [" ".join(["w"] * 1000)]:
        words = query_words(query)
        assert len(words) <= MAX_WORDS and sum(map(len, words)) <= MAX_QUERY


# -- icons ------------------------------------------------------------------------------------


def test_icons_link_only_safe_http_urls_and_show_bounded_lines() -> None:
    fields = ("src", "mimeType", "sizes", "theme")
    definitions: list[Any] = [*HOSTILE_VALUES, {"icons": DEEP}, {"icons": [{"src": "https://a.example/i.png"}] * 50}]
    for value in [*HOSTILE_VALUES, [*HOSTILE_STRINGS]]:
        definitions += [{"icons": value}, *({"icons": [{"src": "https://a.example/", f: value}]} for f in fields)]
    for definition in definitions:
        icons = icons_of(definition)
        assert len(icons) <= MAX_ICONS
        for icon in icons:
            assert "\n" not in icon.text and len(icon.shown) <= SHOWN_CHARS
            assert icon.link is None or (
                icon.link.startswith(("http://", "https://")) and len(icon.link) <= MAX_LINK_CHARS
            )
            assert icon.link is None or not any(c in icon.link for c in "\"'<>()[]\\ \x00\x1b")


# -- cache hints -------------------------------------------------------------------------------


def test_cache_hints_are_bounded_whatever_the_server_says() -> None:
    cache = ResultCache()
    for i, ttl in enumerate([*HOSTILE_VALUES, 1e308, -1e308]):
        cache.put(("tools/list", str(i)), {"ttlMs": ttl, "tools": []})
    now = time.monotonic()
    assert all(expires - now <= MAX_TTL_MS / 1000 for expires, _ in cache._entries.values())
    cache.put(("tools/list", "big"), {"ttlMs": 1000, "tools": ["x" * MAX_RESULT_BYTES]})
    assert cache.get(("tools/list", "big")) is None
    for levels in (300, 600, 900):  # json.dumps and deepcopy each meet the recursion limit somewhere
        cache.put(("tools/list", f"deep{levels}"), {"ttlMs": 1000, "tools": deep(levels)})
        found = cache.get(("tools/list", f"deep{levels}"))
        assert found is None or found["tools"] == deep(levels)
    for i in range(MAX_ENTRIES * 2):
        cache.put(("resources/read", str(i)), {"ttlMs": 1000, "contents": []})
    assert len(cache) == MAX_ENTRIES
    for value in WRONG_TYPES:
        with pytest.raises((ValueError, TypeError), match="cache hint") as refused:
            CacheHint(ttl_ms=value, scope=value)
        one_line(refused.value)


# -- URL-mode elicitation -----------------------------------------------------------------------


def test_a_url_elicitation_reaches_the_callback_only_as_a_bounded_http_url() -> None:
    params: list[Any] = []
    for value in [*HOSTILE_VALUES, "https://ok.example/" + "a" * MAX_URL_CHARS]:
        params += [{"url": value, "message": "m", "elicitationId": "e"}]
        params += [{"url": "https://ok.example/", "message": value, "elicitationId": "e"}]
        params += [{"url": "https://ok.example/", "message": "m", "elicitationId": value}]
    for p in params:
        try:
            shown = url_params(p)
        except RpcError as refused:
            assert refused.code == INVALID_PARAMS
            one_line(refused)
            continue
        assert shown["url"].split("://")[0].lower() in ("http", "https") and len(shown["url"]) <= MAX_URL_CHARS
        assert shown["url"].isprintable() and len(shown["message"]) <= MAX_MESSAGE_CHARS
        assert len(shown["elicitationId"]) <= 256


def test_a_hostile_url_required_refusal_is_never_asked_and_never_raises_otherwise() -> None:
    shown: list[Any] = []

    async def user(params: dict[str, Any]) -> dict[str, Any]:
        shown.append(params)
        return {"action": "accept"}

    options = ConnectOptions(on_elicitation=user, url_elicitation=True)
    for value in [*HOSTILE_VALUES, [{"url": s, "message": "m", "elicitationId": "e"} for s in HOSTILE_STRINGS]]:
        for data in ({"elicitations": value}, {"elicitations": [value]}, value):
            error = RpcError(URL_ELICITATION_REQUIRED, "needs a link", data)
            assert asyncio.run(satisfied(options, error)) in (True, False)
    assert all(p["url"].startswith(("http://", "https://")) and p["url"].isprintable() for p in shown)


def test_a_server_sending_hostile_urls_reaches_the_user_only_with_safe_ones_and_the_session_survives() -> None:
    urls = [v for v in HOSTILE_VALUES if _sendable(v)]
    shown: list[Any] = []

    async def user(params: dict[str, Any]) -> dict[str, Any]:
        shown.append(params)
        return {"action": "accept"}

    async def asks(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        refused = 0
        for url in urls:
            try:
                await ctx.request_elicitation({"mode": "url", "url": url, "message": "m", "elicitationId": "e"})
            except RpcError:
                refused += 1
        return {"content": [{"type": "text", "text": str(refused)}]}

    async def requires(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        # A URL the user may accept, then ones urlsplit cannot read: refused, the refusal raised as it came.
        listed = [OTHER_ORIGIN, "http://[::1", "https://\uff03evil.example@x/"]
        elicitations = [{"mode": "url", "url": u, "message": "m", "elicitationId": "e"} for u in listed]
        raise RpcError(URL_ELICITATION_REQUIRED, "needs a link", {"elicitations": elicitations})

    server = Server("hostile-urls", "1.0")
    server.add_tool({"name": "asks", "inputSchema": {"type": "object"}}, asks)
    server.add_tool({"name": "requires", "inputSchema": {"type": "object"}}, requires)

    async def main() -> None:
        options = {"on_elicitation": user, "url_elicitation": True}
        async with connect_memory(server, protocol="legacy", **options) as session:  # type: ignore[arg-type]
            result = await session.call_tool("asks", {})
            # Only the well-formed https URL is shown (never opened: the user decides); the rest refused.
            assert int(result["content"][0]["text"]) == len(urls) - 1
            with pytest.raises(RpcError, match="needs a link"):
                await session.call_tool("requires", {})
            await session.ping()

    asyncio.run(asyncio.wait_for(main(), 30))
    assert [p["url"] for p in shown] == [OTHER_ORIGIN] * 2


def test_split_frontmatter_reads_what_it_takes_and_refuses_the_rest_in_one_line() -> None:
    assert split_frontmatter(GOOD_MD.format(name="ok"))[0] == {"name": "ok", "description": "d"}
    for case, (text, reason) in HOSTILE_FRONTMATTER.items():
        if case in ("name of another", "code name", "not utf-8"):  # (the server's checks: its name, its bytes)
            continue
        with pytest.raises(ValueError, match=reason) as refused:
            split_frontmatter(text)
        one_line(refused.value)
