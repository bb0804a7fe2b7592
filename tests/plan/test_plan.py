"""One plan for both generators: names are decided once, so the client and the server expose the
same tools, prompts and templates, and each wire name is registered once."""

from __future__ import annotations

import ast
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.catalog.build import build_catalog
from mcpgen.cli import main
from mcpgen.plan.build import build_plan
from mcpgen.runtime import connect_stdio


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": {}}}


# Names chosen to collide: a prompt declared twice, a tool called like the client's method for a
# prompt (get_greet) and like the server's (prompt_greet), a tool that is a ToolsBase member
# (subscribe), a template called like a prompt, and a template and prompt with a shared stem.
COLLIDING: dict[str, Any] = {
    "tools": [_tool("get_greet"), _tool("prompt_greet"), _tool("subscribe"), _tool("read_greet"), _tool("greet")],
    "prompts": [
        {"name": "greet", "description": "first", "arguments": [{"name": "who", "required": True}]},
        {"name": "greet", "description": "second (a duplicate: dropped)"},
        {"name": "Greet", "arguments": [{"name": "values"}]},
    ],
    "resources": [{"uri": "test://greet", "name": "greet"}, {"uri": "test://greet", "name": "again"}],
    "resourceTemplates": [
        {"uriTemplate": "test://greet/{id}", "name": "greet"},
        {"uriTemplate": "test://Greet/{id}", "name": "Greet"},
        {"uriTemplate": "test://files/{+path}", "name": "files"},
    ],
}


def test_the_plan_deduplicates_sorts_and_names_once() -> None:
    catalog, problems = build_catalog(
        COLLIDING["tools"],
        prompts=COLLIDING["prompts"],
        resources=COLLIDING["resources"],
        resource_templates=COLLIDING["resourceTemplates"],
    )
    assert not problems
    plan = build_plan(catalog)
    assert [p.wire for p in plan.prompts] == ["Greet", "greet"]
    p0, p1 = plan.prompts
    assert plan.prompts[1].definition["description"] == "first"  # the first definition wins
    assert [r.uri for r in plan.resources] == ["test://greet"]
    assert [w.message for w in plan.warnings] == [
        "duplicate prompt; the first definition is kept",
        "duplicate resource; the first definition is kept",
    ]
    tool_methods = {t.method for t in plan.tools}
    assert "subscribe" not in tool_methods  # ToolsBase.subscribe is the server's own member
    client = [p.client_method for p in plan.prompts] + [t.client_method for t in plan.templates]
    server = (
        [p.server_method for p in plan.prompts]
        + [r.server_method for r in plan.resources]
        + [t.server_method for t in plan.templates]
    )
    for names in (client, server):
        assert len(set(names)) == len(names) and not set(names) & tool_methods, names
    models = [p.model for p in plan.prompts] + [t.model for t in plan.templates]
    tool_models = {t.args_model for t in plan.tools}
    assert len(set(models)) == len(models) and not set(models) & tool_models
    # A level-2 template gets neither a client helper (it could not be expanded safely) nor a handler.
    assert plan.rich_templates == ("test://files/{+path}",)
    assert all("{+" not in t.template for t in plan.templates)
    # Input order never matters.
    shuffled, _ = build_catalog(
        COLLIDING["tools"][::-1],
        prompts=COLLIDING["prompts"][::-1],
        resources=COLLIDING["resources"],
        resource_templates=COLLIDING["resourceTemplates"][::-1],
    )
    again = build_plan(shuffled)
    assert again.tools == plan.tools and again.templates == plan.templates
    assert [(p.wire, p.client_method, p.server_method) for p in again.prompts] == [
        ("Greet", p0.client_method, p0.server_method),
        ("greet", p1.client_method, p1.server_method),
    ] and again.prompts[1].definition["description"] == "second (a duplicate: dropped)"


def _client_surface(client_py: Path) -> dict[str, list[str]]:
    """Wire names the generated client has typed methods for, read from its source."""
    tree = ast.parse(client_py.read_text())
    prompts: list[str] = []
    templates: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if node.func.attr == "get_prompt" and isinstance(first, ast.Constant):
                prompts.append(first.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "expand_uri_template":
            arg = node.args[0]
            assert isinstance(arg, ast.Constant)
            templates.append(arg.value)
    return {"prompts": prompts, "templates": templates}


def test_client_and_server_expose_the_same_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "colliding.json"
    source.write_text(json.dumps(COLLIDING))
    for kind, out in (("client", "colliding_client"), ("server", "colliding_server")):
        with pytest.raises(SystemExit, match=r"^0$") as ei:
            main([kind, str(source), "-o", str(tmp_path / out)])
        err = capsys.readouterr().err
        assert ei.value.code == 0, err
        assert "duplicate prompt" in err
        assert ("not served" in err) == (kind == "server")
    client = _client_surface(tmp_path / "colliding_client" / "client.py")
    tools_json = next(
        node.value
        for node in ast.parse((tmp_path / "colliding_client" / "_catalog.py").read_text()).body
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "TOOLS_JSON"
    )
    assert tools_json is not None
    client_tools = sorted(json.loads(t)["name"] for t in ast.literal_eval(tools_json))

    async def served() -> dict[str, list[str]]:
        async with connect_stdio(sys.executable, ["-m", "colliding_server"], cwd=str(tmp_path), protocol="legacy") as s:
            return {
                "tools": [t["name"] for t in await s.list_tools()],
                "prompts": [p["name"] for p in await s.list_prompts()],
                "resources": [r["uri"] for r in await s.list_resources()],
                "templates": [t["uriTemplate"] for t in await s.list_resource_templates()],
            }

    server = asyncio.run(asyncio.wait_for(served(), 60))
    for names in server.values():
        assert len(names) == len(set(names)), names  # each wire name registered once
    assert sorted(server["tools"]) == client_tools == sorted(t["name"] for t in COLLIDING["tools"])
    assert sorted(server["prompts"]) == sorted(client["prompts"]) == ["Greet", "greet"]
    assert server["resources"] == ["test://greet"]
    # Level-1 templates on both sides; the level-2 one on neither (a warning says so for the server).
    assert sorted(server["templates"]) == sorted(client["templates"]) == ["test://Greet/{id}", "test://greet/{id}"]
