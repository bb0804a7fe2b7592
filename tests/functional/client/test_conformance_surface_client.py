"""A client generated from examples/conformance/schemas calls every prompt and resource of the
generated conformance server, typed, over stdio and Streamable HTTP; template values are escaped."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from features_client_support import CONFORMANCE, PY, generated
from serving import serving

from mcpgen.catalog.model import Catalog
from mcpgen.sources.files import load_many

SCHEMAS = CONFORMANCE / "schemas"
PNG_PREFIX = b"\x89PNG"


def _catalog() -> Catalog:
    cat, problems = load_many([SCHEMAS / "tools.yaml", SCHEMAS / "surface.yaml"])
    assert cat is not None, problems
    return cat


@pytest.fixture
def pkg(tmp_path: Path) -> Iterator[ModuleType]:
    with generated(_catalog(), tmp_path) as mod:
        yield mod


async def _exercise(pkg: ModuleType, c: Any) -> None:
    assert {p.name for p in await c.list_prompts()} == {
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    }
    # This client declares no elicitation, so the prompt does without the context it would ask for.
    assert (await c.get_test_input_required_result_prompt()).text == "Answer without extra context."
    simple = await c.get_test_simple_prompt()
    assert isinstance(simple, pkg.PromptResult)
    assert simple.text == "This is a simple prompt for testing."
    assert simple.messages[0].role == "user"
    with_args = await c.get_test_prompt_with_arguments(arg1="a'1", arg2="b")
    assert with_args.text == "Prompt with arguments: arg1='a'1', arg2='b'"
    embedded = await c.get_test_prompt_with_embedded_resource(resource_uri="test://x")
    block = embedded.messages[0].content
    assert isinstance(block, pkg.EmbeddedResource) and block.uri == "test://x"
    assert block.text == "Embedded resource content for testing."
    image = await c.get_test_prompt_with_image()
    img = image.messages[0].content
    assert isinstance(img, pkg.ImageContent) and img.mime_type == "image/png"
    assert base64.b64decode(img.data).startswith(PNG_PREFIX)

    listed = {r.uri: r for r in await c.list_resources()}
    # (and the files of the skill it serves, examples/conformance/skills: listed like any resource)
    assert set(listed) == {
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
    }
    text = await c.read_resource("test://static-text")
    assert isinstance(text.contents[0], pkg.TextResourceContents)
    assert text.text == "This is the content of the static text resource."
    binary = await c.read_resource("test://static-binary")
    assert isinstance(binary.contents[0], pkg.BlobResourceContents)
    assert binary.contents[0].data.startswith(PNG_PREFIX)
    assert (await c.read_resource("test://watched-resource")).text == "Watched resource content"

    templates = await c.list_resource_templates()
    assert [t.uri_template for t in templates] == ["test://template/{id}/data"]
    plain = await c.read_template(id="42")
    assert plain.contents[0].uri == "test://template/42/data"
    assert json.loads(plain.text) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}
    # "a/b" must not add a path segment: it goes out percent-encoded and the server decodes it.
    tricky = await c.read_template(id="a/b?c#d e%")
    assert tricky.contents[0].uri == "test://template/a%2Fb%3Fc%23d%20e%25/data"
    assert json.loads(tricky.text)["id"] == "a/b?c#d e%"
    with pytest.raises(ValueError, match=r"^id='\.\.' is not allowed in a URI template$"):
        await c.read_template(id="..")

    done = await c.complete(
        {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, {"name": "arg1", "value": "pari"}
    )
    assert done.values == ["paris"] and done.total == 1 and done.has_more is False


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_conformance_surface_stdio(pkg: ModuleType, protocol: str) -> None:
    async def run() -> None:
        async with pkg.AsyncClient.connect_stdio(
            PY, ["-m", "conformance_server"], cwd=str(CONFORMANCE), protocol=protocol
        ) as c:
            assert (c.session.protocol_version == "2026-07-28") == (protocol != "legacy")
            await _exercise(pkg, c)
            # Accepted in both eras: resources/subscribe, or in 2026-07-28 a subscriptions/listen
            # stream the generated server acknowledges with this uri honored.
            await c.subscribe_resource("test://watched-resource")
            await c.unsubscribe_resource("test://watched-resource")

    asyncio.run(run())


@pytest.fixture
def http_url() -> Iterator[str]:
    # Fails with the server's output if it dies or never listens (it used to be assumed up).
    with serving([PY, str(CONFORMANCE / "server.py"), "--port", "{port}"]) as url:
        yield url


def test_conformance_surface_http_sync(pkg: ModuleType, http_url: str) -> None:
    with pkg.Client.connect_http(http_url) as c:
        assert c.get_test_prompt_with_arguments(arg1="x", arg2="y").text == "Prompt with arguments: arg1='x', arg2='y'"
        got = c.read_template(id="a/b")
        assert got.contents[0].uri == "test://template/a%2Fb/data"
        assert json.loads(got.text)["id"] == "a/b"
        assert c.read_resource("test://static-binary").contents[0].mime_type == "image/png"
        assert c.complete(
            {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, {"name": "arg2", "value": "parr"}
        ).values == ["parrot"]
