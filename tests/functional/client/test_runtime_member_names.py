"""A tool named exactly like one of the runtime's public `mcpgen_` members (what the sync mixins
and the multi-server client reach through, so pyright's reportPrivateUsage holds) gets another
method name, and the member keeps working: the sync client still runs calls and tasks through it."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from features_client_support import generated

from mcpgen.plan.naming import CLIENT_MEMBERS
from mcpgen.runtime import Server
from mcpgen.runtime.server.server import RequestContext
from mcpgen.sources.files import catalog_from_document

RUNTIME_MEMBERS = ("mcpgen_inner", "mcpgen_runner", "mcpgen_start")


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}


def _server(name: str) -> Server:
    async def answer(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"ran {name}"}]}

    server = Server("members", "1.0")
    server.add_tool(_tool(name), answer)
    return server


def test_every_runtime_member_is_reserved() -> None:
    assert set(RUNTIME_MEMBERS) <= CLIENT_MEMBERS


@pytest.mark.parametrize("member", RUNTIME_MEMBERS)
def test_a_tool_named_like_a_runtime_member_never_shadows_it(tmp_path: Path, member: str) -> None:
    cat, problems = catalog_from_document({"tools": [_tool(member)]}, "inline")
    assert cat is not None and not problems
    with generated(cat, tmp_path) as pkg:
        for cls in (pkg.AsyncClient, pkg.Client):
            assert f"{member}_" in vars(cls), sorted(vars(cls))  # the tool's method stepped aside
            assert member not in vars(cls)  # and the runtime's member is the base class's
        assert isinstance(inspect.getattr_static(pkg.Client, "mcpgen_inner"), property)
        assert isinstance(inspect.getattr_static(pkg.Client, "mcpgen_runner"), property)
        assert inspect.iscoroutinefunction(pkg.AsyncClient.mcpgen_start)
        with pkg.Client.connect_memory(_server(member)) as client:
            assert getattr(client, f"{member}_")().text == f"ran {member}"  # through mcpgen_inner/runner
            task = getattr(client, f"start_{member}_")()  # through mcpgen_start
            assert task.wait(30).text == f"ran {member}"
