"""`--config FILE --server NAME` and the `config =` target: generate from an mcpServers entry
by starting the real server it names (PyPI mcp-server-time over stdio), with the entry's args,
env and cwd; every malformed entry is one line and a non-zero exit, and starts nothing."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import importable

# The zone travels only through the entry's env (TZ): mcp-server-time names its local zone in the
# tools' argument descriptions, so finding it in the generated package proves env reached it.
ZONE = "Pacific/Chatham"


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TZ"}
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def time_entry(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "mcp_server_time"], "env": {"TZ": ZONE}, **extra}


def write_config(folder: Path, servers: dict[str, Any], key: str = "mcpServers") -> Path:
    path = folder / "mcp.json"
    path.write_text(json.dumps({key: servers}), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("key", ["mcpServers", "servers"])  # Claude Desktop / Cursor, and VS Code
def test_client_from_a_config_entry_calls_the_server(tmp_path: Path, key: str) -> None:
    write_config(tmp_path, {"other": {"url": "http://127.0.0.1:1/mcp"}, "time": time_entry()}, key)
    done = mcpgen("client", "--config", "mcp.json", "--server", "time", "-o", "time_client", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    catalog = (tmp_path / "time_client" / "_catalog.py").read_text()
    assert ZONE in catalog  # env reached the server
    with importable(tmp_path, "time_client"):
        pkg = importlib.import_module("time_client")

        async def call() -> Any:
            async with pkg.AsyncClient.connect_stdio(sys.executable, ["-m", "mcp_server_time"]) as c:
                return await c.get_current_time(timezone="Asia/Tokyo")

        # Started here without the entry's TZ, the server names another local zone in its
        # argument descriptions: the drift check reports exactly that, as a security change.
        with pytest.warns(pkg.SchemaDriftWarning, match="get_current_time/inputSchema/properties/timezone/description"):
            now = asyncio.run(call())
        assert isinstance(now, pkg.models.GetCurrentTimeResult) and now.timezone == "Asia/Tokyo"


@pytest.mark.slow
def test_the_entry_cwd_is_where_the_server_starts(tmp_path: Path) -> None:
    # A relative script path in args resolves against the entry's cwd, not mcpgen's.
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "time_main.py").write_text("from mcp_server_time import main\nmain()\n", encoding="utf-8")
    write_config(tmp_path, {"time": {**time_entry(), "args": ["time_main.py"], "cwd": str(tmp_path / "srv")}})
    done = mcpgen("inspect", "--config", "mcp.json", "--server", "time", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "get_current_time" in done.stdout and "convert_time" in done.stdout


@pytest.mark.slow
def test_a_config_target_generates_and_checks(tmp_path: Path) -> None:
    write_config(tmp_path, {"time": time_entry()})
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpgen.targets.time]\nkind = "client"\nconfig = "mcp.json"\nserver = "time"\n'
        'output = "gen/time_client"\n',
        encoding="utf-8",
    )
    (tmp_path / "sub").mkdir()
    done = mcpgen("generate", cwd=tmp_path / "sub")  # the config path is relative to pyproject.toml
    assert done.returncode == 0, done.stderr
    client = tmp_path / "gen" / "time_client"
    assert "async def get_current_time" in (client / "client.py").read_text()
    manifest = json.loads((client / ".mcpgen-manifest.json").read_text())
    assert manifest["kind"] == "client"
    assert mcpgen("generate", "--check", cwd=tmp_path).returncode == 0
    # The server's answer changes with its env: --check sees the difference and writes nothing.
    write_config(tmp_path, {"time": time_entry(env={"TZ": "America/Santiago"})})
    before = (client / "_catalog.py").read_bytes()
    checked = mcpgen("generate", "--check", cwd=tmp_path)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert (client / "_catalog.py").read_bytes() == before


BAD_ENTRIES: list[tuple[str, Any, str]] = [
    ("unknown server", {"time": time_entry()}, "no server named 'missing' (known: time)"),
    ("url entry not http", {"missing": {"url": "ftp://127.0.0.1/mcp"}}, "'url' must be an http:// or https:// URL"),
    ("no command", {"missing": {"args": []}}, "has no 'command'"),
    ("args not a list", {"missing": {**time_entry(), "args": "-m mcp_server_time"}}, "'args' must be a list"),
    ("args with a number", {"missing": {**time_entry(), "args": ["-m", 3]}}, "'args' must be a list"),
    ("env not a map", {"missing": {**time_entry(), "env": ["TZ=UTC"]}}, "'env' must map names to strings"),
    ("env with a number", {"missing": {**time_entry(), "env": {"PORT": 8080}}}, "'env' must map names to strings"),
    ("cwd not a string", {"missing": {**time_entry(), "cwd": ["/tmp"]}}, "'cwd' must be a string"),
]


@pytest.mark.parametrize("case, servers, reason", BAD_ENTRIES, ids=[c[0] for c in BAD_ENTRIES])
def test_a_bad_entry_is_one_line_and_a_non_zero_exit(
    tmp_path: Path, case: str, servers: dict[str, Any], reason: str
) -> None:
    write_config(tmp_path, servers)
    done = mcpgen("client", "--config", "mcp.json", "--server", "missing", "-o", "out", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and "mcp.json" in lines[0], done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "content, reason",
    [("{not json", "mcp.json"), ('{"tools": []}', "no 'mcpServers' object"), ('{"mcpServers": []}', "no 'mcpServers'")],
)
def test_a_file_that_is_not_a_config_is_refused(tmp_path: Path, content: str, reason: str) -> None:
    (tmp_path / "mcp.json").write_text(content, encoding="utf-8")
    done = mcpgen("client", "--config", "mcp.json", "--server", "time", "-o", "out", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr and reason in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_config_needs_server_and_a_server_that_starts(tmp_path: Path) -> None:
    write_config(tmp_path, {"gone": {"command": str(tmp_path / "no-such-binary")}})
    # Commands that read one server need exactly one --server (`client` alone takes none: every
    # server of the file, tested in tests/functional/client/test_many_servers.py).
    done = mcpgen("inspect", "--config", "mcp.json", cwd=tmp_path)
    assert done.returncode != 0 and "--config needs exactly one --server NAME" in done.stderr, done.stderr
    done = mcpgen("client", "--config", "mcp.json", "-o", "out", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "no-such-binary" in done.stderr, done.stderr
    done = mcpgen("client", "--config", "mcp.json", "--server", "gone", "-o", "out", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "no-such-binary" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
