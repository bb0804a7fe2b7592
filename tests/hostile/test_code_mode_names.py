"""A code-mode package from tools with awkward names and hostile text: every tool gets its own
importable module, and no name, title, description or annotation becomes code."""

from __future__ import annotations

import asyncio
import builtins
import importlib
import uuid
from pathlib import Path
from types import ModuleType

from generation import AWKWARD, importable, imported, tool

from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions, Layout
from mcpgen.output.write import write_atomic
from mcpgen.runtime.core.results import ToolResult
from mcpgen.sources.files import catalog_from_document
from mcpgen.testing.mock import MockOptions, mock_server
from mcpgen.testing.overrides import Behaviour, Overrides

# Were any of it code, importing the package would set builtins.PWNED.
HOSTILE_TEXT = '"""\nimport builtins; builtins.PWNED = 1\n"""\x00\u2028 \'; builtins.PWNED = 2 #'


def test_awkward_names_and_hostile_text_stay_data(tmp_path: Path) -> None:
    tools = [
        tool(
            name,
            {"x": {"type": "string", "description": HOSTILE_TEXT}},
            description=HOSTILE_TEXT,
            title=HOSTILE_TEXT,
            annotations={"readOnlyHint": True, "destructiveHint": "yes", "x-evil": HOSTILE_TEXT},
        )
        for name in AWKWARD
    ]
    catalog, problems = catalog_from_document({"tools": tools}, "inline")
    assert catalog is not None and not problems, problems
    package = f"cm_{uuid.uuid4().hex[:8]}"
    files = generate_client(catalog, ClientOptions(layout=Layout.CODE_MODE), package=package)
    assert "PWNED" not in files.files["SKILL.md"]
    write_atomic(files, tmp_path / package)
    with importable(tmp_path, package):
        index = importlib.import_module(package)
        names = index.tool_names()
        assert len(names) == len(set(names)) == len(AWKWARD)
        for name in names:
            # The import line describe() gives (a module's name is cut to a safe file name).
            _, where, _, imported = index.describe(name).splitlines()[0].split()
            assert imported == name and where.startswith(f"{package}.tools.") and len(where) < len(package) + 80
            module = importlib.import_module(where)
            assert callable(getattr(module, name))
            # Only booleans among the known hints survive; the rest of `annotations` is not code.
            assert dict(module.HINTS) == {"readOnlyHint": True}
            info = index.tool_info(name)
            assert info.wire == module.WIRE_NAME and "builtins.PWNED = 1" in info.doc  # kept, as text
        assert not hasattr(builtins, "PWNED")
        # A string that is one tool's Python name and another's MCP name means the Python one.
        assert index.tool_info("get_weather").wire == "get-weather"
        assert len(index.search_tools("", 100)) == len(AWKWARD)


def test_a_tool_and_an_argument_called_current_client_call_the_server_not_themselves(tmp_path: Path) -> None:
    # `current_client` is what every code-mode tool module calls to reach the connection.
    shadow = tool("current_client", {"current_client": {"type": "string"}}, required=["current_client"])
    catalog, problems = catalog_from_document({"tools": [shadow]}, "inline")
    assert catalog is not None and not problems, problems
    package = f"cm_{uuid.uuid4().hex[:8]}"
    files = generate_client(catalog, ClientOptions(layout=Layout.CODE_MODE), package=package)
    write_atomic(files, tmp_path / package)
    served = Behaviour(content=({"type": "text", "text": "from the server"},))
    server = mock_server(catalog, MockOptions(overrides=Overrides({"current_client": [served]})))

    async def call(index: ModuleType, module: ModuleType) -> object:
        async with index.AsyncClient.connect_memory(server) as client:
            with index.use(client):
                return await module.current_client(current_client="x")

    with imported(tmp_path, package) as index:
        module = importlib.import_module(f"{package}.tools.current_client")
        assert index.tool_names() == ["current_client"]  # the tool keeps its name
        result = asyncio.run(call(index, module))
    assert isinstance(result, ToolResult) and result.text == "from the server"
