"""A client and a server scaffold generated from every kind of source pass `mypy --strict` and
`pyright --strict`, with the development install as it is (no MYPYPATH): a file, a live stdio
server, an HTTP URL, an mcpServers config entry and a snapshot. A user script against them is
checked too, with pydantic's mypy plugin off and on and by pyright: nested models are built by
their Python field names, and mistakes are reported."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from checkers import errors_of, mypy, pyright_strict
from generation import EVERYTHING, SDK_SERVER, TIME_SERVER, importable
from serving import serving

REPO = Path(__file__).resolve().parents[3]
RUNTIME_SERVER = REPO / "tests/peers/runtime_server.py"

# server-memory's nested shapes: a keyword (`from`) and camelCase (`relationType`) one level down.
_RELATION = {
    "type": "object",
    "properties": {"from": {"type": "string"}, "to": {"type": "string"}, "relationType": {"type": "string"}},
    "required": ["from", "to", "relationType"],
}
FILE_TOOLS = {
    # The file's server declares Skills (SEP-2640): its client gets list_skills and the rest.
    "extensions": {"io.modelcontextprotocol/skills": {}},
    "tools": [
        {
            "name": "create_relations",
            "inputSchema": {
                "type": "object",
                "properties": {"relations": {"type": "array", "items": _RELATION}},
                "required": ["relations"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"relations": {"type": "array", "items": _RELATION}},
                "required": ["relations"],
            },
        },
        {
            "name": "search_nodes",
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "maxResults": {"type": "integer", "default": 10}},
                "required": ["query"],
            },
        },
        # Named like builtins, as real servers name them: only `list` (which annotations name) is renamed.
        {
            "name": "type",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "type": {"type": "string"},
                    "id": {"type": "integer"},
                    "format": {"type": "string"},
                    "list": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["type"],
            },
        },
    ],
}

# What a user writes against the generated packages; `# error: CODE` marks what mypy must report
# with the plugin off and on ("only with init_typed": pydantic's plugin types a model's __init__
# arguments as Any unless its init_typed setting is on).
USER_SCRIPT = """\
from __future__ import annotations

import config_client
import http_client
import snapshot_client
import stdio_client
from file_client import AsyncClient
from file_client.models import CreateRelationsArgs, CreateRelationsArgsRelation, SearchNodesArgs


async def use(client: AsyncClient) -> str:
    relation = CreateRelationsArgsRelation(from_="Ada", to="Babbage", relation_type="knows")
    CreateRelationsArgs(relations=[relation])
    SearchNodesArgs(query="ada")
    SearchNodesArgs(query="ada", max_results=3)
    result = await client.create_relations(relations=[relation])
    await client.search_nodes(query="ada", max_results=3)
    await client.type(type="node", id=1, format="short", list_=["a"])
    CreateRelationsArgsRelation(from_="Ada", to="Babbage")  # error: call-arg
    CreateRelationsArgsRelation(from_=1, to="Babbage", relation_type="knows")  # error: arg-type (only with init_typed)
    await client.search_nodes(query=1)  # error: arg-type
    skill = await client.get_skill("code-review")
    listed = [s.name for s in await client.list_skills()] + [f.path for f in skill.files or ()]
    await client.read_skill_file(skill, 1)  # error: arg-type
    listed.append((await client.read_skill_file(skill, "SKILL.md")).text + skill.frontmatter["name"])
    modules = (config_client, http_client, snapshot_client, stdio_client)
    return result.relations[0].from_ + str(modules)
"""


CLIENTS = ("file_client", "stdio_client", "http_client", "config_client", "snapshot_client")
SCAFFOLDS = ("file_server", "stdio_server", "http_server", "config_server", "snapshot_server")


def _mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, f"mcpgen {' '.join(args)}: {done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One folder with a client and a scaffold from each source kind, generated once."""
    root = tmp_path_factory.mktemp("shapes")
    (root / "tools.json").write_text(json.dumps(FILE_TOOLS), encoding="utf-8")
    config = {"mcpServers": {"time": {"command": TIME_SERVER[0], "args": TIME_SERVER[1:]}}}
    (root / "servers.json").write_text(json.dumps(config), encoding="utf-8")
    _mcpgen("snapshot", "-o", "snapshot.json", "--", *SDK_SERVER, cwd=root)
    for kind in ("client", "server"):
        _mcpgen(kind, "tools.json", "-o", f"file_{kind}", cwd=root)
        _mcpgen(kind, "-o", f"stdio_{kind}", "--", *EVERYTHING, cwd=root)
        _mcpgen(kind, "--config", "servers.json", "--server", "time", "-o", f"config_{kind}", cwd=root)
        _mcpgen(kind, "snapshot.json", "-o", f"snapshot_{kind}", cwd=root)
    with serving([sys.executable, str(RUNTIME_SERVER), "--http", "--port", "{port}"]) as url:
        _mcpgen("client", "--url", url, "-o", "http_client", cwd=root)
        _mcpgen("server", "--url", url, "-o", "http_server", cwd=root)
    (root / "user_script.py").write_text(USER_SCRIPT, encoding="utf-8")
    yield root


def _mypy(root: Path, config: str) -> set[tuple[int, str]]:
    """(line, error code) of every error mypy --strict reports; asserts nothing else went wrong."""
    (root / "mypy.ini").write_text(config, encoding="utf-8")
    names = [*CLIENTS, *SCAFFOLDS, "user_script.py"]
    done = mypy(root, "--config-file", "mypy.ini", "--show-error-codes", *names)
    errors: set[tuple[int, str]] = set()
    for line in done.stdout.splitlines():
        if ": error: " not in line:
            continue
        path, number = line.split(":")[:2]
        assert path == "user_script.py", done.stdout[-4000:]  # the generated packages: no error at all
        errors.add((int(number), line.rsplit("[", 1)[-1].rstrip("]")))
    assert "error:" in done.stdout, done.stdout + done.stderr  # the script's deliberate mistakes were seen
    return errors


def _expected(plugin: bool) -> set[tuple[int, str]]:
    return {
        (number, line.rsplit("# error: ", 1)[1].split()[0])
        for number, line in enumerate(USER_SCRIPT.splitlines(), start=1)
        if "# error: " in line and not (plugin and "only with init_typed" in line)
    }


@pytest.mark.slow
def test_every_source_shape_passes_mypy_strict_without_the_pydantic_plugin(packages: Path) -> None:
    assert _mypy(packages, "[mypy]\nstrict = True\npython_version = 3.11\n") == _expected(plugin=False)


@pytest.mark.slow
def test_every_source_shape_passes_mypy_strict_with_the_pydantic_plugin(packages: Path) -> None:
    config = "[mypy]\nstrict = True\npython_version = 3.11\nplugins = pydantic.mypy\n"
    assert _mypy(packages, config) == _expected(plugin=True)


@pytest.mark.slow
def test_the_packages_record_their_sources(packages: Path) -> None:
    """Each package really came from its kind of source (what connect() would start or reach)."""
    with importable(packages, *CLIENTS):
        found = {
            name: (mod.SOURCE_COMMAND, mod.SOURCE_URL)
            for name in CLIENTS
            for mod in [importlib.import_module(f"{name}._catalog")]
        }
    assert found["file_client"] == (None, None)
    assert found["stdio_client"] == (tuple(EVERYTHING), None)
    # A config entry's command may hold tokens: connect() reads the entry again instead.
    assert found["config_client"] == (None, None)
    assert found["snapshot_client"] == (tuple(SDK_SERVER), None)
    command, url = found["http_client"]
    assert command is None and isinstance(url, str) and url.startswith("http://127.0.0.1:")


def _pyright(root: Path) -> set[int]:
    """Lines of every error `pyright --strict` reports, in one run over every package; asserts
    that the generated packages have none."""
    report = pyright_strict(root, [*CLIENTS, *SCAFFOLDS, "user_script.py"])
    assert report["summary"]["filesAnalyzed"] > 2 * len(CLIENTS), report["summary"]
    errors = errors_of(report)
    elsewhere = [d for d in errors if Path(d["file"]).name != "user_script.py"]
    assert not elsewhere, json.dumps(elsewhere[:20], indent=1)  # the generated packages: no error at all
    return {d["range"]["start"]["line"] + 1 for d in errors}


@pytest.mark.slow
def test_every_source_shape_passes_pyright_strict(packages: Path) -> None:
    # pyright types a model's __init__ arguments from its fields, like mypy's plugin with init_typed.
    assert _pyright(packages) == {number for number, _ in _expected(plugin=False)}
