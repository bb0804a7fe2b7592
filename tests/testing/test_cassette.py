"""Record and replay: a session with npm server-everything recorded through `mcpgen record`,
replayed offline by `mcpgen mock --replay` with identical typed results; a changed schema fails
the replay naming the tool; secrets never reach the cassette."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import EVERYTHING
from kit_support import SOURCES, client_package, load
from serving import serving

from mcpgen.runtime import McpError
from mcpgen.testing.cassette import REDACTED, Redactor, load_cassette

MCPGEN = [sys.executable, "-m", "mcpgen.cli"]


async def session_calls(client: Any) -> list[Any]:
    """What the test drives through both the recording proxy and the replay: typed results."""
    return [
        await client.echo(message="hello cassette"),
        await client.get_sum(a=2, b=40),
        await client.get_structured_content(location="Chicago"),
        await client.get_tiny_image(),
        await client.get_args_prompt(city="Oslo"),
        await client.get_simple_prompt(),
        await client.read_dynamic_text_resource(resource_id="1"),
    ]


def plain(values: list[Any]) -> list[Any]:
    """Typed results as comparable JSON (pydantic models and the runtime's result objects)."""
    out = []
    for value in values:
        dump = getattr(value, "model_dump", None)
        out.append(repr(dump(mode="json") if dump else value))
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], Any]:
    folder = tmp_path_factory.mktemp("cassette")
    cassette = folder / "everything.jsonl"
    package = client_package(load("everything"), folder)

    async def main() -> list[Any]:
        args = [*MCPGEN[1:], "record", "-o", str(cassette), "--", *EVERYTHING]
        async with package.AsyncClient.connect_stdio(MCPGEN[0], args, drift="off", timeout=60) as client:
            return await session_calls(client)

    return cassette, plain(asyncio.run(main())), package


@pytest.mark.slow
def test_a_recorded_everything_session_replays_offline_with_identical_typed_results(
    recorded: tuple[Path, list[str], Any],
) -> None:
    cassette, live, package = recorded
    header = json.loads(cassette.read_text(encoding="utf-8").splitlines()[0])
    assert any(t["name"] == "get-sum" for t in header["catalog"]["tools"])

    async def main() -> list[Any]:
        # No SOURCE: the cassette carries its catalog. No node either: the replay is offline.
        args = [*MCPGEN[1:], "mock", "--replay", str(cassette)]
        async with package.AsyncClient.connect_stdio(MCPGEN[0], args, drift="off", env={"PATH": ""}) as client:
            return await session_calls(client)

    assert plain(asyncio.run(main())) == live
    assert "hello cassette" in live[0]


@pytest.mark.slow
def test_a_request_never_recorded_names_the_closest_recorded_one(recorded: tuple[Path, list[str], Any]) -> None:
    cassette, _live, package = recorded

    async def main() -> None:
        args = [*MCPGEN[1:], "mock", "--replay", str(cassette)]
        async with package.AsyncClient.connect_stdio(MCPGEN[0], args, drift="off") as client:
            with pytest.raises(
                McpError,
                match=(
                    r"^\[-32602\] nothing recorded matches tools/call \{\"arguments\": \{\"a\": 2, "
                    r"\"b\": 41\}, \"name\": \"get-sum\"\}; the closest recorded request is "
                    r"tools/call \{\"arguments\": \{\"a\": 2, \"b\": 40\}, \"name\": \"get-sum\"\}$"
                ),
            ) as info:
                await client.get_sum(a=2, b=41)
            message = str(info.value)
            assert "nothing recorded matches" in message and '"a": 2, "b": 40' in message

    asyncio.run(main())


@pytest.mark.slow
def test_a_changed_schema_fails_the_replay_naming_the_tool(
    recorded: tuple[Path, list[str], Any], tmp_path: Path
) -> None:
    cassette, _live, _package = recorded
    # The catalog the cassette was recorded against, as a snapshot file, with one tool changed.
    changed = json.loads(cassette.read_text(encoding="utf-8").splitlines()[0])["catalog"]
    for tool in changed["tools"]:
        if tool["name"] == "get-sum":
            tool["inputSchema"]["properties"]["c"] = {"type": "number"}
            tool["inputSchema"]["required"].append("c")
    source = tmp_path / "changed.json"
    source.write_text(json.dumps(changed), encoding="utf-8")
    done = subprocess.run(
        [*MCPGEN, "mock", str(source), "--replay", str(cassette)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "'get-sum'" in done.stderr and "inputSchema changed" in done.stderr
    assert all("'get-sum'" in line for line in done.stderr.strip().splitlines())  # only the changed tool
    # The same cassette against the source it was recorded from loads cleanly.
    loaded, problems = load_cassette(cassette, None)
    assert loaded is not None and not problems


def test_a_result_that_no_longer_fits_the_output_schema_names_the_tool(tmp_path: Path) -> None:
    from mcpgen.catalog.snapshot import snapshot_document

    catalog = load("everything")
    header = {"mcpgen_cassette": 1, "catalog": snapshot_document(catalog), "redacted": {"headers": [], "fields": []}}
    bad = {
        "method": "tools/call",
        "params": {"name": "get-structured-content", "arguments": {"location": "Chicago"}},
        "result": {"content": [], "structuredContent": {"temperature": "warm"}},
    }
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(json.dumps(header) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    loaded, problems = load_cassette(cassette)
    assert loaded is None
    assert any("'get-structured-content'" in str(p) and "does not fit" in str(p) for p in problems)


@pytest.mark.parametrize("text", ["", "not json\n", '{"mcpgen_cassette": 99}\n'])
def test_a_file_that_is_not_a_cassette_is_refused(tmp_path: Path, text: str) -> None:
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(text, encoding="utf-8")
    loaded, problems = load_cassette(cassette)
    assert loaded is None and problems


def test_the_redactor_removes_fields_and_their_values_wherever_they_echo() -> None:
    redact = Redactor.build(["api_key"], ["Bearer tok-123456"])
    entry = {
        "params": {"arguments": {"api_key": "sk-live-999", "note": "header Bearer tok-123456"}},
        "result": {"content": [{"type": "text", "text": "your key sk-live-999 works"}]},
    }
    text = json.dumps(redact(entry))
    assert "sk-live-999" not in text and "tok-123456" not in text and text.count(REDACTED) == 3


@pytest.mark.slow
def test_recording_over_http_keeps_the_authorization_header_and_secret_fields_out(tmp_path: Path) -> None:
    token = "Bearer tok-SECRET-4242"
    password = "pw-hunter2-secret"
    cassette = tmp_path / "http.jsonl"
    package = client_package(load("everything"), tmp_path)

    async def main(url: str) -> None:
        args = [
            *MCPGEN[1:],
            "record",
            "-o",
            str(cassette),
            "--url",
            url,
            "--header",
            f"Authorization: {token}",
            "--redact",
            "message",
        ]
        async with package.AsyncClient.connect_stdio(MCPGEN[0], args, drift="off", timeout=60) as client:
            await client.echo(message=password)
            # (a plain call: simulate-research-query, the other free-text tool, runs only as a task)
            await client.gzip_file_as_resource(name=f"the token is {token}")

    with serving([*MCPGEN, "mock", str(SOURCES["everything"]), "--http", "--port", "{port}"]) as url:
        asyncio.run(main(url))
    text = cassette.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 3  # the header and both exchanges were written
    assert "tok-SECRET-4242" not in text and password not in text
    assert REDACTED in text and '"Authorization"' in text.splitlines()[0]  # named, never its value

    async def replay() -> None:
        # A redacted field still matches on replay: the request is redacted the same way.
        args = [*MCPGEN[1:], "mock", "--replay", str(cassette)]
        async with package.AsyncClient.connect_stdio(MCPGEN[0], args, drift="off") as client:
            await client.echo(message=password)

    asyncio.run(replay())


def test_a_source_that_cannot_be_reached_is_one_line_naming_it_without_its_secrets(tmp_path: Path) -> None:
    cassette = tmp_path / "never.jsonl"
    url = "http://alice:pw-hunter2-secret@127.0.0.1:9/mcp?access_token=tok-SECRET-4242"
    done = subprocess.run(
        [*MCPGEN, "record", "-o", str(cassette), "--url", url, "--connect-timeout", "5"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcpgen: error: http://127.0.0.1:9/mcp: "), lines
    assert "internal error" not in done.stderr
    assert "hunter2" not in done.stderr and "tok-SECRET" not in done.stderr and "alice" not in done.stderr
    assert not cassette.exists()  # nothing written for a session that never started


def test_the_sources_own_secrets_are_redacted_wherever_a_server_echoes_them() -> None:
    from mcpgen.testing.record import RecordRequest, redactor_for

    url_request = RecordRequest(
        output=Path("c.jsonl"),
        url="http://alice:pw-hunter2-secret@127.0.0.1:9/mcp?access_token=tok-SECRET-4242&page=2",
        headers=(("X-Api-Key", "key-0123456789"),),
    )
    echoed = {"text": "called with tok-SECRET-4242 as pw-hunter2-secret and key-0123456789 on page 2"}
    assert redactor_for(url_request)(echoed) == {
        "text": f"called with {REDACTED} as {REDACTED} and {REDACTED} on page 2"
    }
    command_request = RecordRequest(
        output=Path("c.jsonl"), command=("server", "--token", "sk-live-0123456789", "--port", "8000")
    )
    assert redactor_for(command_request)({"text": "token sk-live-0123456789, port 8000"}) == {
        "text": f"token {REDACTED}, port 8000"
    }
