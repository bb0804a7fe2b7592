"""The runtime's adapter between a generated server's tables and handlers and `Server`, in process:
what a handler may return or raise, and what binding refuses. (What a whole generated server
sends, byte for byte, is tests/functional/server/test_wire_transcript.py.)"""

from __future__ import annotations

import asyncio
import json
import types
from typing import Any

import pydantic
import pytest
from memory_transport import pair

from mcpgen.runtime import Session, ToolError
from mcpgen.runtime.core.results import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    ToolResult,
    UnknownContent,
)
from mcpgen.runtime.core.tables import HandledTool, ResultMode
from mcpgen.runtime.server.adapter import CompletionHook, SubscriptionHook, bind_handlers


class EchoArgs(pydantic.BaseModel):
    text: str = ""


class PointResult(pydantic.BaseModel):
    x: int


MODELS = types.ModuleType("fake_models")
MODELS.EchoArgs = EchoArgs  # type: ignore[attr-defined]
MODELS.PointResult = PointResult  # type: ignore[attr-defined]
ECHO = {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
POINT = {"name": "point", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}


def tables(**overrides: Any) -> types.SimpleNamespace:
    base: dict[str, Any] = {
        "SERVER_NAME": "adapter",
        "SERVER_VERSION": "1",
        "SERVER_INFO_JSON": "{}",
        "INSTRUCTIONS": None,
        "TOOLS_JSON": (json.dumps(ECHO), json.dumps(POINT)),
        "PROMPTS_JSON": (),
        "RESOURCES_JSON": (),
        "TEMPLATES_JSON": (),
        "TOOLS": {
            "echo": HandledTool("echo", "EchoArgs", None, ResultMode.CONTENT),
            "point": HandledTool("point", "EchoArgs", "PointResult", ResultMode.MODEL),
        },
        "PROMPTS": {},
        "RESOURCES": {},
        "TEMPLATES": {},
    }
    return types.SimpleNamespace(**{**base, **overrides})


class Handlers:
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    async def echo(self, args: EchoArgs, ctx: Any) -> Any:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome

    async def point(self, args: EchoArgs, ctx: Any) -> Any:
        return {"x": 1}


def call_echo(outcome: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        a, b = pair()
        bind_handlers(Handlers(outcome), tables(), MODELS).connection(b).session.start()
        client = Session(a)
        client.start()
        await client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        )
        result: dict[str, Any] = await client.request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
        await client.close()
        return result

    return asyncio.run(main())


def test_a_handler_says_exactly_what_is_sent_with_tool_result_of() -> None:
    blocks = [
        {"type": "text", "text": "partial", "annotations": {"audience": ["user"]}},
        {"type": "future-kind", "x": 1},
    ]
    sent = call_echo(ToolResult.of(blocks, {"done": 2}, is_error=True))
    assert sent == {"content": blocks, "isError": True, "structuredContent": {"done": 2}}


def test_typed_blocks_built_in_python_go_out_in_their_wire_shape() -> None:
    result = ToolResult(
        [
            TextContent("hi"),
            ImageContent("AAAA", "image/png"),
            AudioContent("BBBB", "audio/wav"),
            ResourceLink("file:///a", "a", description="the a file"),
            EmbeddedResource("file:///b", mime_type="text/plain", text="b"),
            UnknownContent("future-kind"),
        ]
    )
    assert call_echo(result) == {
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "audio", "data": "BBBB", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "description": "the a file"},
            {"type": "resource", "resource": {"uri": "file:///b", "mimeType": "text/plain", "text": "b"}},
            {"type": "future-kind"},
        ],
        "isError": False,
    }


def test_a_received_result_sent_on_is_unchanged_and_edits_to_it_count() -> None:
    raw = {"content": [{"type": "text", "text": "t", "_meta": {"k": 1}}], "isError": False, "_meta": {"trace": "x"}}
    assert ToolResult.from_raw(raw).to_wire() == raw
    edited = ToolResult.from_raw(raw)
    edited.is_error = True
    assert edited.to_wire() == {**raw, "isError": True}


def test_tool_error_from_a_handler_is_its_message() -> None:
    exc = ToolError("no such city: «Atlantis»")
    assert str(exc) == "no such city: «Atlantis»" and exc.tool == "" and exc.text == "no such city: «Atlantis»"
    assert call_echo(exc) == {"content": [{"type": "text", "text": "no such city: «Atlantis»"}], "isError": True}
    assert str(ToolError(ValueError("wrapped"))) == "wrapped"  # type: ignore[call-overload]  # what the old class took


def test_a_client_tool_error_raised_in_a_handler_sends_the_other_servers_result_on() -> None:
    upstream = ToolResult.from_raw({"content": [{"type": "text", "text": "upstream says no"}], "isError": True})
    exc = ToolError("remote-tool", upstream)  # what a generated client raises
    assert exc.tool == "remote-tool" and str(exc) == "tool 'remote-tool' failed: upstream says no"
    assert call_echo(exc) == {"content": [{"type": "text", "text": "upstream says no"}], "isError": True}


def test_binding_refuses_tables_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="'point'.*ResultMode.CONTENT"):
        bind_handlers(
            Handlers(""),
            tables(TOOLS={"point": HandledTool("point", "EchoArgs", "PointResult", ResultMode.CONTENT)}),
            MODELS,
        )
    with pytest.raises(ValueError, match="'echo'.*'sideways'"):
        sideways = HandledTool("echo", "EchoArgs", None, "sideways")  # type: ignore[arg-type]
        bind_handlers(Handlers(""), tables(TOOLS={"echo": sideways}), MODELS)
    with pytest.raises(TypeError, match="no handler method 'shout'"):
        bind_handlers(
            Handlers(""), tables(TOOLS={"echo": HandledTool("shout", "EchoArgs", None, ResultMode.CONTENT)}), MODELS
        )


class CountingModels(types.ModuleType):
    """A models module that records which names were asked of it (a generated one loads its
    classes on the first such question)."""

    def __init__(self) -> None:
        super().__init__("counting_models")
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.asked.append(name)
        return getattr(MODELS, name)


def serve_and_call(models: types.ModuleType, tool_tables: Any, calls: list[str]) -> list[Any]:
    """tools/list, then one tools/call per name in `calls`; what `models` was asked after each."""

    async def main() -> list[Any]:
        a, b = pair()
        bind_handlers(Handlers("ok"), tool_tables, models).connection(b).session.start()
        client = Session(a)
        client.start()
        await client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        )
        seen: list[Any] = [len((await client.request("tools/list", {}))["tools"]), list(getattr(models, "asked", []))]
        for name in calls:
            seen.append(await client.request("tools/call", {"name": name, "arguments": {"text": "x"}}))
            seen.append(list(getattr(models, "asked", [])))
        await client.close()
        return seen

    return asyncio.run(main())


def test_models_are_looked_up_on_each_tools_first_call_not_at_start() -> None:
    models = CountingModels()
    listed, at_start, echoed, after_echo, again, after_again = serve_and_call(models, tables(), ["echo", "echo"])
    assert listed == 2 and at_start == []  # initialize and tools/list need no model
    assert echoed["isError"] is False and after_echo == ["EchoArgs"]
    assert again["isError"] is False and after_again == ["EchoArgs"]  # looked up once


def test_a_missing_model_fails_its_tool_call_not_the_server(caplog: pytest.LogCaptureFixture) -> None:
    broken = tables(
        TOOLS={
            "echo": HandledTool("echo", "MissingArgs", None, ResultMode.CONTENT),
            "point": HandledTool("point", "EchoArgs", "PointResult", ResultMode.MODEL),
        }
    )
    listed, _, failed, _, other, _ = serve_and_call(MODELS, broken, ["echo", "point"])
    assert listed == 2
    assert failed["isError"] is True and "TypeError" in failed["content"][0]["text"]
    assert "no model 'MissingArgs'" in caplog.text  # the server's log says which
    assert other["isError"] is False and other["structuredContent"] == {"x": 1}


def test_completion_and_subscriptions_are_offered_only_with_something_to_complete_or_watch() -> None:
    class Hooked(Handlers, CompletionHook, SubscriptionHook):
        pass

    resource = {"uri": "mem://a", "name": "a"}
    bare = bind_handlers(Hooked(""), tables(), MODELS).capabilities()
    assert "completions" not in bare and "resources" not in bare

    async def read_a(ctx: Any) -> str:
        return "a"

    handlers = Hooked("")
    handlers.resource_a = read_a  # type: ignore[attr-defined]
    watched = tables(RESOURCES_JSON=(json.dumps(resource),), RESOURCES={"mem://a": "resource_a"})
    caps = bind_handlers(handlers, watched, MODELS).capabilities()
    assert caps["resources"] == {"listChanged": True, "subscribe": True} and "completions" not in caps
