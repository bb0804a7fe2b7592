"""A scaffolded server runs a tool as a task when handlers.py says so (TASK_SUPPORT, with the
schemas untouched), advertises it in tools/list, and regenerating the package leaves handlers.py
as the user wrote it. A bad TASK_SUPPORT value stops the server at start, in one line."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from generation import importable, mcpgen_cli

from mcpgen.runtime import connect_memory

SCHEMA = """\
- name: export_report
  description: Exports a report.
  inputSchema: {type: object, properties: {pages: {type: integer}}}
"""

HANDLERS = '''\
"""User code."""

from __future__ import annotations

import asyncio

from ._generated import Context, ToolOutput, ToolsBase, models

__all__ = ["Handlers"]


class Handlers(ToolsBase):
    TASK_SUPPORT = {"export_report": "optional"}

    async def export_report(self, args: models.ExportReportArgs, ctx: Context) -> ToolOutput:
        await asyncio.sleep(0.1)
        return f"exported {args.pages} pages"
'''


def generate(root: Path) -> None:
    mcpgen_cli(root, "server", "tools.yaml", "-o", "report_server")


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "tools.yaml").write_text(SCHEMA, encoding="utf-8")
    generate(tmp_path)
    (tmp_path / "report_server" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    generate(tmp_path)  # regenerated: handlers.py stays the user's
    with importable(tmp_path, "report_server"):
        yield tmp_path


def test_handlers_task_support_makes_a_task_and_survives_regeneration(package: Path) -> None:
    assert (package / "report_server" / "handlers.py").read_text(encoding="utf-8") == HANDLERS
    from report_server._generated import build_server
    from report_server.handlers import Handlers

    async def main() -> None:
        async with connect_memory(build_server(Handlers()), protocol="2026-07-28") as session:
            (tool,) = await session.list_tools()
            assert tool["execution"] == {"taskSupport": "optional"}
            task = await session.start_tool("export_report", {"pages": 3})
            assert task.task_id is not None
            assert (await task.wait(timeout=30))["content"][0]["text"] == "exported 3 pages"
            plain = await session.call_tool("export_report", {"pages": 1})  # no extension: a plain call
            assert plain["content"][0]["text"] == "exported 1 pages"

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_bad_task_support_value_is_refused_at_start(package: Path) -> None:
    from report_server._generated import build_server
    from report_server.handlers import Handlers

    class Wrong(Handlers):
        TASK_SUPPORT = {"export_report": "sometimes"}

    with pytest.raises(ValueError, match=r"TASK_SUPPORT\['export_report'\] must be 'optional' or 'required'"):
        build_server(Wrong())
