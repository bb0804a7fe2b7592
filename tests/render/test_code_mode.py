"""`mcpgen client --layout code-mode` from the recorded catalogs: one module per tool, an index that
imports none of them, hints per tool, a SKILL.md, and mypy --strict over the whole package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.plan.build import build_plan
from mcpgen.sources.files import load_file

REPO = Path(__file__).resolve().parents[2]
CAPTURES = {
    "everything_tools": REPO / "tests/golden/inputs/everything.raw.json",
    "time_tools": REPO / "tests/golden/inputs/time.raw.json",
}


def _python(code: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("code_mode")
    for name, capture in CAPTURES.items():
        _code_mode(str(capture), name, root)
    return root


def _code_mode(source: str, out: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", source, "-o", out, "--layout", "code-mode"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def _methods(capture: Path) -> dict[str, str]:
    catalog, problems = load_file(capture)
    assert catalog is not None, problems
    return {t.method: t.wire for t in build_plan(catalog).tools}


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_one_module_per_tool_named_by_the_plan(packages: Path, name: str) -> None:
    pkg = packages / name
    methods = _methods(CAPTURES[name])
    assert sorted(p.stem for p in (pkg / "tools").glob("*.py") if p.stem != "__init__") == sorted(methods)
    for method, wire in methods.items():
        text = (pkg / "tools" / f"{method}.py").read_text(encoding="utf-8")
        assert f"async def {method}(" in text
        assert f"WIRE_NAME: Final = {json.dumps(wire)}" in text
        # Each module calls through the one shared client, never another tool module.
        assert f"current_client().{method}(" in text
        assert "from .." in text and ".tools." not in text.replace(f".tools.{method}", "")
    assert (pkg / "SKILL.md").is_file() and "search_tools" in (pkg / "SKILL.md").read_text(encoding="utf-8")
    assert {"client.py", "models.py", "_catalog.py", "_index.py", "_connection.py"} <= {p.name for p in pkg.iterdir()}


def test_importing_one_tool_loads_no_other_tool_nor_the_client_and_is_light(packages: Path) -> None:
    # What an import costs is counted in modules, not timed: a wall-clock bound in a test fails
    # on a busy machine (speed goals live in bench/).
    out = _python(
        "import sys, json\n"
        "before = len(sys.modules)\n"
        "from everything_tools.tools.echo import echo, HINTS\n"
        "loaded = len(sys.modules) - before\n"
        "mods = sorted(m for m in sys.modules if m.startswith('everything_tools'))\n"
        "print(json.dumps({'loaded': loaded, 'mods': mods, 'all': sorted(sys.modules),"
        " 'hints': dict(HINTS)}))",
        packages,
    )
    one = json.loads(out)
    assert one["mods"] == [
        "everything_tools",
        "everything_tools._connection",
        "everything_tools._index",
        "everything_tools.tools",
        "everything_tools.tools.echo",
    ]
    # Nothing heavy: no event loop, no pydantic, no transport, session or typed client, no JSON
    # Schema validator, no HTTP client.
    heavy = ("asyncio", "pydantic", "jsonschema", "httpx", "msgspec", "mcpgen.runtime.transports")
    heavy += ("mcpgen.runtime.server", "mcpgen.runtime.client.typed", "mcpgen.runtime.client.session")
    heavy += ("mcpgen.runtime.client.connect", "mcpgen.runtime.client.negotiation")
    assert [m for m in one["all"] if m.split(".")[0] in heavy or m.startswith(heavy)] == []
    assert one["hints"] == {
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
        "readOnlyHint": True,
    }
    whole = json.loads(
        _python(
            "import sys, json, importlib\n"
            "before = len(sys.modules)\n"
            "import everything_tools.client, everything_tools.models\n"
            "for m in everything_tools.tool_names():\n"
            "    importlib.import_module('everything_tools.tools.' + m)\n"
            "print(json.dumps(len(sys.modules) - before))",
            packages,
        )
    )
    print(f"\nimport one tool module: {one['loaded']} modules; the whole client: {whole}")
    assert one["loaded"] < whole


def test_index_searches_and_describes_without_importing_tools(packages: Path) -> None:
    out = _python(
        "import sys, json\n"
        "import everything_tools as e\n"
        "found = e.search_tools('sum numbers')\n"
        "text = e.describe('get-structured-content')\n"
        "same = e.describe('get_structured_content') == text\n"
        "try:\n"
        "    e.describe('get_summ')\n"
        "    missing = ''\n"
        "except LookupError as exc:\n"
        "    missing = str(exc)\n"
        "tools = [m for m in sys.modules if m.startswith('everything_tools.tools.')]\n"
        "print(json.dumps({'found': found, 'text': text, 'same': same, 'missing': missing, 'tools': tools,"
        " 'all': len(e.search_tools('', 100)), 'hints': {k: dict(v) for k, v in e.HINTS.items()}}))",
        packages,
    )
    got = json.loads(out)
    assert got["found"] == [["get_sum", "Returns the sum of two numbers"]]
    assert got["text"].startswith("from everything_tools.tools.get_structured_content import get_structured_content\n")
    assert "async def get_structured_content(*, location: Literal['New York', 'Chicago', 'Los Angeles'])" in got["text"]
    assert "readOnlyHint=True" in got["text"] and got["same"]
    assert "did you mean get_sum" in got["missing"]
    assert got["tools"] == []
    assert got["all"] == len(_methods(CAPTURES["everything_tools"]))
    # Hints as the capture declares them, per tool.
    catalog, _ = load_file(CAPTURES["everything_tools"])
    assert catalog is not None
    declared = {t.wire: t.hints for t in build_plan(catalog).tools}
    assert got["hints"]["trigger_long_running_operation"] == declared["trigger-long-running-operation"]
    assert any(h.get("destructiveHint") is True for h in got["hints"].values()) or any(
        h.get("readOnlyHint") is False for h in got["hints"].values()
    )


def test_calling_a_tool_outside_a_connection_says_how(packages: Path) -> None:
    out = _python(
        "import asyncio\n"
        "from time_tools.tools.get_current_time import get_current_time\n"
        "try:\n"
        "    asyncio.run(get_current_time(timezone='UTC'))\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n",
        packages,
    )
    assert "async with connect():" in out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_code_mode_package_passes_mypy_strict(packages: Path, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11", name],
        cwd=packages,
        env={**os.environ, "MYPYPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_bad_arguments_raise_what_skill_md_says(packages: Path) -> None:
    skill = (packages / "time_tools/SKILL.md").read_text(encoding="utf-8")
    assert "bad arguments raise `time_tools.InvalidArguments`" in skill
    out = _python(
        "import asyncio\n"
        "from mcpgen.sources.files import load_file\n"
        "from mcpgen.testing.mock import mock_server\n"
        "import time_tools\n"
        "from time_tools.client import AsyncClient\n"
        "from time_tools.tools.get_current_time import get_current_time\n"
        f"catalog, _ = load_file({str(CAPTURES['time_tools'])!r})\n"
        "async def main():\n"
        "    async with AsyncClient.connect_memory(mock_server(catalog)) as client:\n"
        "        with time_tools.use(client):\n"
        "            try:\n"
        "                await get_current_time(timezone=3)\n"
        "            except time_tools.InvalidArguments as exc:\n"
        "                print(type(exc).__name__, isinstance(exc, ValueError), exc)\n"
        "asyncio.run(main())\n",
        packages,
    )
    assert out.startswith("InvalidArguments True") and "timezone" in out


def test_describe_names_the_task_handle_exactly_when_the_tool_has_one(tmp_path: Path) -> None:
    source = {
        "tools": [
            {"name": "export", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}},
                                               "required": ["n"]}, "execution": {"taskSupport": "optional"}},
            {"name": "echo", "inputSchema": {"type": "object"}},
            {"name": "never", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
        ]
    }  # fmt: skip
    (tmp_path / "tasks.json").write_text(json.dumps(source), encoding="utf-8")
    _code_mode("tasks.json", "task_tools", tmp_path)
    out = _python(
        "import json, sys\nimport task_tools as t\n"
        "print(json.dumps({n: t.describe(n) for n in ('export', 'echo', 'never')}))\n",
        tmp_path,
    )
    text = json.loads(out)
    export = text["export"]
    assert "It may run as a task (long-running): from task_tools.tools.export import start_export\n" in export
    assert "async def start_export(*, n: int) -> TypedTask[ToolResult]" in export
    assert "`await task.wait()` gives what export(...) returns" in export
    for plain in ("echo", "never"):  # no start_ function in their modules: describe() names none
        assert "start_" not in text[plain] and "as a task" not in text[plain], text[plain]
    # And what describe() names is there, with that signature.
    shown = _python(
        "import inspect\nfrom task_tools.tools import export\nprint(inspect.signature(export.start_export))", tmp_path
    )
    assert shown.strip() == "(*, n: 'int') -> 'TypedTask[ToolResult]'"
