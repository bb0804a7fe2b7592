"""A client generated from schemas whose tools allow tasks (`execution.taskSupport`: the
conformance server's) gets `start_<tool>`: run against that generated server over stdio, async and
sync, its TypedTask waits, answers input requests, cancels and fails as the plain call would, and
the package and a user's script are clean under mypy --strict and pyright --strict."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from checkers import errors_of, mypy_strict, pyright_strict
from generation import importable, mcpgen_cli

REPO = Path(__file__).resolve().parents[3]
CONFORMANCE = REPO / "examples" / "conformance"

USER_SCRIPT = """\
from taskclient import AsyncClient, Client, ToolResult
from mcpgen.runtime.support.client import TaskFailed


async def run(client: AsyncClient) -> str:
    task = await client.start_slow_compute(seconds=0.1, label="typed")
    status: str = task.status
    result: ToolResult = await task.wait(timeout=30)
    try:
        await (await client.start_protocol_error_job()).wait()
    except TaskFailed as failed:
        return f"{status} {result.text} {failed.status}"
    return result.text


def run_sync(client: Client) -> str:
    task = client.start_slow_compute(seconds=0.1)
    result: ToolResult = task.wait()
    return result.text + task.status
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("tasks_client")
    mcpgen_cli(root, "client", str(CONFORMANCE / "schemas" / "tools.yaml"), "-o", "taskclient")
    (root / "user_script.py").write_text(USER_SCRIPT, encoding="utf-8")
    with importable(root, "taskclient"):
        yield root


def server() -> tuple[str, list[str]]:
    return sys.executable, ["-m", "conformance_server"]


def test_start_methods_exist_only_for_tools_that_allow_tasks(package: Path) -> None:
    source = (package / "taskclient" / "client.py").read_text(encoding="utf-8")
    assert "async def start_slow_compute(" in source and "start_slow_compute = sync_task_method(" in source
    assert "start_greet" not in source  # a plain tool: only the plain call


def test_the_async_client_runs_tasks_end_to_end(package: Path) -> None:
    from taskclient import AsyncClient

    from mcpgen.runtime import TaskFailed

    asked: list[str] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(str(params.get("message")))
        return {"action": "accept", "content": {"confirm": True}}

    async def main() -> None:
        command, args = server()
        async with AsyncClient.connect_stdio(command, args, cwd=str(CONFORMANCE), on_elicitation=elicit) as client:
            task = await client.start_slow_compute(seconds=0.2, label="typed")
            assert task.status == "working" and task.task.task_id
            assert (await task.wait(timeout=30)).text == "Computed typed after 0.2 s"
            assert (
                await (await client.start_confirm_delete(filename="a.txt")).wait(timeout=30)
            ).text == "Deleted a.txt"
            composed = await client.start_test_tool_with_task()  # an input round first, then the task
            assert "(from a task)" in (await composed.wait(timeout=30)).text
            long = await client.start_slow_compute(seconds=60)
            await long.cancel()
            with pytest.raises(TaskFailed, match="cancelled"):
                await long.wait(timeout=30)
            with pytest.raises(TaskFailed, match="protocol-level error") as failed:
                await (await client.start_protocol_error_job()).wait(timeout=30)
            assert failed.value.code == -32603
            assert (await client.slow_compute(seconds=0)).text == "Computed result after 0 s"  # the plain call stays

    asyncio.run(asyncio.wait_for(main(), 120))
    assert asked == ["Delete a.txt?", "What is your name?"]


def test_the_sync_client_runs_a_task(package: Path) -> None:
    from taskclient import Client

    command, args = server()
    with Client.connect_stdio(command, args, cwd=str(CONFORMANCE)) as client:
        task = client.start_slow_compute(seconds=0.1, label="sync")
        assert task.wait(timeout=30).text == "Computed sync after 0.1 s" and task.status == "completed"


@pytest.mark.slow
def test_the_package_and_a_users_script_type_check_strictly(package: Path) -> None:
    mypy = mypy_strict(package, ["taskclient", "user_script.py"])
    assert mypy.returncode == 0, mypy.stdout[-3000:]
    report = pyright_strict(package, ["taskclient", "user_script.py"])
    assert report["summary"]["filesAnalyzed"] > 2, report["summary"]
    errors = errors_of(report)
    assert not errors, json.dumps(errors[:10], indent=1)


def test_a_snapshot_of_the_live_server_records_which_tools_run_as_tasks(tmp_path: Path) -> None:
    snapshot = tmp_path / "live.snapshot.json"
    mcpgen_cli(CONFORMANCE, "snapshot", "-q", "-o", str(snapshot), "--", sys.executable, "-m", "conformance_server")
    tools = {t["name"]: t for t in json.loads(snapshot.read_text(encoding="utf-8"))["tools"]}
    assert tools["slow_compute"]["execution"] == {"taskSupport": "optional"}
    assert tools["failing_job"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in tools["greet"]
    mcpgen_cli(tmp_path, "client", str(snapshot), "-o", "from_snapshot")
    source = (tmp_path / "from_snapshot" / "client.py").read_text(encoding="utf-8")
    # The server declares the extension, so every tool not "forbidden" gets a start (greet's
    # answers at once, a task already completed); the snapshot keeps which ones say more.
    assert "async def start_failing_job(" in source and "async def start_greet(" in source


def test_a_server_that_declares_the_extension_gives_every_tool_but_forbidden_ones_a_start(tmp_path: Path) -> None:
    # FastMCP marks no tool: it declares the extension and serves any tool as a task.
    snapshot = {
        "mcpgenSnapshot": 1,
        "extensions": ["io.modelcontextprotocol/tasks", "io.modelcontextprotocol/ui"],
        "tools": [
            {"name": "crunch", "inputSchema": {"type": "object"}},
            {"name": "ping_now", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
        ],
    }
    (tmp_path / "fm.snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    mcpgen_cli(tmp_path, "client", "fm.snapshot.json", "-o", "fm_client")
    source = (tmp_path / "fm_client" / "client.py").read_text(encoding="utf-8")
    assert "async def start_crunch(" in source and "start_ping_now" not in source


@pytest.mark.parametrize(
    "value, names",
    [
        ({"io.modelcontextprotocol/tasks": {}, "b": {}}, ("b", "io.modelcontextprotocol/tasks")),
        (["x", 1, "", "x" * 201, None], ("x",)),
        ("io.modelcontextprotocol/tasks", ()),
        (None, ()),
        ([f"e{i:03}" for i in range(100)], tuple(f"e{i:03}" for i in range(64))),
    ],
)
def test_the_extensions_a_catalog_records_are_checked(value: Any, names: tuple[str, ...]) -> None:
    from mcpgen.catalog.build import extension_names

    assert extension_names(value) == names


def test_a_start_method_never_clashes_with_another_tools_method(tmp_path: Path) -> None:
    tools = [
        {"name": "export", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "start_export", "inputSchema": {"type": "object"}},
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    mcpgen_cli(tmp_path, "client", "tools.json", "-o", "clash_client")
    source = (tmp_path / "clash_client" / "client.py").read_text(encoding="utf-8")
    assert source.count("async def start_export(") == 1 and "TypedTask" not in source
