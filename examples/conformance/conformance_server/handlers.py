"""Your tool implementations. mcpgen wrote this file once and will never overwrite it.

Fill in each method; a method you delete or leave raising NotImplementedError answers
"not implemented" to clients. After regenerating with new tools, `mcpgen server ...
--add-missing` appends stubs for them here.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

from mcpgen.runtime.support.server import INTERNAL_ERROR, RpcError

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

__all__ = ["Handlers", "ToolError", "ToolOutput", "ToolResult"]


PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAAB4iG8MwAAAABJRU5ErkJggg=="
WAV_SILENCE = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class Handlers(ToolsBase):
    # The skills served (SEP-2640): each folder under ../skills with a SKILL.md, read at startup.
    SKILLS_DIR = "../skills"

    async def json_schema_2020_12_tool(self, args: models.JsonSchema202012ToolArgs, ctx: Context) -> ToolOutput:
        """Tool whose input schema uses JSON Schema 2020-12 keywords (kept verbatim)."""
        return f"Received: {args.model_dump_json(exclude_unset=True)}"

    async def test_audio_content(self, args: models.TestAudioContentArgs, ctx: Context) -> ToolOutput:
        """Returns audio (a tiny WAV)."""
        return [{"type": "audio", "data": WAV_SILENCE, "mimeType": "audio/wav"}]

    async def test_elicitation(self, args: models.TestElicitationArgs, ctx: Context) -> ToolOutput:
        """Asks the user for input (elicitation)."""
        answer = await ctx.request_elicitation(
            {
                "message": args.message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"},
                    },
                    "required": ["username", "email"],
                },
            }
        )
        return f"User response: action={answer.get('action')}, content={answer.get('content')}"

    async def test_elicitation_sep1034_defaults(
        self, args: models.TestElicitationSep1034DefaultsArgs, ctx: Context
    ) -> ToolOutput:
        """Elicitation whose requested schema carries default values (SEP-1034)."""
        answer = await ctx.request_elicitation(
            {
                "message": "Please review and update the form fields with defaults",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {
                            "type": "string",
                            "description": "User status",
                            "enum": ["active", "inactive", "pending"],
                            "default": "active",
                        },
                        "verified": {"type": "boolean", "description": "Verification status", "default": True},
                    },
                    "required": [],
                },
            }
        )
        return f"Elicitation completed: action={answer.get('action')}, content={answer.get('content')}"

    async def test_elicitation_sep1330_enums(
        self, args: models.TestElicitationSep1330EnumsArgs, ctx: Context
    ) -> ToolOutput:
        """Elicitation with every enum shape (SEP-1330)."""
        answer = await ctx.request_elicitation(
            {
                "message": "Please select options from the enum fields",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "untitledSingle": {
                            "type": "string",
                            "description": "Select one option",
                            "enum": ["option1", "option2", "option3"],
                        },
                        "titledSingle": {
                            "type": "string",
                            "description": "Select one option with titles",
                            "oneOf": [
                                {"const": "value1", "title": "First Option"},
                                {"const": "value2", "title": "Second Option"},
                                {"const": "value3", "title": "Third Option"},
                            ],
                        },
                        "legacyEnum": {
                            "type": "string",
                            "description": "Select one option (legacy)",
                            "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"],
                        },
                        "untitledMulti": {
                            "type": "array",
                            "description": "Select multiple options",
                            "minItems": 1,
                            "maxItems": 3,
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                        },
                        "titledMulti": {
                            "type": "array",
                            "description": "Select multiple options with titles",
                            "minItems": 1,
                            "maxItems": 3,
                            "items": {
                                "anyOf": [
                                    {"const": "value1", "title": "First Choice"},
                                    {"const": "value2", "title": "Second Choice"},
                                    {"const": "value3", "title": "Third Choice"},
                                ]
                            },
                        },
                    },
                    "required": [],
                },
            }
        )
        return f"Elicitation completed: action={answer.get('action')}, content={answer.get('content')}"

    async def test_embedded_resource(self, args: models.TestEmbeddedResourceArgs, ctx: Context) -> ToolOutput:
        """Returns an embedded text resource."""
        return [
            {
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }
        ]

    async def test_error_handling(self, args: models.TestErrorHandlingArgs, ctx: Context) -> ToolOutput:
        """Always fails with a tool execution error."""
        raise ToolError("This tool intentionally returns an error for testing")

    async def test_image_content(self, args: models.TestImageContentArgs, ctx: Context) -> ToolOutput:
        """Returns an image (a 1x1 PNG)."""
        return [{"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]

    async def test_multiple_content_types(self, args: models.TestMultipleContentTypesArgs, ctx: Context) -> ToolOutput:
        """Returns text, an image and an embedded resource."""
        return [
            text("Multiple content types test:"),
            {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": '{"test": "data", "value": 123}',
                },
            },
        ]

    async def test_reconnection(self, args: models.TestReconnectionArgs, ctx: Context) -> ToolOutput:
        """Closes its response stream early; the result follows on the resumed stream."""
        await asyncio.sleep(0.1)
        return "Reconnection test completed"

    async def test_sampling(self, args: models.TestSamplingArgs, ctx: Context) -> ToolOutput:
        """Asks the client's LLM to answer a prompt (sampling)."""
        reply = await ctx.request_sampling(
            {"messages": [{"role": "user", "content": text(args.prompt)}], "maxTokens": 100}
        )
        content = reply.get("content")
        answer = content.get("text") if isinstance(content, dict) else None
        return f"LLM response: {answer}"

    async def test_simple_text(self, args: models.TestSimpleTextArgs, ctx: Context) -> ToolOutput:
        """Returns a simple text response."""
        return "This is a simple text response for testing."

    async def test_tool_with_logging(self, args: models.TestToolWithLoggingArgs, ctx: Context) -> ToolOutput:
        """Sends three log messages while it runs."""
        for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            await ctx.log("info", message)
            await asyncio.sleep(0.05)
        return "Tool with logging executed successfully"

    async def test_tool_with_progress(self, args: models.TestToolWithProgressArgs, ctx: Context) -> ToolOutput:
        """Reports progress 0, 50 and 100 of 100."""
        for step in (0, 50, 100):
            await ctx.report_progress(step, 100, f"Completed step {step} of 100")
            await asyncio.sleep(0.05)
        return "Tool with progress executed successfully"

    async def prompt_test_simple_prompt(self, args: models.PromptTestSimplePromptArgs, ctx: Context) -> PromptOutput:
        """A simple prompt without arguments

        MCP prompt: 'test_simple_prompt'
        """
        return "This is a simple prompt for testing."

    async def prompt_test_prompt_with_arguments(
        self, args: models.PromptTestPromptWithArgumentsArgs, ctx: Context
    ) -> PromptOutput:
        """A prompt with required arguments

        MCP prompt: 'test_prompt_with_arguments'
        """
        return f"Prompt with arguments: arg1='{args.arg1}', arg2='{args.arg2}'"

    async def prompt_test_prompt_with_embedded_resource(
        self, args: models.PromptTestPromptWithEmbeddedResourceArgs, ctx: Context
    ) -> PromptOutput:
        """A prompt that includes an embedded resource

        MCP prompt: 'test_prompt_with_embedded_resource'
        """
        return [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": args.resource_uri,
                        "mimeType": "text/plain",
                        "text": "Embedded resource content for testing.",
                    },
                },
            },
            {"role": "user", "content": text("Please process the embedded resource above.")},
        ]

    async def prompt_test_prompt_with_image(
        self, args: models.PromptTestPromptWithImageArgs, ctx: Context
    ) -> PromptOutput:
        """A prompt that includes an image

        MCP prompt: 'test_prompt_with_image'
        """
        return [
            {"role": "user", "content": {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}},
            {"role": "user", "content": text("Please analyze the image above.")},
        ]

    async def resource_static_text(self, ctx: Context) -> ResourceOutput:
        """A static text resource for testing

        MCP resource: 'test://static-text'
        """
        return "This is the content of the static text resource."

    async def resource_static_binary(self, ctx: Context) -> ResourceOutput:
        """A static binary resource (image) for testing

        MCP resource: 'test://static-binary'
        """
        return base64.b64decode(PNG_1X1)

    async def resource_watched_resource(self, ctx: Context) -> ResourceOutput:
        """A resource that can be subscribed to

        MCP resource: 'test://watched-resource'
        """
        return "Watched resource content"

    async def template_template(self, params: models.TemplateTemplateParams, ctx: Context) -> ResourceOutput:
        """A resource template with parameter substitution

        MCP resource template: 'test://template/{id}/data'
        """
        data = {"id": params.id, "templateTest": True, "data": f"Data for ID: {params.id}"}
        return json.dumps(data)

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, Any], context: dict[str, Any], ctx: Context
    ) -> list[str]:
        """Suggest values for prompt arguments: a fixed list filtered by what was typed."""
        prefix = str(argument.get("value", ""))
        return [v for v in ("paris", "park", "parrot") if v.startswith(prefix)]

    # -- the 2026-07-28 scenarios' diagnostic tools ----------------------------------------
    # Input request keys are the ones the suite names; in the handshake era the same calls
    # become requests to the client.

    async def test_input_required_result_capabilities(
        self, args: models.TestInputRequiredResultCapabilitiesArgs, ctx: Context
    ) -> ToolOutput:
        """Asks only for the inputs whose capabilities the client declared."""
        wanted = {"user_name": ASK_NAME, "capital_question": ASK_CAPITAL, "client_roots": ASK_ROOTS}
        allowed = {k: r for k, r in wanted.items() if CAPABILITY_OF[r["method"]] in ctx.client_capabilities}
        if not allowed:
            return "The client declared none of elicitation, sampling or roots: nothing to ask."
        answers = await ctx.request_inputs(allowed)
        return f"Received answers for: {', '.join(sorted(answers))}"

    async def test_input_required_result_elicitation(
        self, args: models.TestInputRequiredResultElicitationArgs, ctx: Context
    ) -> ToolOutput:
        """Asks the user's name (input request user_name), then greets them."""
        answer = await ctx.request_elicitation(ASK_NAME["params"], key="user_name")
        return f"Hello, {accepted(answer, 'name')}!"

    async def test_input_required_result_list_roots(
        self, args: models.TestInputRequiredResultListRootsArgs, ctx: Context
    ) -> ToolOutput:
        """Asks for the client's roots (input request client_roots)."""
        roots = await ctx.list_roots(key="client_roots")
        return "Roots: " + ", ".join(str(root.get("uri")) for root in roots)

    async def test_input_required_result_multi_round(
        self, args: models.TestInputRequiredResultMultiRoundArgs, ctx: Context
    ) -> ToolOutput:
        """Asks for a name, then (next round) a favourite colour."""
        name = await ctx.request_elicitation(elicit("Step 1: What is your name?", "name"), key="step1")
        color = await ctx.request_elicitation(elicit("Step 2: What is your favorite color?", "color"), key="step2")
        return f"{accepted(name, 'name')} likes {accepted(color, 'color')}"

    async def test_input_required_result_multiple_inputs(
        self, args: models.TestInputRequiredResultMultipleInputsArgs, ctx: Context
    ) -> ToolOutput:
        """Asks for a name, a greeting and the roots in one round."""
        greeting = {
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": text("Generate a greeting")}], "maxTokens": 50},
        }
        answers = await ctx.request_inputs({"user_name": ASK_NAME, "greeting": greeting, "client_roots": ASK_ROOTS})
        return f"Received answers for: {', '.join(sorted(answers))}"

    async def test_input_required_result_request_state(
        self, args: models.TestInputRequiredResultRequestStateArgs, ctx: Context
    ) -> ToolOutput:
        """Asks for a confirmation; the retry's requestState is checked."""
        answer = await ctx.request_elicitation(CONFIRM, key="confirm")
        # The runtime refuses a retry whose requestState it did not sign for this request.
        return f"state-ok: confirmed={accepted(answer, 'ok')}"

    async def test_input_required_result_sampling(
        self, args: models.TestInputRequiredResultSamplingArgs, ctx: Context
    ) -> ToolOutput:
        """Asks the client's LLM a question (input request capital_question)."""
        reply = await ctx.request_sampling(ASK_CAPITAL["params"], key="capital_question")
        content = reply.get("content")
        return f"LLM response: {content.get('text') if isinstance(content, dict) else None}"

    async def test_input_required_result_tampered_state(
        self, args: models.TestInputRequiredResultTamperedStateArgs, ctx: Context
    ) -> ToolOutput:
        """Asks for a confirmation; a tampered requestState is refused."""
        answer = await ctx.request_elicitation(CONFIRM, key="confirm")
        return f"confirmed={accepted(answer, 'ok')}"

    async def test_logging_tool(self, args: models.TestLoggingToolArgs, ctx: Context) -> ToolOutput:
        """Logs while it runs (sent only when the request set a log level)."""
        await ctx.log("info", "test_logging_tool ran")
        return "Logged (if the request asked for logs)"

    async def test_missing_capability(self, args: models.TestMissingCapabilityArgs, ctx: Context) -> ToolOutput:
        """Needs sampling; a client that did not declare it gets -32021."""
        reply = await ctx.request_sampling(ASK_CAPITAL["params"])
        return f"Sampled: {reply.get('content')}"

    async def test_param_header(self, args: models.TestParamHeaderArgs, ctx: Context) -> ToolOutput:
        """Echoes a region that clients also send in the Mcp-Param-Region header."""
        return f"Region: {args.region}"

    async def test_streaming_elicitation(self, args: models.TestStreamingElicitationArgs, ctx: Context) -> ToolOutput:
        """Asks the user for input; the answer comes through an input_required result."""
        answer = await ctx.request_elicitation(ASK_NAME["params"], key="user_name")
        return f"Hello, {accepted(answer, 'name')}!"

    async def prompt_test_input_required_result_prompt(
        self, args: models.PromptTestInputRequiredResultPromptArgs, ctx: Context
    ) -> PromptOutput:
        """A prompt that first asks the user for context (input request user_context)

        MCP prompt: 'test_input_required_result_prompt'
        """
        if "elicitation" not in ctx.client_capabilities:
            # Never ask a client for what it cannot give: the prompt works without the context.
            return "Answer without extra context."
        answer = await ctx.request_elicitation(
            elicit("What context should the prompt use?", "context"), key="user_context"
        )
        return f"Answer with this context in mind: {accepted(answer, 'context')}"

    # -- the Tasks extension's fixtures (conformance tasks-*) --------------------------

    # Tools that gather input in plain input_required rounds, then continue as a task.
    TASK_INPUT_FIRST = frozenset({"test_tool_with_task"})

    async def greet(self, args: models.GreetArgs, ctx: Context) -> ToolOutput:
        """Greets someone (a plain tool, never a task)."""
        return f"Hello, {args.name}!"

    async def slow_compute(self, args: models.SlowComputeArgs, ctx: Context) -> ToolOutput:
        """Sleeps `seconds`, then answers; runs as a task (cancelled while it sleeps)."""
        seconds = min(args.seconds or 0.0, 3600.0)
        await ctx.report_progress(0, 1, "computing")
        await asyncio.sleep(seconds)
        return f"Computed {args.label or 'result'} after {seconds:g} s"

    async def failing_job(self, args: models.FailingJobArgs, ctx: Context) -> ToolOutput:
        """Fails with a tool execution error after about a second; only as a task."""
        await asyncio.sleep(1.0)
        raise ToolError("the job failed (as it always does)")

    async def protocol_error_job(self, args: models.ProtocolErrorJobArgs, ctx: Context) -> ToolOutput:
        """Fails with a protocol error; runs as a task."""
        raise RpcError(INTERNAL_ERROR, "the job broke down (a protocol-level error)")

    async def confirm_delete(self, args: models.ConfirmDeleteArgs, ctx: Context) -> ToolOutput:
        """Asks for a confirmation (elicitation) before deleting `filename`; runs as a task."""
        answer = await ctx.request_elicitation(
            {
                "message": f"Delete {args.filename}?",
                "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
            },
            key="confirm",
        )
        confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm") is True
        return f"{'Deleted' if confirmed else 'Kept'} {args.filename}"

    async def multi_input(self, args: models.MultiInputArgs, ctx: Context) -> ToolOutput:
        """Asks two questions at once (two elicitations); runs as a task."""
        first, second = await asyncio.gather(
            ctx.request_elicitation(elicit("First name?", "name"), key="first"),
            ctx.request_elicitation(elicit("Second name?", "name"), key="second"),
        )
        return f"Got {accepted(first, 'name')} and {accepted(second, 'name')}"

    async def test_tool_with_task(self, args: models.TestToolWithTaskArgs, ctx: Context) -> ToolOutput:
        """Asks the user's name (input request user_name), then continues as a task."""
        answer = await ctx.request_elicitation(ASK_NAME["params"], key="user_name")
        await ctx.continue_as_task()
        await asyncio.sleep(0.2)
        return f"Hello, {accepted(answer, 'name')}! (from a task)"


def elicit(message: str, field: str) -> dict[str, Any]:
    """elicitation/create params asking for one required string field."""
    return {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]},
    }


def accepted(answer: dict[str, Any], field: str) -> str:
    """The field of an accepted elicitation, or what the user did instead."""
    content = answer.get("content")
    if answer.get("action") == "accept" and isinstance(content, dict):
        return str(content.get(field))
    return f"({answer.get('action')})"


CAPABILITY_OF = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
ASK_NAME: dict[str, Any] = {"method": "elicitation/create", "params": elicit("What is your name?", "name")}
ASK_CAPITAL: dict[str, Any] = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": text("What is the capital of France?")}], "maxTokens": 100},
}
ASK_ROOTS: dict[str, Any] = {"method": "roots/list", "params": {}}
CONFIRM: dict[str, Any] = {
    "message": "Please confirm",
    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
}
