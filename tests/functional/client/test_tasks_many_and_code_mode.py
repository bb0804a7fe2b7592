"""Tasks where a client is not the flat one: a package for many servers (each namespace's typed
`start_<tool>`, and `start("server__tool", ...)` by prefixed name, async and sync) and a
code-mode package (`tools/<name>.py` holds `start_<name>` beside `<name>`, typed, still loading
no client on import), against the conformance example server over stdio."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from checkers import mypy_strict
from generation import importable, mcpgen_cli

from mcpgen.runtime import InvalidArguments, TaskFailed

REPO = Path(__file__).resolve().parents[3]
CONFORMANCE = REPO / "examples" / "conformance"
SERVER = {"command": sys.executable, "args": ["-m", "conformance_server"], "cwd": str(CONFORMANCE)}

USER_SCRIPT = """\
from manytasks import AsyncClient
from cmtasks.tools.slow_compute import start_slow_compute
from mcpgen.runtime.support.client import ToolResult


async def run(client: AsyncClient) -> str:
    task = await client.conf.start_slow_compute(seconds=0.1)
    result: ToolResult = await task.wait(timeout=30)
    other: ToolResult = await (await start_slow_compute(seconds=0.1)).wait()
    return result.text + other.text
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("tasks_elsewhere")
    config = {"mcpServers": {"conf": SERVER, "again": SERVER}}
    (root / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    mcpgen_cli(root, "client", "--config", "mcp.json", "-o", "manytasks")
    mcpgen_cli(root, "client", str(CONFORMANCE / "schemas" / "tools.yaml"), "--layout", "code-mode", "-o", "cmtasks")
    (root / "user_script.py").write_text(USER_SCRIPT, encoding="utf-8")
    with importable(root, "manytasks", "cmtasks"):
        yield root


def test_a_many_servers_client_starts_tasks_typed_per_namespace_and_by_prefixed_name(root: Path) -> None:
    from manytasks import AsyncClient

    async def main() -> None:
        async with AsyncClient.connect() as client:
            typed = await client.conf.start_slow_compute(seconds=0.1, label="typed")
            assert (await typed.wait(timeout=30)).text == "Computed typed after 0.1 s"
            by_name = await client.start("again__slow_compute", {"seconds": 0.1, "label": "named"})
            assert by_name.task.task_id is not None  # a task on the second server
            assert (await by_name.wait(timeout=30)).text == "Computed named after 0.1 s"
            long = await client.start("conf__slow_compute", {"seconds": 60})
            await long.cancel()
            with pytest.raises(TaskFailed, match="cancelled"):
                await long.wait(timeout=30)
            with pytest.raises(KeyError, match="unknown tool 'nope__slow_compute'"):
                await client.start("nope__slow_compute", {})
            with pytest.raises(InvalidArguments, match="seconds"):
                await client.start("conf__slow_compute", {"seconds": "soon"})

    asyncio.run(asyncio.wait_for(main(), 120))


def test_the_sync_many_servers_client_starts_a_task_by_prefixed_name(root: Path) -> None:
    from manytasks import Client

    with Client.connect() as client:
        task = client.start("again__slow_compute", {"seconds": 0.1, "label": "sync"})
        assert task.wait(timeout=30).text == "Computed sync after 0.1 s" and task.status == "completed"
        assert client.conf.start_slow_compute(seconds=0).wait(timeout=30).text == "Computed result after 0 s"


def test_a_code_mode_tool_module_starts_its_tool_as_a_task(root: Path) -> None:
    tool = (root / "cmtasks" / "tools" / "slow_compute.py").read_text(encoding="utf-8")
    assert "async def start_slow_compute(" in tool
    assert "start_greet" not in (root / "cmtasks" / "tools" / "greet.py").read_text(encoding="utf-8")
    skill = (root / "cmtasks" / "SKILL.md").read_text(encoding="utf-8")
    assert "start_NAME(...)" in skill and "slow_compute" in skill.split("These have one:")[1]
    code = (
        "import json, sys\n"
        "from cmtasks.tools.slow_compute import start_slow_compute\n"
        "loaded = 'cmtasks.client' in sys.modules or 'asyncio' in sys.modules\n"
        "import asyncio\n"
        "from cmtasks import AsyncClient, use\n"
        "async def main():\n"
        f"    async with AsyncClient.connect_stdio({sys.executable!r}, ['-m', 'conformance_server'], "
        f"cwd={str(CONFORMANCE)!r}) as client:\n"
        "        with use(client):\n"
        "            task = await start_slow_compute(seconds=0.1, label='cm')\n"
        "            return task.task.task_id is not None, (await task.wait(timeout=30)).text\n"
        "print(json.dumps([loaded, *asyncio.run(main())]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    loaded, is_task, text = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded is False and is_task is True and text == "Computed cm after 0.1 s"


@pytest.mark.slow
def test_both_packages_and_a_users_script_type_check_strictly(root: Path) -> None:
    checked: Any = mypy_strict(root, ["manytasks", "cmtasks", "user_script.py"])
    assert checked.returncode == 0, checked.stdout[-3000:]
