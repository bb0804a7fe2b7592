"""`serve_main`: a generated server's command line -> one ServeOptions -> stdio or HTTP. (The
flags' behaviour end to end: tests/functional/server/test_stdio_startup.py, test_workers.py.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import ServerSetupError
from mcpgen.runtime.server import command
from mcpgen.runtime.server.command import build_parser, options_from_args, serve_main
from mcpgen.runtime.server.http.limits import HttpLimits
from mcpgen.runtime.server.http.security import HttpSecurity
from mcpgen.runtime.server.options import ServeOptions
from mcpgen.runtime.server.store import MemoryStore

PROG = "python -m pkg"


@pytest.fixture(autouse=True)
def no_deployment_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No MCPGEN_* variable and no pyproject of this checkout reach the command line."""
    for name in [n for n in os.environ if n.startswith("MCPGEN_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def parse(*argv: str) -> ServeOptions:
    parser = build_parser(PROG)
    return options_from_args(parser, parser.parse_args(list(argv)))


def test_stdio_is_the_default_and_keeps_only_its_wire_log() -> None:
    assert parse() == ServeOptions()
    assert parse("--wire-log", "wire.jsonl") == ServeOptions(wire_log="wire.jsonl")


def test_every_http_flag_lands_in_its_field() -> None:
    options = parse(
        *("--http", "--host", "0.0.0.0", "--port", "9000", "--path", "/x", "--stateless", "--access-log"),
        *("--allowed-host", "a.example", "--allowed-host", "b.example", "--allowed-origin", "https://c.example"),
        *("--max-sessions", "7", "--header-timeout", "2.5", "--workers", "2"),
    )
    assert isinstance(options.store, MemoryStore)
    assert options == ServeOptions(
        http=True,
        host="0.0.0.0",
        port=9000,
        path="/x",
        stateless=True,
        security=HttpSecurity(("a.example", "b.example"), ("https://c.example",)),
        limits=HttpLimits(max_sessions=7, header_timeout=2.5),
        store=options.store,
        access_log=True,
        workers=2,
    )
    assert options.auth is None and options.announce and options.log_level == "warning"


def test_limits_fall_back_to_the_environment_and_the_flag_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPGEN_MAX_SESSIONS", "5")
    monkeypatch.setenv("MCPGEN_MAX_BODY_BYTES", "1000")
    options = parse("--http", "--max-sessions", "6")
    assert (options.limits.max_sessions, options.limits.max_body_bytes) == (6, 1000)
    assert parse() == ServeOptions()  # a deployment's variables are not refused over stdio


def test_auth_comes_from_the_flags_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPGEN_AUTH_RESOURCE", "https://mcp.example.com/mcp")
    options = parse("--http", "--auth-issuer", "https://issuer.example.com")
    assert options.auth is not None
    assert (options.auth.issuer, options.auth.resource) == ("https://issuer.example.com", "https://mcp.example.com/mcp")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--port", "9000", "--stateless"), "--port, --stateless only apply with --http"),
        (("--auth-issuer", "https://issuer.example.com"), "--auth-issuer only apply with --http"),
        (("--workers", "2", "--port", "9000"), "--workers serves Streamable HTTP: add --http"),
        (("--http", "--workers", "2"), "would split handshake-era sessions across processes"),
    ],
)
def test_what_cannot_run_as_asked_exits_2_with_one_line(
    argv: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit, match=r"^2$") as exited:
        parse(*argv)
    assert exited.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert said in line


class FakeServer:
    def __init__(self, served: list[Any]) -> None:
        self.served = served

    def run_stdio(self, *, wire_log: str | None = None, max_in_flight: int | None = None) -> None:
        self.served.append(("stdio", wire_log, max_in_flight))


def test_serve_main_serves_stdio_or_hands_http_to_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[Any] = []
    build: Any = lambda: FakeServer(served)  # noqa: E731
    monkeypatch.setattr(command, "serve_http_workers", lambda b, options: served.append(("http", b, options)))
    serve_main(build, prog=PROG, argv=["--wire-log", "w.jsonl"])
    serve_main(build, prog=PROG, argv=["--http", "--port", "0", "--stateless", "--workers", "3"])
    serve_main(build, prog=PROG, argv=["--max-in-flight", "7"])
    assert served[0] == ("stdio", "w.jsonl", 1000)
    assert served[2] == ("stdio", None, 7)
    kind, handed, options = served[1]
    assert (kind, options.port, options.workers, options.stateless) == ("http", 0, 3, True)
    assert handed().served is served  # the workers build with `build` (checked: the next test)


def test_a_server_that_cannot_be_built_ends_with_its_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """ServerSetupError (a bad SKILLS_DIR, TOOL_UI, TASK_SUPPORT) is an exit with its line, over
    stdio and in each HTTP worker (whose SystemExit the supervisor prints as one line)."""

    def build() -> Any:
        raise ServerSetupError("TOOL_UI names 'x', which is no tool of this server")

    expected = r"^cannot start the server: TOOL_UI names 'x', which is no tool of this server$"
    with pytest.raises(SystemExit, match=expected):
        serve_main(build, prog=PROG, argv=[])
    with pytest.raises(SystemExit, match=expected):  # one HTTP worker: this process
        serve_main(build, prog=PROG, argv=["--http", "--port", "0"])


def test_workers_that_cannot_build_the_server_end_the_supervisor_at_once(capfd: pytest.CaptureFixture[str]) -> None:
    """Every worker would fail alike: each says its line once, then the supervisor gives up
    (status 1) instead of restarting them until its crash limit."""

    def build() -> Any:
        raise ServerSetupError("SKILLS_DIR 'nowhere' is no folder")

    with pytest.raises(SystemExit, match=r"^1$"):
        serve_main(build, prog=PROG, argv=["--http", "--port", "0", "--workers", "2", "--stateless"])
    lines = capfd.readouterr().err.splitlines()
    refusals = [line for line in lines if line.endswith(": cannot start the server: SKILLS_DIR 'nowhere' is no folder")]
    assert 1 <= len(refusals) <= 2, lines
    # (the other worker's line may come after the supervisor's: two processes write to stderr)
    assert lines.count("a worker cannot build the server (its line above): giving up") == 1, lines
    assert not [line for line in lines if "restarting" in line], lines


def test_help_names_every_flag_under_prog(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"^0$"):
        serve_main(lambda: FakeServer([]), prog=PROG, argv=["--help"])  # type: ignore[arg-type, return-value]
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {PROG} ")
    flags = ("--http", "--host", "--path", "--wire-log", "--max-body-bytes", "--store", "--auth-issuer", "--workers")
    assert [flag for flag in flags if flag not in text] == []
