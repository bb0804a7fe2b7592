"""`mcpgen client --config mcp.json` without one --server: one package for many servers.

Two scaffolded servers (`mcpgen server` packages whose tool names collide) and the live
reference servers run over stdio; the generated package starts them all, keeps their tools
apart by namespace and by `server__tool` name, and never holds the config's secrets.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
EVERYTHING = REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
SECRET = "tok-9f3c1e-never-in-code"
SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
LONG_TOOL = "export_every_issue_of_the_workspace_as_a_very_long_named_report_file"


def _tool(name: str, **annotations: bool) -> dict[str, Any]:
    return {
        "name": name,
        "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
        **({"annotations": annotations} if annotations else {}),
    }


SCAFFOLDS = {
    "github_server": [_tool("create_issue", destructiveHint=False), _tool("search")],
    # create_issue collides with github's; list.issues meets list_issues once sanitised.
    "linear_server": [_tool("create_issue"), _tool("list.issues"), _tool("list_issues"), _tool(LONG_TOOL)],
}


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _scaffold(root: Path, name: str, tools: list[dict[str, Any]]) -> None:
    schemas = root / f"{name}_schemas"
    schemas.mkdir()
    for i, t in enumerate(tools):
        (schemas / f"{i:02d}.json").write_text(json.dumps(t), encoding="utf-8")
    done = mcpgen("server", str(schemas.name), "-o", name, cwd=root)
    assert done.returncode == 0, done.stderr
    handlers = root / name / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    # Every handler answers with its server, its arguments and the token its env gave it.
    filled = text.replace(
        "raise NotImplementedError",
        f'return "{name}:" + args.model_dump_json() + ":" + os.environ.get("TRACKER_TOKEN", "no token")',
    ).replace("from __future__ import annotations\n", "from __future__ import annotations\n\nimport os\n", 1)
    handlers.write_text(filled, encoding="utf-8")


def _config(root: Path, servers: dict[str, dict[str, Any]]) -> Path:
    path = root / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return path


def _scaffold_entries(root: Path) -> dict[str, dict[str, Any]]:
    return {
        "github": {
            "command": sys.executable,
            "args": ["-m", "github_server"],
            "cwd": str(root),
            "env": {"TRACKER_TOKEN": SECRET},
        },
        "linear": {"command": sys.executable, "args": ["-m", "linear_server"], "cwd": str(root)},
    }


def _mypy(root: Path, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11", name],
        cwd=root,
        env={**os.environ, "MYPYPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _run(root: Path, code: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=180, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def trackers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("many")
    for name, tools in SCAFFOLDS.items():
        _scaffold(root, name, tools)
    _config(root, _scaffold_entries(root))
    done = mcpgen("client", "--config", "mcp.json", "-o", "trackers", cwd=root)
    assert done.returncode == 0, done.stderr
    return root, done


@pytest.mark.slow
def test_collisions_are_reported_on_stderr_and_in_the_manifest(
    trackers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, done = trackers
    assert "name collision: tool 'create_issue' is offered by 2 servers" in done.stderr
    assert "`github.create_issue`, `linear.create_issue`" in done.stderr
    manifest = json.loads((root / "trackers/.mcpgen-manifest.json").read_text(encoding="utf-8"))
    collisions = manifest["options"]["collisions"]
    assert manifest["options"]["servers"] == ["github", "linear"]
    # list_issues keeps its name (the APIs take it as it is); list.issues, which only meets it
    # once cleaned, is the one hashed and reported.
    assert any(c.startswith("tool 'list.issues' of server 'linear' is 'linear__list_issues_") for c in collisions)
    assert not any(c.startswith("tool 'list_issues'") for c in collisions)
    assert any(LONG_TOOL in c for c in collisions)


@pytest.mark.slow
def test_no_secret_from_the_config_reaches_a_generated_file(
    trackers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = trackers
    files = [p for p in (root / "trackers").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert len(files) > 10
    for p in files:
        assert SECRET not in p.read_text(encoding="utf-8"), p
        # Nor the commands: connect() reads the config again.
        assert sys.executable not in p.read_text(encoding="utf-8"), p
    for server in ("github", "linear"):
        catalog = (root / "trackers/servers" / server / "_catalog.py").read_text(encoding="utf-8")
        assert "SOURCE_COMMAND: tuple[str, ...] | None = None" in catalog


@pytest.mark.slow
def test_regeneration_is_stable_whatever_order_the_config_lists_servers(
    trackers: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    root, _ = trackers
    entries = _scaffold_entries(root)
    original = (root / "mcp.json").read_text(encoding="utf-8")
    try:
        _config(root, dict(reversed(list(entries.items()))))
        done = mcpgen("client", "--config", "mcp.json", "-o", "trackers", "--check", cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
        # --server chooses a subset; repeated, in any order, the same package.
        done = mcpgen(
            "client",
            "--config",
            "mcp.json",
            "--server",
            "linear",
            "--server",
            "github",
            "-o",
            "trackers",
            "--check",
            cwd=root,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        (root / "mcp.json").write_text(original, encoding="utf-8")
    unknown = mcpgen("client", "--config", "mcp.json", "--server", "nope", "--server", "github", "-o", "x", cwd=root)
    assert unknown.returncode == 2 and "no server named 'nope' (known: github, linear)" in unknown.stderr


@pytest.mark.slow
def test_one_client_starts_every_server_and_keeps_their_tools_apart(
    trackers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = trackers
    _mypy(root, "trackers")
    got = _run(
        root,
        "import asyncio, json\n"
        "from trackers import AsyncClient, Client\n"
        "async def main():\n"
        "    async with AsyncClient.connect() as c:\n"
        "        a = (await c.github.create_issue(title='A')).text\n"
        "        b = (await c.linear.create_issue(title='B')).text\n"
        "        names = [d['name'] for d in c.tool_definitions()]\n"
        "        via = (await c.dispatch('linear__create_issue', '{\"title\": \"C\"}')).text\n"
        "        unknown = (await c.dispatch('create_issue', {})).text\n"
        "        bad = (await c.dispatch('github__create_issue', {'title': 3})).is_error\n"
        "        return a, b, names, via, unknown, bad\n"
        "a, b, names, via, unknown, bad = asyncio.run(main())\n"
        "with Client.connect() as s:\n"
        "    sync = s.github.search(title='q').text\n"
        "    sync_dispatch = s.dispatch('github__search', {'title': 'r'}).text\n"
        "print(json.dumps([a, b, names, via, unknown, bad, sync, sync_dispatch]))",
    )
    a, b, names, via, unknown, bad, sync, sync_dispatch = got
    # The env from the config reached the server that declared it (read at connect time), only that one.
    assert a == f'github_server:{{"title":"A"}}:{SECRET}'
    assert b == 'linear_server:{"title":"B"}:no token'
    assert via.startswith('linear_server:{"title":"C"}')
    assert unknown.startswith("Unknown tool 'create_issue'")
    assert bad is True
    assert sync.startswith('github_server:{"title":"q"}') and sync_dispatch.startswith('github_server:{"title":"r"}')
    assert len(names) == len(set(names)) == sum(len(t) for t in SCAFFOLDS.values())
    assert all(SAFE_NAME.match(n) for n in names), names
    assert {"github__create_issue", "linear__create_issue", "github__search"} <= set(names)
    assert "linear__list_issues" in names  # list_issues's own; list.issues got a hash suffix


# A scripted model, in every API's shape, over both subprocess servers: it sees the three
# meta-tools, searches across servers, loads one tool of each and calls them by the names given.
DISCOVERY_SCRIPT = """
import asyncio, json
from trackers import AsyncClient, Client
from mcpgen.runtime.client.llm_tools import LLM_FORMATS, definition_name
def names(defs, f):
    return [definition_name(d, f) for d in defs]
async def main():
    out = {}
    async with AsyncClient.connect() as c:
        for f in LLM_FORMATS:
            first = names(c.tool_definitions(f, discovery=True), f)
            hits = json.loads((await c.dispatch(first[0], {"query": "create issue"})).text)
            described = json.loads((await c.dispatch(first[1], {"name": "linear__create_issue"})).text)
            full = c.tool_definitions(f)
            same = described == full[names(full, f).index("linear__create_issue")]
            both = ["github__create_issue", "linear__create_issue"]
            loaded = json.loads((await c.dispatch(first[2], {"names": both})).text)
            second = names(c.tool_definitions(f, discovery=True), f)
            ran = [(await c.dispatch(n, {"title": f})).text for n in second[3:]]
            out[f] = [first, [h["name"] for h in hits], same, loaded["loaded"], second, ran]
    return out
got = asyncio.run(main())
with Client.connect() as s:
    meta = [definition_name(d, "openai") for d in s.tool_definitions("openai", discovery=True)]
    hits = json.loads(s.dispatch("search_tools", {"query": "search"}).text)
    s.dispatch("load_tools", {"names": [h["name"] for h in hits]})
    loaded = [definition_name(d, "openai") for d in s.tool_definitions("openai", discovery=True)][3:]
    got["sync"] = [meta, loaded, s.dispatch("github__search", {"title": "q"}).text]
print(json.dumps(got))
"""


@pytest.mark.slow
def test_a_scripted_model_discovers_tools_across_servers_in_every_format(
    trackers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = trackers
    got = _run(root, DISCOVERY_SCRIPT)
    meta = ["search_tools", "describe_tool", "load_tools"]
    for f in ("anthropic", "openai", "openai-responses", "gemini"):
        first, hits, same, loaded, second, ran = got[f]
        # What the model loaded stays loaded when the host asks for another API's shape.
        assert first == meta + ([] if f == "anthropic" else ["github__create_issue", "linear__create_issue"]), f
        assert hits == ["github__create_issue", "linear__create_issue"], f  # one search, both servers
        assert same is True, f
        assert loaded == ["github__create_issue", "linear__create_issue"], f
        assert second == [*meta, "github__create_issue", "linear__create_issue"], f
        assert ran[0] == f'github_server:{{"title":"{f}"}}:{SECRET}', f  # each call reached its own server
        assert ran[1] == f'linear_server:{{"title":"{f}"}}:no token', f
    sync_meta, sync_loaded, sync_ran = got["sync"]
    assert sync_meta == meta and sync_loaded == ["github__search"]
    assert sync_ran.startswith('github_server:{"title":"q"}')


@pytest.mark.slow
def test_reference_servers_everything_and_time_in_one_package(tmp_path: Path) -> None:
    _config(
        tmp_path,
        {
            "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
            "everything": {"command": "node", "args": [str(EVERYTHING), "stdio"], "env": {"EVERYTHING_TOKEN": SECRET}},
            "unused": {"command": "no-such-command-anywhere"},
        },
    )
    done = mcpgen(
        "client", "--config", "mcp.json", "--server", "time", "--server", "everything", "-o", "ref", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "collision" not in done.stderr
    for p in (tmp_path / "ref").rglob("*.py"):
        assert SECRET not in p.read_text(encoding="utf-8")
    _mypy(tmp_path, "ref")
    got = _run(
        tmp_path,
        "import asyncio, json\n"
        "from ref import AsyncClient, SERVERS\n"
        "async def main():\n"
        "    async with AsyncClient.connect() as c:\n"
        "        total = (await c.everything.get_sum(a=2, b=3)).text\n"
        "        now = await c.time.get_current_time(timezone='UTC')\n"
        "        env = (await c.dispatch('everything__get-env', {})).text\n"
        "        names = [d['name'] for d in c.tool_definitions()]\n"
        "        return total, now.timezone, 'EVERYTHING_TOKEN' in env, names, sorted(SERVERS)\n"
        "print(json.dumps(asyncio.run(main())))",
    )
    total, zone, has_env, names, servers = got
    assert "5" in total and zone == "UTC" and has_env
    assert servers == ["everything", "time"]
    assert "time__get_current_time" in names and "everything__echo" in names
