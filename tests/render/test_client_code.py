"""Generated clients driven by a recording fake session (no processes: fast)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from generation import AWKWARD, GenerateFn, tool

from mcpgen.runtime.core.errors import InvalidArguments


class FakeSession:
    def __init__(self, reply: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any], float | None]] = []
        self.reply = reply or {"content": [{"type": "text", "text": "ok"}]}

    def know_tools(self, tools: Any) -> None:  # the generated client hands over its catalog
        pass

    async def call_tool(
        self, name: str, arguments: Any = None, *, timeout: float | None = None, progress: Any = None
    ) -> dict[str, Any]:
        self.calls.append((name, dict(arguments or {}), timeout))
        return self.reply


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_awkward_names_every_tool_callable_wire_name_unchanged(generate: GenerateFn) -> None:
    pkg = generate({"tools": [tool(w, {"x-y": {"type": "string"}}) for w in AWKWARD]})
    table = pkg._catalog.METHOD_NAMES
    assert sorted(table.values()) == sorted(AWKWARD)
    s = FakeSession()
    c = pkg.AsyncClient(s)
    for method, wire in table.items():
        r = run(getattr(c, method)(x_y="v"))
        assert r.text == "ok"
        assert s.calls[-1][:2] == (wire, {"x-y": "v"})


def test_omitted_optional_not_sent_and_defaults_not_sent(generate: GenerateFn) -> None:
    pkg = generate(
        [
            tool(
                "t",
                {
                    "req": {"type": "integer"},
                    "opt": {"type": "string"},
                    "dflt": {"type": "number", "default": 3},
                    "nullable": {"type": ["string", "null"]},
                },
                ["req"],
            )
        ]
    )
    s = FakeSession()
    c = pkg.AsyncClient(s)
    run(c.t(req=1))
    assert s.calls[-1][1] == {"req": 1}
    run(c.t(req=1, nullable=None, opt="x"))
    assert s.calls[-1][1] == {"req": 1, "nullable": None, "opt": "x"}
    with pytest.raises(Exception, match=r"^req: 'not-an-int' is not of type 'integer'$") as ei:
        run(c.t(req="not-an-int"))
    assert "req" in str(ei.value)
    assert len(s.calls) == 2  # invalid call never reached the wire


def test_structured_result_and_wrapped_result(generate: GenerateFn) -> None:
    pkg = generate(
        [
            tool("obj", outputSchema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            tool(
                "wrapped",
                outputSchema={
                    "type": "object",
                    "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
                    "required": ["result"],
                },
            ),
            tool(
                "fast",
                outputSchema={
                    "type": "object",
                    "x-fastmcp-wrap-result": True,
                    "properties": {"result": {"type": "integer"}},
                    "required": ["result"],
                },
            ),
        ]
    )
    r = run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"n": 4}})).obj())
    assert isinstance(r, pkg.models.ObjResult) and r.n == 4
    r = run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"result": [1, 2]}})).wrapped())
    assert r == [1, 2]
    r = run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"result": 7}})).fast())
    assert r == 7
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 'obj': output does not match outputSchema: .*\n.*/n: 'x' is not of type 'integer' ",
    ):
        run(pkg.AsyncClient(FakeSession({"content": [], "structuredContent": {"n": "x"}})).obj())


def test_is_error_raises_tool_error_with_content_unvalidated(generate: GenerateFn) -> None:
    pkg = generate(
        [tool("t", outputSchema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})]
    )
    s = FakeSession({"isError": True, "content": [{"type": "text", "text": "boom"}, {"type": "weird", "z": 1}]})
    with pytest.raises(pkg.ToolError, match=r"^tool 't' failed: boom$") as ei:
        run(pkg.AsyncClient(s).t())
    assert ei.value.text == "boom" and ei.value.content[1].type == "weird"


def test_content_blocks_typed(generate: GenerateFn) -> None:
    pkg = generate([tool("t")])
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "image", "data": "AA==", "mimeType": "image/png"},
        {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "x://1", "name": "one"},
        {"type": "resource", "resource": {"uri": "x://2", "text": "b", "mimeType": "text/plain"}},
    ]
    r = run(pkg.AsyncClient(FakeSession({"content": blocks})).t())
    assert [type(b).__name__ for b in r.content] == [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
    ]
    assert r.text == "a" and r.content[4].text == "b" and r.content[3].uri == "x://1"


def test_with_options_never_collides_with_tool_args(generate: GenerateFn) -> None:
    pkg = generate([tool("t", {"timeout": {"type": "number"}, "progress": {"type": "string"}})])
    s = FakeSession()
    c = pkg.AsyncClient(s)
    run(c.with_options(timeout=5.0).t(timeout=1.5, progress="p"))
    assert s.calls[-1] == ("t", {"timeout": 1.5, "progress": "p"}, 5.0)
    run(c.t(timeout=2))
    assert s.calls[-1][2] is None  # the view did not change the original client


def test_tool_definitions_and_dispatch(generate: GenerateFn) -> None:
    raw = tool("get-sum", {"a": {"type": "number"}, "b": {"type": "number"}}, ["a", "b"], description="Adds")
    pkg = generate([raw])
    s = FakeSession()
    c = pkg.AsyncClient(s)
    assert c.tool_definitions() == [{"name": "get-sum", "description": "Adds", "input_schema": raw["inputSchema"]}]
    assert run(c.dispatch("get-sum", {"a": 1, "b": 2})).text == "ok"
    assert s.calls[-1][:2] == ("get-sum", {"a": 1, "b": 2})
    assert run(c.dispatch("get_sum", '{"a": 1, "b": 2}')).text == "ok"  # method name + JSON string
    bad = run(c.dispatch("get-sum", {"a": "x"}))
    assert bad.is_error and "b" in bad.text and "a" in bad.text
    assert run(c.dispatch("nope", {})).is_error
    assert run(c.dispatch("get-sum", "{not json")).is_error
    assert len(s.calls) == 2
    s.reply = {"isError": True, "content": [{"type": "text", "text": "tool broke"}]}
    r = run(c.dispatch("get-sum", {"a": 1, "b": 2}))
    assert r.is_error and r.text == "tool broke"


def test_connect_without_source_command_is_clear(generate: GenerateFn) -> None:
    pkg = generate([tool("t")])
    with pytest.raises(RuntimeError, match="connect_stdio"):
        pkg.AsyncClient.connect()


def test_refs_hoisted_and_external_refs_refused(generate: GenerateFn) -> None:
    schema = {
        "type": "object",
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
        "properties": {"p": {"$ref": "#/$defs/Point"}, "q": {}},
        "required": ["p"],
    }
    pkg = generate([{"name": "t", "inputSchema": schema}])
    s = FakeSession()
    run(pkg.AsyncClient(s).t(p=pkg.models.TArgsPoint(x=1), q={"any": "thing"}))
    assert s.calls[-1][1] == {"p": {"x": 1}, "q": {"any": "thing"}}
    from mcpgen.catalog.model import StageError

    external = {
        "type": "object",
        "properties": {"q": {"$ref": "https://evil.example/schema.json"}, "r": {"$ref": "/etc/passwd"}},
    }
    with pytest.raises(
        StageError, match=r"does not resolve inside the document \(mcpgen never reads files or URLs\)"
    ) as ei:
        generate([{"name": "t", "inputSchema": external}])
    text = str(ei.value)
    assert "evil.example" in text and "/etc/passwd" in text and "/properties/q/$ref" in text


def test_hostile_strings_do_not_execute(generate: GenerateFn, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = f'"""\\\'\'\'\nimport pathlib; pathlib.Path({str(marker)!r}).write_text("x")\n#\x00\u2028'
    raw = {
        "name": evil,
        "title": evil,
        "description": evil,
        "inputSchema": {
            "type": "object",
            "description": evil,
            "title": evil,
            "properties": {
                evil: {"type": "string", "description": evil, "default": evil, "enum": [evil, "b"], "pattern": ".*"}
            },
        },
    }
    pkg = generate([raw])
    import importlib

    importlib.import_module(pkg.__name__ + ".models")
    assert not marker.exists()
    s = FakeSession()
    method = next(iter(pkg._catalog.METHOD_NAMES))
    run(getattr(pkg.AsyncClient(s), method)(**{pkg.AsyncClient.__dict__[method].__code__.co_varnames[1]: "b"}))
    assert s.calls[-1][0] == evil and list(s.calls[-1][1]) == [evil]
    assert json.loads(pkg._catalog.TOOLS_JSON[0]) == raw


def test_methods_send_their_arguments_by_wire_name(generate: GenerateFn) -> None:
    """A typed method names what it sends, `{"the-id": the_id, "n": n}` (wire names as keys); an
    argument left out is UNSET and the runtime drops it: only what the caller set goes on the wire."""
    doc = {"tools": [tool("get-it", {"the-id": {"type": "string"}, "n": {"type": "integer"}}, ["the-id"])]}
    pkg = generate(doc)
    assert '{"the-id": the_id, "n": n}' in Path(pkg.client.__file__).read_text()
    s = FakeSession()
    run(pkg.AsyncClient(s).get_it(the_id="x"))
    run(pkg.AsyncClient(s).get_it(the_id="y", n=2))
    assert [c[:2] for c in s.calls] == [("get-it", {"the-id": "x"}), ("get-it", {"the-id": "y", "n": 2})]


def test_plain_arguments_the_schema_accepts_are_sent_without_building_the_args_model(
    generate: GenerateFn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Args model accepts every instance its schema does, so plain JSON the schema accepts is
    sent as given; the model is built only for other values (here a tuple) and to word a refusal."""
    pkg = generate({"tools": [tool("get-it", {"the-id": {"type": "string"}, "tags": {"type": "array"}}, ["the-id"])]})
    args_model = next(getattr(pkg.models, n) for n in dir(pkg.models) if n.endswith("Args"))
    built: list[Any] = []
    real = args_model.model_validate.__func__

    def counting(cls: Any, obj: Any, *a: Any, **k: Any) -> Any:
        built.append(obj)
        return real(cls, obj, *a, **k)

    monkeypatch.setattr(args_model, "model_validate", classmethod(counting))
    s = FakeSession()
    run(pkg.AsyncClient(s).get_it(the_id="x", tags=["a", 1]))
    assert built == [] and s.calls[-1][:2] == ("get-it", {"the-id": "x", "tags": ["a", 1]})
    run(pkg.AsyncClient(s).get_it(the_id="y", tags=("a",)))  # a tuple: built, dumped as a list
    assert len(built) == 1 and s.calls[-1][:2] == ("get-it", {"the-id": "y", "tags": ["a"]})
    with pytest.raises(InvalidArguments, match="the_id"):
        run(pkg.AsyncClient(s).get_it(the_id=3))  # refused: worded by Python name
    assert len(s.calls) == 2


def test_scalar_results_the_schema_accepts_come_back_as_sent_and_others_are_still_checked(
    generate: GenerateFn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrapped str, int, float or bool result is what its RootModel would give back unchanged, so
    the model is not built for it; the outputSchema is still checked. A "number" root is int | float
    (issue 35): an integer the server sent comes back an int."""
    wrapped = {"type": "object", "properties": {"result": {"type": "string", "maxLength": 3}}, "required": ["result"]}
    number = {"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]}
    pkg = generate([tool("short", outputSchema=wrapped), tool("number", outputSchema=number)])
    result_models = [getattr(pkg.models, n) for n in dir(pkg.models) if n.endswith("Result")]
    built: list[Any] = []
    for model in result_models:
        real = model.model_validate.__func__

        def counting(cls: Any, obj: Any, *a: Any, _real: Any = real, **k: Any) -> Any:
            built.append(obj)
            return _real(cls, obj, *a, **k)

        monkeypatch.setattr(model, "model_validate", classmethod(counting))

    def client(structured: Any) -> Any:
        return pkg.AsyncClient(FakeSession({"content": [], "structuredContent": structured}))

    text = "abc"
    assert run(client({"result": text}).short()) is text
    assert run(client({"result": 2.5}).number()) == 2.5
    assert built == []
    three = run(client({"result": 3}).number())  # a number root is int | float: 3 stays an int
    assert type(three) is int and three == 3 and built == []
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 'short': output does not match outputSchema: .*\n.*\(top level\): 'abcd' is too long ",
    ):
        run(client({"result": "abcd"}).short())  # longer than maxLength: refused, not passed through
    with pytest.raises(
        pkg.ToolOutputError,
        match=r"^tool 'short': output does not match outputSchema: .*\n.*\(top level\): 5 is not of type 'string' ",
    ):
        run(client({"result": 5}).short())
