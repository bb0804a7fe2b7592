"""`mcpServers` entries with `url` (+ `headers`), as Claude Desktop, Cursor and VS Code write
them: `--config F --server N` reads them, and the generated client (one server, or a package for
many next to a stdio entry) connects with the entry's headers, read again at connect time; the
generated code holds neither the URL nor a header. Real servers over HTTP and stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PEER = str(REPO / "tests/peers/real_shapes_server.py")
PY = sys.executable
SECRET = "tok-35-never-in-code"


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=180)


@pytest.fixture
def guarded_url(real_shapes_http: Callable[..., str]) -> Callable[[], str]:
    """start(): the peer over HTTP, answering 401 without `Authorization: Bearer SECRET`."""
    return lambda: real_shapes_http("--require-header", f"Authorization:Bearer {SECRET}")


def _config(root: Path, servers: dict[str, object]) -> None:
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def _holds_nothing_of(package: Path, *secrets: str) -> None:
    for path in package.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not any(s in text for s in secrets), path


def _run(root: Path, script: str) -> str:
    done = subprocess.run([PY, "-c", script], capture_output=True, text=True, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_a_url_entry_generates_a_client_that_connects_with_its_headers(
    tmp_path: Path, guarded_url: Callable[[], str]
) -> None:
    url = guarded_url()
    _config(tmp_path, {"shapes": {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {SECRET}"}}})
    done = mcpgen("client", "--config", "mcp.json", "--server", "shapes", "-o", "shapes_client", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _holds_nothing_of(tmp_path / "shapes_client", SECRET, url.split("/mcp")[0])
    got = _run(
        tmp_path, "from shapes_client import Client\nwith Client.connect() as c:\n    print(c.add(a=2, b=3).text)"
    )
    assert got == "5"


@pytest.mark.slow
def test_a_url_entry_without_its_header_names_the_entry(tmp_path: Path, guarded_url: Callable[[], str]) -> None:
    _config(tmp_path, {"shapes": {"url": guarded_url()}})
    done = mcpgen("inspect", "--config", "mcp.json", "--server", "shapes", cwd=tmp_path)
    assert done.returncode == 2
    assert "mcp.json --server shapes" in done.stderr and "not logged in" in done.stderr


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"url": "ftp://x"}, "'url' must be an http:// or https:// URL"),
        ({"url": "http://127.0.0.1:1/mcp", "headers": {"A": 1}}, "'headers' must map names to strings"),
        ({"url": "http://127.0.0.1:1/mcp", "command": "x"}, "has both 'command' and 'url'"),
    ],
)
def test_a_bad_url_entry_is_one_line_and_exit_2(tmp_path: Path, entry: dict[str, object], message: str) -> None:
    _config(tmp_path, {"bad": entry})
    done = mcpgen("inspect", "--config", "mcp.json", "--server", "bad", cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_package_for_many_servers_mixes_stdio_and_url_entries(tmp_path: Path, guarded_url: Callable[[], str]) -> None:
    url = guarded_url()
    _config(
        tmp_path,
        {
            "local": {"command": PY, "args": [PEER]},
            "remote": {"url": url, "headers": {"Authorization": f"Bearer {SECRET}"}},
        },
    )
    done = mcpgen("client", "--config", "mcp.json", "-o", "both", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _holds_nothing_of(tmp_path / "both", SECRET, url.split("/mcp")[0])
    script = (
        "from both import Client\n"
        "with Client.connect() as c:\n"
        "    print(c.local.add(a=1, b=2).text, c.remote.add(a=3, b=4).text)"
    )
    assert _run(tmp_path, script) == "3 7"
