"""Prompts, resources, templates and completion served by the runtime, both eras, over a memory pair."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from memory_transport import pair

from mcpgen.runtime import RpcError, Server, Session, connect_memory
from mcpgen.runtime.server.features import template_pattern

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def build() -> Server:
    server = Server("features", "1.0")

    async def greet(arguments: dict[str, str], ctx: Any) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": {"type": "text", "text": f"hi {arguments['name']}"}}]}

    async def readme(uri: str, ctx: Any) -> dict[str, Any]:
        return {"contents": [{"uri": uri, "text": "read me"}]}

    async def item(uri: str, values: dict[str, str], ctx: Any) -> dict[str, Any]:
        return {"contents": [{"uri": uri, "text": values["id"]}]}

    async def complete(params: dict[str, Any], ctx: Any) -> list[str]:
        return [f"v{i}" for i in range(150)]

    server.add_prompt({"name": "greet", "arguments": [{"name": "name", "required": True}]}, greet)
    server.add_resource({"uri": "mem://readme", "name": "readme"}, readme)
    server.add_resource_template({"uriTemplate": "mem://items/{id}", "name": "item"}, item)
    server.set_completion(complete)
    return server


async def client_for(server: Server, era: str) -> Session:
    a, b = pair()
    server.connection(b).session.start()
    client = Session(a)
    client.start()
    if era == "legacy":
        await client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        )
    return client


def meta_for(era: str) -> dict[str, Any]:
    return {"_meta": MODERN_META} if era == "modern" else {}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_prompts_resources_templates_and_completion(era: str) -> None:
    async def main() -> None:
        client = await client_for(build(), era)
        m = meta_for(era)
        listed = await client.request("prompts/list", {**m})
        assert [p["name"] for p in listed["prompts"]] == ["greet"]
        got = await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}, **m})
        assert got["messages"][0]["content"]["text"] == "hi Ada"
        with pytest.raises(RpcError, match=r"^\[-32602\] Missing required prompt arguments: name$") as missing:
            await client.request("prompts/get", {"name": "greet", **m})
        assert missing.value.code == -32602 and "name" in missing.value.message

        read = await client.request("resources/read", {"uri": "mem://readme", **m})
        assert read["contents"][0]["text"] == "read me"
        templated = await client.request("resources/read", {"uri": "mem://items/a%20b", **m})
        assert templated["contents"][0]["text"] == "a b"  # percent-decoded variable
        with pytest.raises(RpcError, match=r"\] Resource not found: mem://nothing$") as absent:
            await client.request("resources/read", {"uri": "mem://nothing", **m})
        assert absent.value.code == (-32602 if era == "modern" else -32002)

        if era == "modern":  # 2026-07-28 read results carry cache hints like list results
            assert read["ttlMs"] >= 0 and read["cacheScope"] in ("public", "private")
        done = await client.request(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": ""}, **m},
        )
        assert len(done["completion"]["values"]) == 100 and done["completion"]["hasMore"] is True
        await client.close()

    asyncio.run(asyncio.wait_for(main(), 20))


def test_capabilities_follow_what_was_registered() -> None:
    caps = build().capabilities()
    assert "prompts" in caps and "resources" in caps and "completions" in caps
    assert caps["resources"]["subscribe"] is False
    assert "prompts" not in Server("bare", "1").capabilities()


async def _page(uri: str, ctx: Any) -> dict[str, Any]:
    return {"contents": []}


@pytest.mark.parametrize(
    ("uri", "mime", "declared"),
    [
        ("ui://app/page.html", "text/html;profile=mcp-app", True),
        ("ui://app/page.html", "Text/HTML; profile=mcp-app", True),  # as peers may write it
        ("ui://app/page.html", "text/html", False),  # HTML, but no Apps page
        ("ui://app/page.html", None, False),
        ("https://x/page.html", "text/html;profile=mcp-app", False),  # an Apps type off ui://
    ],
)
def test_the_apps_extension_is_declared_exactly_when_a_ui_page_is_served(uri: str, mime: Any, declared: bool) -> None:
    server = Server("apps", "1", capabilities={"extensions": {"io.modelcontextprotocol/skills": {}}})
    definition: dict[str, Any] = {"uri": uri, "name": "page"}
    if mime is not None:
        definition["mimeType"] = mime
    assert "io.modelcontextprotocol/ui" not in server.capabilities()["extensions"]
    server.add_resource(definition, _page)
    extensions = server.capabilities()["extensions"]
    assert ("io.modelcontextprotocol/ui" in extensions) is declared
    assert "io.modelcontextprotocol/skills" in extensions  # merged, never replaced


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("test://template/{id}/data", "test://template/123/data", {"id": "123"}),
        ("test://template/{id}/data", "test://template/1/2/data", None),
        ("x://{a}.{b}", "x://k.v", {"a": "k", "b": "v"}),
    ],
)
def test_level_one_templates_match(template: str, uri: str, expected: dict[str, str] | None) -> None:
    pattern = template_pattern(template)
    assert pattern is not None
    match = pattern.match(uri)
    assert (match.groupdict() if match else None) == expected


@pytest.mark.parametrize("template", ["file:///{+path}", "x://{?q}", "x://{a}/{a}"])
def test_richer_templates_are_refused(template: str) -> None:
    assert template_pattern(template) is None


# The MCP Apps extension's published text (modelcontextprotocol/ext-apps,
# specification/2026-01-26/apps.mdx, "Client<>Server Capability Negotiation") defines the
# settings of one declaration only, the client's (host's): "`mimeTypes`: Array of supported
# content types (REQUIRED, e.g., `["text/html;profile=mcp-app"]`)". It defines no server
# settings ("Servers SHOULD check client capabilities before registering UI-enabled tools"), so a
# server's declaration is the extensions mechanism's bare `{}` (support, no settings).
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_the_apps_declarations_carry_what_the_extension_text_defines(era: str) -> None:
    server = Server("apps", "1")
    server.add_resource({"uri": "ui://app/page.html", "name": "page", "mimeType": "text/html;profile=mcp-app"}, _page)
    seen: list[Any] = []

    async def probe(arguments: Any, ctx: Any) -> dict[str, Any]:
        seen.append(ctx.client_capabilities.get("extensions", {}).get("io.modelcontextprotocol/ui"))
        return {"content": []}

    server.add_tool({"name": "probe", "inputSchema": {"type": "object"}}, probe)

    async def main() -> None:
        for apps in (True, False):
            async with connect_memory(server, protocol=era, mcp_apps=apps) as session:
                assert session.server_capabilities["extensions"]["io.modelcontextprotocol/ui"] == {}
                await session.call_tool("probe", {})

    asyncio.run(main())
    # The client (a host) declares exactly the REQUIRED setting, with the one MIME type it reads.
    assert seen == [{"mimeTypes": ["text/html;profile=mcp-app"]}, None]
