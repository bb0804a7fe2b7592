"""A client generated live from npm server-everything reads every prompt and resource, typed."""

from __future__ import annotations

import asyncio
import base64
import inspect
from pathlib import Path

import pytest
from features_client_support import EVERYTHING, generated

from mcpgen.catalog.model import Catalog
from mcpgen.sources.live import load_live


def _catalog() -> Catalog:
    cat, problems = load_live(EVERYTHING[0], EVERYTHING[1:])
    assert cat is not None, problems
    return cat


def test_everything_prompts_resources_templates(tmp_path: Path) -> None:
    cat = _catalog()
    assert cat.prompts and cat.resources and cat.resource_templates
    with generated(cat, tmp_path) as pkg:
        C = pkg.AsyncClient
        # Typed signatures: required prompt args keyword-only without default, optional ones None.
        sig = inspect.signature(C.get_args_prompt)
        assert sig.parameters["city"].kind is inspect.Parameter.KEYWORD_ONLY
        assert sig.parameters["city"].default is inspect.Parameter.empty
        assert sig.parameters["state"].default is None
        assert list(inspect.signature(C.read_dynamic_text_resource).parameters) == ["self", "resource_id"]
        # Every prompt the server lists has a typed method; give each plausible arguments.
        args = {
            "simple-prompt": {},
            "args-prompt": {"city": "Paris"},
            "completable-prompt": {"department": "Engineering", "name": "Alice"},
            "resource-prompt": {"resource_type": "Text", "resource_id": "1"},
        }
        methods = {
            "simple-prompt": "get_simple_prompt",
            "args-prompt": "get_args_prompt",
            "completable-prompt": "get_completable_prompt",
            "resource-prompt": "get_resource_prompt",
        }

        async def run() -> None:
            async with C.connect_stdio(EVERYTHING[0], EVERYTHING[1:]) as c:
                listed = await c.list_prompts()
                assert {p.name for p in listed} == set(methods)
                assert all(isinstance(p, pkg.Prompt) for p in listed)
                results = {}
                for wire, method in methods.items():
                    r = await getattr(c, method)(**args[wire])
                    assert isinstance(r, pkg.PromptResult) and r.messages, wire
                    for m in r.messages:
                        assert m.role in ("user", "assistant")
                        assert isinstance(m.content, (pkg.TextContent, pkg.EmbeddedResource, pkg.ImageContent))
                    results[wire] = r
                assert results["simple-prompt"].text == "This is a simple prompt without arguments."
                assert "Paris" in results["args-prompt"].text
                # The optional argument is sent when given and changes the prompt.
                assert "Texas" in (await c.get_args_prompt(city="Austin", state="Texas")).text
                assert "Alice" in results["completable-prompt"].text
                embedded = [
                    m.content
                    for m in results["resource-prompt"].messages
                    if isinstance(m.content, pkg.EmbeddedResource)
                ]
                assert embedded and embedded[0].uri == "demo://resource/dynamic/text/1" and embedded[0].text
                # Every listed resource reads through the typed path.
                resources = await c.list_resources()
                assert len(resources) == len(cat.resources)
                for res in resources:
                    assert isinstance(res, pkg.Resource)
                    got = await c.read_resource(res.uri)
                    assert isinstance(got, pkg.ResourceContents) and got.contents, res.uri
                    assert got.contents[0].uri == res.uri
                    assert isinstance(got.contents[0], pkg.TextResourceContents) and got.text
                templates = await c.list_resource_templates()
                assert {t.uri_template for t in templates} == {
                    "demo://resource/dynamic/text/{resourceId}",
                    "demo://resource/dynamic/blob/{resourceId}",
                }
                text = await c.read_dynamic_text_resource(resource_id="3")
                assert isinstance(text.contents[0], pkg.TextResourceContents)
                assert text.contents[0].uri == "demo://resource/dynamic/text/3" and "Resource 3" in text.text
                blob = await c.read_dynamic_blob_resource(resource_id="2")
                assert isinstance(blob.contents[0], pkg.BlobResourceContents)
                assert blob.contents[0].data == base64.b64decode(blob.contents[0].blob)
                assert blob.contents[0].data.startswith(b"Resource 2")
                done = await c.complete(
                    {"type": "ref/prompt", "name": "completable-prompt"}, {"name": "department", "value": "Eng"}
                )
                assert isinstance(done, pkg.Completion) and done.values == ["Engineering"]

        asyncio.run(run())


def test_everything_sync_twin(tmp_path: Path) -> None:
    with generated(_catalog(), tmp_path) as pkg:
        with pkg.Client.connect_stdio(EVERYTHING[0], EVERYTHING[1:]) as c:
            assert c.get_args_prompt(city="Oslo").text == "What's weather in Oslo?"
            assert "Resource 5" in c.read_dynamic_text_resource(resource_id="5").text
            assert len(c.list_resources()) >= 1 and len(c.list_resource_templates()) == 2
            assert {p.name for p in c.list_prompts()} >= {"simple-prompt"}
            with pytest.raises(pkg.McpError, match=r"Resource demo://nope/never not found$"):
                c.read_resource("demo://nope/never")


def test_everything_resource_updates(tmp_path: Path) -> None:
    """resources/subscribe, then server-everything's simulated updates arrive as an async iterator."""
    uri = "demo://resource/static/document/architecture.md"
    with generated(_catalog(), tmp_path) as pkg:

        async def run() -> None:
            async with pkg.AsyncClient.connect_stdio(EVERYTHING[0], EVERYTHING[1:], protocol="legacy") as c:
                async with c.resource_updates() as updates:
                    await c.subscribe_resource(uri)
                    await c.toggle_subscriber_updates()  # sends one update at once, then every 5 s
                    got = await asyncio.wait_for(updates.__anext__(), 10)
                    assert got == uri
                await c.unsubscribe_resource(uri)

        asyncio.run(run())

        # The sync twin: a blocking iterator with a timeout.
        with pkg.Client.connect_stdio(EVERYTHING[0], EVERYTHING[1:], protocol="legacy") as c:
            with c.resource_updates() as updates:
                c.subscribe_resource(uri)
                c.toggle_subscriber_updates()
                assert updates.next(timeout=10) == uri
