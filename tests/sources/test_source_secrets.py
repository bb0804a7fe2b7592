"""A token in a source never lands in generated code, a manifest, a snapshot or what mcpgen prints.

Each source carries one marker secret wherever a user may put a token: an mcpServers entry's
args, env and headers; a command's `--token` argument; a URL's userinfo and `access_token`
parameter and a `--header`. Every file mcpgen writes (client, code-mode client, server, docs,
snapshot, manifests) and its stdout and stderr (with --verbose) are searched for it, while the
server really received it (it refuses to start without it) and a config client's connect()
still starts it with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import serving

from mcpgen.sources.secrets import argv_secrets, public_url, shown_command

REPO = Path(__file__).resolve().parents[2]
RUNTIME_SERVER = str(REPO / "tests" / "peers" / "runtime_server.py")
MARKER = "s3cr3t-MARKER-7f1c9a"

# A stdio server that starts only when it was given the marker both as `--token` and in $API_TOKEN.
SERVER = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
import os
from mcpgen.runtime import Server

argv = sys.argv[1:]
if argv[argv.index("--token") + 1] != os.environ["API_TOKEN"]:
    sys.exit("no token")
server = Server("secret-keeper", "1.0.0")


async def whoami(args, ctx):
    seen = sys.argv[-1] == os.environ["API_TOKEN"]
    return {{"content": [{{"type": "text", "text": "token seen" if seen else "no token"}}], "isError": False}}


server.add_tool({{"name": "whoami", "description": "Says whether the token arrived.",
                 "inputSchema": {{"type": "object", "properties": {{}}}}}}, whoami)
server.run_stdio()
"""


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "API_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", args[0], "-v", *args[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert MARKER not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


def leaks(folder: Path) -> list[str]:
    """Every file under folder (generated code, manifests, snapshots) that holds the marker."""
    return [str(p) for p in folder.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    entry = {
        "command": sys.executable,
        "args": [str(tmp_path / "server.py"), "--token", MARKER],
        "env": {"API_TOKEN": MARKER},
        "headers": {"Authorization": f"Bearer {MARKER}"},
    }
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "mcp.json").write_text(json.dumps({"mcpServers": {"keeper": entry}}), encoding="utf-8")
    (tmp_path / "out").mkdir()
    return tmp_path


CONFIG = ("--config", "config/mcp.json", "--server", "keeper")


@pytest.mark.slow
def test_a_config_entry_leaves_no_secret_in_any_output(project: Path) -> None:
    for args in (
        ("client", *CONFIG, "-o", "out/keeper_client"),
        ("client", *CONFIG, "-o", "out/keeper_tools", "--layout", "code-mode"),
        ("server", *CONFIG, "-o", "out/keeper_server"),
        ("docs", *CONFIG, "-o", "out/keeper_docs"),
        ("snapshot", *CONFIG, "-o", "out/keeper.snapshot.json"),
        ("inspect", *CONFIG),
    ):
        done = mcpgen(*args, cwd=project)
        assert done.returncode == 0, done.stderr  # the server started: it had the token
    assert leaks(project / "out") == []
    catalog = (project / "out" / "keeper_client" / "_catalog.py").read_text(encoding="utf-8")
    assert "SOURCE_COMMAND: tuple[str, ...] | None = None" in catalog
    assert 'SOURCE_CONFIG: tuple[str, str] | None = ("../../config/mcp.json", "keeper")' in catalog


@pytest.mark.slow
def test_a_config_client_connects_by_reading_the_entry_again(project: Path) -> None:
    assert mcpgen("client", *CONFIG, "-o", "out/keeper_client", cwd=project).returncode == 0
    script = (
        "import asyncio\nfrom keeper_client import AsyncClient\n"
        "async def main():\n"
        "    async with AsyncClient.connect() as c:\n"
        "        print((await c.whoami()).text)\n"
        "asyncio.run(main())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "API_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=project / "out", capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "token seen"  # args and env came from the config, at connect time


@pytest.mark.slow
def test_a_command_with_a_token_argument_is_not_recorded(project: Path) -> None:
    command = ("--", sys.executable, "server.py", "--token", MARKER)
    env_wrapped = ("--", "env", f"API_TOKEN={MARKER}", *command[1:])
    done = mcpgen("client", "-o", "out/cmd_client", *env_wrapped, cwd=project)
    assert done.returncode == 0, done.stderr
    done = mcpgen("snapshot", "-o", "out/cmd.snapshot.json", *env_wrapped, cwd=project)
    assert done.returncode == 0, done.stderr
    assert leaks(project / "out") == []
    catalog = (project / "out" / "cmd_client" / "_catalog.py").read_text(encoding="utf-8")
    assert "SOURCE_COMMAND: tuple[str, ...] | None = None" in catalog
    # A server that fails to start is named with its secrets masked.
    failed = mcpgen("inspect", "--", sys.executable, "-c", "raise SystemExit(3)", "--token", MARKER, cwd=project)
    assert failed.returncode != 0 and "--token ***" in failed.stderr


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with serving([sys.executable, RUNTIME_SERVER, "--http", "--port", "{port}"]) as url:
        yield url


@pytest.mark.slow
def test_an_url_with_userinfo_and_token_and_a_header_leave_no_secret(project: Path, http_url: str) -> None:
    secret_url = http_url.replace("http://", f"http://user:{MARKER}@") + f"?access_token={MARKER}&tenant=acme"
    header = ("--header", f"Authorization: Bearer {MARKER}")
    for args in (
        ("client", "--url", secret_url, *header, "-o", "out/http_client"),
        ("server", "--url", secret_url, *header, "-o", "out/http_server"),
        ("docs", "--url", secret_url, *header, "-o", "out/http_docs"),
        ("snapshot", "--url", secret_url, *header, "-o", "out/http.snapshot.json"),
    ):
        done = mcpgen(*args, cwd=project)
        assert done.returncode == 0, done.stderr
    assert leaks(project / "out") == []
    catalog = (project / "out" / "http_client" / "_catalog.py").read_text(encoding="utf-8")
    assert f'SOURCE_URL: str | None = "{http_url}?tenant=acme"' in catalog
    # A server that cannot be reached is named without the secrets too.
    closed = "http://user:" + MARKER + "@127.0.0.1:9/mcp?token=" + MARKER
    failed = mcpgen("inspect", "--url", closed, *header, "--connect-timeout", "5", cwd=project)
    assert failed.returncode != 0 and "127.0.0.1:9/mcp" in failed.stderr


def test_secret_arguments_are_found_and_masked() -> None:
    argv = ["srv", "--token", "t1", "--api-key=k1", "PASSWORD=p1", "sk-abcdefghijklmnop", "Authorization: Bearer b1"]
    assert argv_secrets(argv) == ["t1", "k1", "p1", "sk-abcdefghijklmnop", "Bearer b1"]
    assert shown_command(argv) == "srv --token *** --api-key=*** PASSWORD=*** *** Authorization: ***"
    plain = ["npx", "-y", "@modelcontextprotocol/server-everything", "--author", "bob", "--local-timezone", "UTC"]
    assert argv_secrets(plain) == [] and shown_command(plain) == " ".join(plain)


def test_a_public_url_keeps_all_but_the_secrets() -> None:
    assert public_url("https://u:pw@example.com:8443/mcp?api_key=1&x=2&sig=3#f") == "https://example.com:8443/mcp?x=2#f"
    assert public_url("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000/mcp"
