"""`--url`: generate from a live Streamable HTTP server, then connect() to the same URL."""

from __future__ import annotations

import asyncio
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from generation import importable
from serving import serving

REPO = Path(__file__).resolve().parents[2]
RUNTIME_SERVER = REPO / "tests/peers/runtime_server.py"


@pytest.fixture
def http_server() -> Iterator[str]:
    with serving([sys.executable, str(RUNTIME_SERVER), "--http", "--port", "{port}"]) as url:
        yield url


def mcpgen(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_generate_from_url_and_connect_to_it(http_server: str, tmp_path: Path) -> None:
    done = mcpgen(
        "client",
        "--url",
        http_server,
        "--header",
        "Authorization: Bearer $DEMO_TOKEN",
        "-o",
        "http_client",
        cwd=tmp_path,
        env={"DEMO_TOKEN": "s3cret"},
    )
    assert done.returncode == 0, done.stderr
    generated = "".join(p.read_text() for p in (tmp_path / "http_client").glob("*.py"))
    assert http_server in generated
    assert "s3cret" not in generated  # header values (tokens) are never recorded

    with importable(tmp_path, "http_client"):
        pkg = importlib.import_module("http_client")

        async def main() -> None:
            async with pkg.AsyncClient.connect() as c:
                assert await c.add(a=2, b=3) == 5
                assert (await c.echo(text="over http")).text == "over http"

        asyncio.run(main())
        with pkg.Client.connect_http(http_server, headers={"X-Trace": "1"}) as c:
            assert c.weather(city="Oslo").city == "Oslo"

    listed = mcpgen("inspect", "--url", http_server, cwd=tmp_path)
    assert listed.returncode == 0 and "echo" in listed.stdout


def test_bad_header_and_unreachable_url_exit_2(tmp_path: Path) -> None:
    bad = mcpgen("client", "--url", "http://127.0.0.1:9/mcp", "--header", "no-separator", "-o", "x", cwd=tmp_path)
    assert bad.returncode == 2 and "--header" in bad.stderr and "Traceback" not in bad.stderr
    down = mcpgen("client", "--url", "http://127.0.0.1:9/mcp", "--connect-timeout", "5", "-o", "x", cwd=tmp_path)
    assert down.returncode == 2 and "Traceback" not in down.stderr and down.stderr.count("\n") == 1
    assert not (tmp_path / "x").exists()
