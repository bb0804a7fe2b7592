"""The official SDK client lists and gets every prompt and reads every resource (and the
template) of the generated conformance server, in both eras."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from features_client_support import CONFORMANCE, PY

ARGS = {
    "test_simple_prompt": None,
    "test_prompt_with_arguments": {"arg1": "one", "arg2": "two"},
    "test_prompt_with_embedded_resource": {"resourceUri": "test://embedded"},
    "test_prompt_with_image": None,
    "test_input_required_result_prompt": None,  # asks for context only where elicitation is declared
}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_uses_every_prompt_and_resource(mode: str) -> None:
    from mcp import StdioServerParameters
    from mcp.client import Client
    from mcp.types import PromptReference

    async def main() -> None:
        params = StdioServerParameters(command=PY, args=["-m", "conformance_server"], cwd=str(CONFORMANCE))
        async with Client(params, mode=mode) as c:
            prompts = (await c.list_prompts()).prompts
            assert {p.name for p in prompts} == set(ARGS)
            required = {p.name: [a.name for a in p.arguments or [] if a.required] for p in prompts}
            assert required["test_prompt_with_arguments"] == ["arg1", "arg2"]
            for name, arguments in ARGS.items():
                got = await c.get_prompt(name, arguments)
                assert got.messages, name
                kinds = [m.content.type for m in got.messages]
                if name == "test_prompt_with_image":
                    assert kinds == ["image", "text"]
                elif name == "test_prompt_with_embedded_resource":
                    assert kinds == ["resource", "text"]
                    assert got.messages[0].content.resource.uri == "test://embedded"  # type: ignore[union-attr]
                else:
                    assert kinds == ["text"]
            args_text = await c.get_prompt("test_prompt_with_arguments", ARGS["test_prompt_with_arguments"])
            assert args_text.messages[0].content.text == "Prompt with arguments: arg1='one', arg2='two'"  # type: ignore[union-attr]

            resources = (await c.list_resources()).resources
            assert {r.uri for r in resources} == {
                "test://static-text",
                "test://static-binary",
                "test://watched-resource",
                # the files of the skill it serves (examples/conformance/skills), listed like any resource
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/references/FORMS.md",
            }
            for r in resources:
                contents = (await c.read_resource(r.uri)).contents
                assert len(contents) == 1 and contents[0].uri == r.uri
                assert contents[0].mime_type == r.mime_type
                if r.uri == "test://static-binary":
                    assert base64.b64decode(contents[0].blob).startswith(b"\x89PNG")  # type: ignore[union-attr]
                else:
                    assert contents[0].text  # type: ignore[union-attr]
            templates = (await c.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["test://template/{id}/data"]
            data = (await c.read_resource("test://template/a%2Fb/data")).contents[0]
            assert json.loads(data.text)["id"] == "a/b"  # type: ignore[union-attr]

            done = await c.complete(
                PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "park"}
            )
            assert done.completion.values == ["park"]

    asyncio.run(main())
