"""HTTP resource limits: body size (413 before reading), session count (503), idle sessions
(404 like unknown ones), and the flags/env variables that set them."""

from __future__ import annotations

import argparse
import asyncio
import re
from dataclasses import fields
from pathlib import Path

import pytest

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.server.http.limits import HttpLimits, add_limit_arguments, limits_from_args

from ._asgi import app, open_session, post, rpc, slow_server, sync

MB = 1024 * 1024


@sync
async def test_content_length_over_the_limit_is_refused_before_reading() -> None:
    target = app()
    exchange = await post(target, [b"x" * 1024] * 8, headers={"content-length": str(5 * MB)})
    assert exchange.reply.status == 413
    assert exchange.reads == 0
    assert exchange.reply.json()["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert exchange.reply.headers.get("connection") == "close"


@sync
async def test_content_length_is_checked_before_host_or_session() -> None:
    target = app()
    exchange = await post(
        target, [b"x"], headers={"content-length": str(64 * MB), "host": "evil.example", "mcp-session-id": "nope"}
    )
    assert exchange.reply.status == 413 and exchange.reads == 0


@sync
async def test_chunked_body_is_cut_at_the_limit() -> None:
    target = app(max_body_bytes=256 * 1024)
    chunks = [b" " * (64 * 1024)] * 64  # 4 MB without a Content-Length
    exchange = await post(target, chunks)
    assert exchange.reply.status == 413
    assert exchange.reads <= 5  # stopped as soon as the limit passed, not after 64 chunks


@sync
async def test_default_body_limit_is_4_mib() -> None:
    target = app()
    assert target.limits.max_body_bytes == 4 * MB
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"' + b"a" * (4 * MB) + b'"}'
    assert (await post(target, body)).reply.status == 413
    small = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{},"pad":"' + b"a" * (3 * MB) + b'"}'
    assert (await post(target, small)).reply.status == 200


@sync
async def test_sessions_beyond_the_cap_get_503_and_room_frees_up() -> None:
    target = app(max_sessions=3)
    ids = [await open_session(target) for _ in range(3)]
    refused = await post(target, rpc(9, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
    assert refused.reply.status == 503
    assert refused.reply.json()["error"]["message"] == "Too many open sessions"
    assert len(target.sessions) == 3
    await target.handshake.delete({"mcp-session-id": ids[0]}, (await post(target, b"", wait=False)).send)
    assert await open_session(target)


@sync
async def test_an_idle_session_expires_and_answers_404() -> None:
    target = app(session_idle_timeout=0.3)
    session = await open_session(target)
    ping = rpc(2, "ping")
    assert (await post(target, ping, headers={"mcp-session-id": session})).reply.status == 200
    await asyncio.sleep(0.5)
    gone = await post(target, ping, headers={"mcp-session-id": session})
    assert gone.reply.status == 404
    assert session not in target.sessions


@sync
async def test_idle_sessions_are_swept_when_the_cap_is_reached() -> None:
    target = app(session_idle_timeout=0.2, max_sessions=5)
    for _ in range(5):
        await open_session(target)
    await asyncio.sleep(0.3)
    assert await open_session(target)  # the five idle ones made room
    assert len(target.sessions) == 1


@sync
async def test_a_busy_session_does_not_expire() -> None:
    gate = asyncio.Event()

    target = app(slow_server(gate), session_idle_timeout=0.2)
    session = await open_session(target)
    headers = {"mcp-session-id": session}
    call = await post(target, rpc(3, "tools/call", {"name": "wait", "arguments": {}}), headers=headers, wait=False)
    await asyncio.sleep(0.4)
    gate.set()
    await asyncio.wait_for(call.done.wait(), 5)
    assert call.reply.status == 200, call.reply.body
    assert session in target.sessions


def test_every_limit_has_a_flag_and_an_environment_variable() -> None:
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser, {"MCPGEN_SESSION_IDLE_TIMEOUT": "90", "MCPGEN_MAX_BODY_BYTES": "1000"})
    limits = limits_from_args(parser.parse_args(["--max-sessions", "7", "--header-timeout", "2.5"]))
    assert limits == HttpLimits(max_body_bytes=1000, max_sessions=7, session_idle_timeout=90.0, header_timeout=2.5)
    text = parser.format_help()
    for flag in ("--max-body-bytes", "--max-sessions", "--session-idle-timeout", "--header-timeout"):
        assert flag in text
    for flag in ("--keep-alive-timeout", "--max-connections", "MCPGEN_SESSION_IDLE_TIMEOUT"):
        assert flag in text
    with pytest.raises(SystemExit, match=r"^--session-idle-timeout must be a non-negative number, not -1\.0$"):
        limits_from_args(parser.parse_args(["--session-idle-timeout", "-1"]))
    with pytest.raises(SystemExit, match="^--header-timeout must be a non-negative number, not nan$"):
        limits_from_args(parser.parse_args(["--header-timeout", "nan"]))
    # 0 is a value, not a refusal: it turns the limit off.
    assert limits_from_args(parser.parse_args(["--session-idle-timeout", "0"])).session_idle_timeout == 0


def test_a_variable_that_is_not_a_number_stops_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="server")
    with pytest.raises(SystemExit, match="^2$"):
        add_limit_arguments(parser, {"MCPGEN_MAX_SESSIONS": "lots"})
    assert "server: error: MCPGEN_MAX_SESSIONS must be a number, not 'lots'" in capsys.readouterr().err
    # A blank variable is no setting: the default stands.
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser, {"MCPGEN_MAX_SESSIONS": "  "})
    assert limits_from_args(parser.parse_args([])).max_sessions == HttpLimits().max_sessions


UNITS = {"MiB": 1024 * 1024, "KiB": 1024, "s": 1}


def documented_defaults() -> dict[str, float]:
    """flag -> the default the production page's limits table states."""
    text = (Path(__file__).resolve().parents[2] / "docs/how-to/production.md").read_text(encoding="utf-8")
    stated = {}
    for row in re.finditer(r"^\| [^|]+ \| ([\d,]+)(?: (MiB|KiB|s))? \| `(--[a-z-]+)`, `MCPGEN_", text, re.M):
        number, unit, flag = row.groups()
        stated[flag] = int(number.replace(",", "")) * UNITS.get(unit or "s", 1)
    return stated


def test_the_defaults_are_the_documented_ones_and_the_help_shows_them() -> None:
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser, {})
    running = limits_from_args(parser.parse_args([]))
    stated = documented_defaults()
    assert len(stated) == len(fields(HttpLimits))  # every limit is in the table
    text = " ".join(parser.format_help().split())
    for item in fields(HttpLimits):
        flag, var = item.name.replace("_", "-"), "MCPGEN_" + item.name.upper()
        value = getattr(running, item.name)
        assert value == stated["--" + flag], flag
        shown = f"{value:d}" if isinstance(value, int) else f"{value:g}"
        metavar = "N" if isinstance(value, int) else "SECONDS"
        assert f"--{flag} {metavar} " in text and f"(env {var}; default: {shown})" in text, flag
