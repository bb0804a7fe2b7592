"""`skills-dir`, `task-support` and `tool-ui` in [tool.mcpgen]: a scaffold's default Skills folder,
tools run as tasks and tools' MCP Apps pages (`ToolsBase.SKILLS_DIR`, `TASK_SUPPORT`, `TOOL_UI`),
which handlers.py's Handlers overrides, recorded in the manifest so that a change regenerates the
package."""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from checkers import errors_of, mypy_strict, pyright_strict
from generation import mcpgen_cli

from mcpgen.catalog.model import Problem
from mcpgen.config import parse_skills_dir, parse_task_support, parse_tool_ui
from mcpgen.runtime import ServerSetupError, connect_memory
from mcpgen.runtime.core.protocol import EXTENSION_UI

REPO = Path(__file__).resolve().parents[2]
SOURCE = {
    "tools": [
        {"name": "export", "inputSchema": {"type": "object"}},
        {"name": "echo", "inputSchema": {"type": "object"}},
    ]
}
PYPROJECT = """
[tool.mcpgen.targets.srv]
kind = "server"
source = "source.json"
output = "ext_srv"
skills-dir = "skills"
task-support = { export = "optional" }
tool-ui = { echo = "ui://app/echo.html" }
"""
PAGE = "<!doctype html><p>echo"


def test_each_option_is_checked() -> None:
    problems: list[Problem] = []
    assert parse_skills_dir("shared/skills/", "t", problems) == "shared/skills" and not problems
    # The one rule of a user-named path (runtime/server/paths.py; tests/cli/test_path_rule.py
    # holds it over every option): no `..` at all, even one that comes back inside.
    for bad, why in (("skills/../shared", "must stay inside"), ("/etc", "must be a relative path"),
                     ("C:\\skills", "must be a relative path"), ("~/s", "must be a relative path"),
                     ("", "non-empty"), (3, "non-empty")):  # fmt: skip
        found: list[Problem] = []
        assert parse_skills_dir(bad, "t", found) is None
        assert len(found) == 1 and why in found[0].message, (bad, found)
    assert parse_task_support({"b": "required", "a": "optional"}, "t", problems) == (
        ("a", "optional"),
        ("b", "required"),
    )
    for bad, why in (({"a": "forbidden"}, "must be 'optional' or 'required'"), (["a"], "must be a table")):
        found = []
        assert parse_task_support(bad, "t", found) == ()
        assert len(found) == 1 and why in found[0].message, (bad, found)
    assert parse_tool_ui({"b": "ui://x/b.html", "a": "ui://a.html"}, "t", problems) == (
        ("a", "ui://a.html"),
        ("b", "ui://x/b.html"),
    )
    assert not problems
    for bad, why in (({"a": "ui://../pyproject.toml"}, "must name a file inside ui/"),
                     ({"a": "ui://x//y.html"}, "must name a file inside ui/"),
                     ({"a": "https://x/y.html"}, "must be a ui:// URI"), ({"a": 3}, "must be a ui:// URI"),
                     (["a"], "must be a table")):  # fmt: skip
        found = []
        assert parse_tool_ui(bad, "t", found) == ()
        assert len(found) == 1 and why in found[0].message, (bad, found)


def test_the_options_apply_to_server_targets_only(tmp_path: Path) -> None:
    from mcpgen.config import load_project

    (tmp_path / "source.json").write_text(json.dumps(SOURCE))
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('kind = "server"', 'kind = "client"'))
    _, problems = load_project(tmp_path)
    messages = [p.message for p in problems]
    assert "'skills-dir' applies to server targets only" in messages
    assert "'task-support' applies to server targets only" in messages
    assert "'tool-ui' applies to server targets only" in messages


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("ext")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "source.json").write_text(json.dumps(SOURCE))
    mcpgen_cli(root, "generate")
    shutil.copytree(REPO / "examples/conformance/skills", root / "ext_srv" / "skills")
    (root / "ext_srv/ui/app").mkdir(parents=True)
    (root / "ext_srv/ui/app/echo.html").write_text(PAGE)  # beside handlers.py, not _generated/
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("ext_srv")
    finally:
        sys.path.remove(str(root))


def _served(server: Any) -> tuple[dict[str, Any], list[str]]:
    async def main() -> tuple[dict[str, Any], list[str]]:
        async with connect_memory(server, skills=True) as session:
            tools = await session.request("tools/list")
            skills = await session.list_skills()
        return {t["name"]: t.get("execution") for t in tools["tools"]}, [s.name for s in skills]

    return asyncio.run(main())


def _ui_served(server: Any) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    async def main() -> tuple[dict[str, Any], Any, dict[str, Any]]:
        async with connect_memory(server, mcp_apps=True) as session:
            tools = (await session.request("tools/list"))["tools"]
            ui = await session.tool_ui("echo")
            caps = dict(session.server_capabilities)
        return {t["name"]: t.get("_meta") for t in tools}, ui, caps

    return asyncio.run(main())


def test_the_options_are_the_scaffolds_default(package: Any) -> None:
    handlers = importlib.import_module("ext_srv.handlers")
    assert package.ToolsBase.SKILLS_DIR == "skills"
    assert package.ToolsBase.TASK_SUPPORT == {"export": "optional"}
    executions, skills = _served(package.build_server(handlers.Handlers()))
    assert executions == {"export": {"taskSupport": "optional"}, "echo": None}
    assert skills == ["pdf-processing"]
    assert package.ToolsBase.TOOL_UI == {"echo": "ui://app/echo.html"}
    metas, ui, caps = _ui_served(package.build_server(handlers.Handlers()))
    assert metas == {"export": None, "echo": {"ui": {"resourceUri": "ui://app/echo.html"}}}
    assert (ui.uri, ui.html) == ("ui://app/echo.html", PAGE)
    assert EXTENSION_UI in caps["extensions"]


def test_handlers_override_the_options(package: Any) -> None:
    handlers = importlib.import_module("ext_srv.handlers")

    class Mine(handlers.Handlers):  # type: ignore[misc,name-defined]
        TASK_SUPPORT = {"echo": "required"}
        SKILLS_DIR = None
        TOOL_UI = None

    server = package.build_server(Mine())

    async def main() -> dict[str, Any]:
        async with connect_memory(server) as session:
            tools = await session.request("tools/list")
            assert "skills" not in str(session.server_capabilities)  # SKILLS_DIR = None: none served
        return {t["name"]: t.get("execution") for t in tools["tools"]}

    assert asyncio.run(main()) == {"export": None, "echo": {"taskSupport": "required"}}
    metas, ui, caps = _ui_served(server)
    assert metas == {"export": None, "echo": None} and ui is None and EXTENSION_UI not in caps.get("extensions", {})


def test_a_tool_the_server_lacks_is_refused_at_start(package: Any) -> None:
    handlers = importlib.import_module("ext_srv.handlers")

    class Wrong(handlers.Handlers):  # type: ignore[misc,name-defined]
        TASK_SUPPORT = {"exprot": "optional"}

    with pytest.raises(ServerSetupError, match="TASK_SUPPORT names 'exprot', which is no tool of this server"):
        package.build_server(Wrong())


def test_a_changed_option_regenerates_the_scaffold(package: Any) -> None:
    root = Path(package.__file__).parent.parent
    base = root / "ext_srv/_generated/base.py"
    assert "SKILLS_DIR: ClassVar[str] = 'skills'" in base.read_text().replace('"', "'")
    (root / "pyproject.toml").write_text(PYPROJECT.replace('export = "optional"', 'export = "required"'))
    try:
        mcpgen_cli(root, "generate")
        assert "'export': 'required'" in base.read_text().replace('"', "'")
        manifest = json.loads((root / "ext_srv/.mcpgen-manifest.json").read_text())
        assert manifest["options"]["skills-dir"] == "skills"
        assert manifest["options"]["task-support"] == {"export": "required"}
        assert manifest["options"]["tool-ui"] == {"echo": "ui://app/echo.html"}
    finally:
        (root / "pyproject.toml").write_text(PYPROJECT)
        mcpgen_cli(root, "generate")


@pytest.mark.slow
def test_the_scaffold_passes_mypy_and_pyright_strict(package: Any) -> None:
    root = Path(package.__file__).parent.parent
    done = mypy_strict(root, ["ext_srv"])
    assert done.returncode == 0, done.stdout[-3000:]
    report = pyright_strict(root, ["ext_srv"])
    assert report["summary"]["filesAnalyzed"] >= 3, report["summary"]
    assert not errors_of(report), json.dumps(errors_of(report)[:10], indent=1)
