"""Handlers for tests/functional/server/wire/catalog.json: every result shape a generated server sends.

Written against the names `_generated` has exported since before the adapter moved into the
runtime (`models.X` prompt models, a keyword-built ToolResult with dict blocks), so the same
file serves the transcript's recording and its replay. Some methods are left out on purpose:
they answer "not implemented".
"""

from __future__ import annotations

from typing import Any

from ._generated import (
    Context,
    PromptOutput,
    ResourceOutput,
    ToolError,
    ToolOutput,
    ToolResult,
    ToolsBase,
    models,
)

TEXT = {"type": "text", "text": "two"}


class Handlers(ToolsBase):
    async def plain(self, args: models.PlainArgs, ctx: Context) -> ToolOutput:
        if args.kind == "text":
            return "plain text, «unicode» too"
        if args.kind == "blocks":
            return [{"type": "text", "text": "one"}, TEXT, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
        if args.kind == "tuple":
            return ({"type": "text", "text": "from a tuple"},)
        if args.kind == "result":
            return ToolResult(content=[TEXT], structured_content={"free": "form"})  # type: ignore[list-item]
        if args.kind == "error-result":
            return ToolResult(content=[TEXT], is_error=True)  # type: ignore[list-item]
        return 42  # type: ignore[return-value]  # not a ToolOutput: the call fails, without details

    async def fails(self, args: models.FailsArgs, ctx: Context) -> ToolOutput:
        if args.how == "tool-error":
            raise ToolError("the thing went wrong: «details»")
        if args.how == "not-implemented":
            raise NotImplementedError
        raise RuntimeError("secret internals")

    async def object_result(self, args: models.ObjectResultArgs, ctx: Context) -> models.ObjectResultResult:
        if args.b is None:
            return {"a": args.a}  # type: ignore[return-value]  # a dict is validated into the model
        return models.ObjectResultResult(a=args.a, b=args.b)

    async def wrapped_object(self, args: models.WrappedObjectArgs, ctx: Context) -> models.WrappedObjectResult:
        return models.WrappedObjectResult(x=1.5)

    async def wrapped_list(self, args: models.WrappedListArgs, ctx: Context) -> list[int]:
        return list(range(args.n or 3))

    async def bare_list(self, args: models.BareListArgs, ctx: Context) -> list[str]:
        return [f"item {i}" for i in range(args.n or 2)]

    async def unicode(self, args: models.UnicodeArgs, ctx: Context) -> models.UnicodeResult:
        return models.UnicodeResult(echo=args.text)

    async def prompt_greet(self, args: models.PromptGreetArgs, ctx: Context) -> PromptOutput:
        return f"Hello {args.who}, {args.tone or 'plainly'}"

    async def prompt_conversation(self, args: models.PromptConversationArgs, ctx: Context) -> PromptOutput:
        return [
            {"role": "user", "content": {"type": "text", "text": f"Tell me about {args.topic_name}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Gladly."}},
        ]

    async def prompt_whole(self, args: models.PromptWholeArgs, ctx: Context) -> PromptOutput:
        return {"description": "whole", "messages": []}

    async def resource_text(self, ctx: Context) -> ResourceOutput:
        return "some text"

    async def resource_bytes(self, ctx: Context) -> ResourceOutput:
        return b"\x00\x01binary"

    async def resource_untyped(self, ctx: Context) -> ResourceOutput:
        return "no mime type"

    async def resource_list(self, ctx: Context) -> ResourceOutput:
        return [{"uri": "test://list", "text": "first"}, {"uri": "test://list#2", "blob": "AAE="}]

    async def resource_whole(self, ctx: Context) -> ResourceOutput:
        return {"contents": [{"uri": "test://whole", "text": "all of it", "mimeType": "text/markdown"}]}

    async def template_item(self, params: models.TemplateItemParams, ctx: Context) -> ResourceOutput:
        return f'{{"id": "{params.item_id}", "part": "{params.part}"}}'

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, Any], context: dict[str, Any], ctx: Context
    ) -> list[str]:
        prefix = str(argument.get("value", ""))
        return [v for v in ("alpha", "alpine", "beta", *(f"v{i}" for i in range(120))) if v.startswith(prefix)]

    async def subscribe(self, uri: str, subscribed: bool, ctx: Context) -> None:
        if uri == "test://unwritten":
            raise ValueError("no subscriptions to that one")
