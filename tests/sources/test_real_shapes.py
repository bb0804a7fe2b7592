"""What real servers do, through the real `mcpgen` command and a real server process
(tests/peers/real_shapes_server.py, over stdio and HTTP): an optional list that fails or never
ends is a warning naming the request and the server's answer, the rest is generated and the
snapshot records what failed; --strict-lists makes it exit 2; tools/list is the contract."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpgen.sources.live import load_live

REPO = Path(__file__).resolve().parents[2]
PEER = str(REPO / "tests/peers/real_shapes_server.py")
PY = sys.executable


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


# (server flags, the failing request, what the warning quotes of the server's answer)
VARIANTS = [
    (["--fail", "resources/templates/list=-32601"], "resources/templates/list", "[-32601] Method not found"),
    (["--fail", "resources/list=-32603"], "resources/list", "[-32603] database is down"),
    (["--fail", "prompts/list=-32601"], "prompts/list", "[-32601] Method not found"),
    (["--forever", "resources/list"], "resources/list", "nextCursor after 1000 pages"),
    (["--repeat", "prompts/list"], "prompts/list", "the cursor 'again' twice"),
]


@pytest.mark.parametrize(("flags", "method", "said"), VARIANTS, ids=[v[1] + ":" + v[0][0] for v in VARIANTS])
def test_each_failing_optional_list_is_recorded_and_the_rest_kept(flags: list[str], method: str, said: str) -> None:
    catalog, problems = load_live(PY, [PEER, *flags])
    assert problems == [] and catalog is not None
    assert [t.name for t in catalog.tools] == ["add"]
    assert [f.method for f in catalog.failed_lists] == [method]
    assert said in catalog.failed_lists[0].error
    kept = {"prompts/list": catalog.prompts, "resources/list": catalog.resources}
    kept["resources/templates/list"] = catalog.resource_templates
    assert all(bool(items) == (m != method) for m, items in kept.items())
    (warning,) = catalog.list_warnings()
    assert warning.warning and warning.where == method and said in warning.message


@pytest.mark.parametrize(("flags", "method", "said"), VARIANTS[:1] + VARIANTS[3:4], ids=["rpc-error", "forever"])
def test_strict_lists_makes_it_an_error_naming_the_request(flags: list[str], method: str, said: str) -> None:
    catalog, problems = load_live(PY, [PEER, *flags], strict_lists=True)
    assert catalog is None
    (problem,) = problems
    assert f"{method} failed" in problem.message and said in problem.message and "--strict-lists" in problem.message


@pytest.mark.parametrize("flag", ["--fail", "--forever", "--repeat"])
def test_a_failing_tools_list_is_an_error_naming_it(flag: str) -> None:
    value = "tools/list=-32603" if flag == "--fail" else "tools/list"
    catalog, problems = load_live(PY, [PEER, flag, value])
    assert catalog is None
    (problem,) = problems
    assert problem.message.startswith("tools/list failed: ")


# Every command that reads a live server: (argv before the source, how the source is given).
READERS = {
    "client": ["client", "-o", "out"],
    "server": ["server", "-o", "out"],
    "snapshot": ["snapshot", "-o", "snap.json"],
    "inspect": ["inspect"],
    "lint": ["lint"],
}
FAULT = ["--fail", "resources/templates/list=-32601"]


def _argv(reader: str, transport: str, url: str, strict: bool) -> list[str]:
    argv = [*READERS[reader], *(["--strict-lists"] if strict else [])]
    if reader == "lint":
        return [*argv, url if transport == "http" else f"stdio:{PY} {PEER} {' '.join(FAULT)}"]
    return [*argv, "--url", url] if transport == "http" else [*argv, "--", PY, PEER, *FAULT]


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_live_reader_warns_then_strict_exits_2(
    tmp_path: Path, reader: str, transport: str, real_shapes_http: Callable[..., str]
) -> None:
    url = real_shapes_http(*FAULT) if transport == "http" else ""
    tolerant = mcpgen(*_argv(reader, transport, url, strict=False), cwd=tmp_path)
    assert tolerant.returncode == 0, tolerant.stderr
    assert "warning: resources/templates/list: failed: the server returned an error: [-32601] Method not found" in (
        tolerant.stderr
    )
    strict = mcpgen(*_argv(reader, transport, url, strict=True), cwd=tmp_path)
    assert strict.returncode == 2, strict.stderr
    assert "resources/templates/list failed: the server returned an error: [-32601]" in strict.stderr


@pytest.mark.slow
def test_the_snapshot_records_what_failed_and_generating_from_it_says_so(tmp_path: Path) -> None:
    made = mcpgen("snapshot", "-o", "snap.json", "--", PY, PEER, *FAULT, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    doc = json.loads((tmp_path / "snap.json").read_text())
    assert doc["failedLists"] == [
        {"method": "resources/templates/list", "error": "the server returned an error: [-32601] Method not found"}
    ]
    again = mcpgen("client", "-o", "out", "snap.json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "warning: resources/templates/list: failed:" in again.stderr


def test_a_wrong_url_path_says_both_transports_answered_404(real_shapes_http: Callable[..., str]) -> None:
    from mcpgen.sources.live import load_live_http

    url = real_shapes_http().replace("/mcp", "/wrong")
    catalog, problems = load_live_http(url, connect_timeout=10)
    assert catalog is None
    (problem,) = problems
    assert "nothing serves MCP at /wrong" in problem.message
    assert "a POST (Streamable HTTP) answered 404 and a GET (legacy HTTP+SSE) answered 404" in problem.message


@pytest.mark.slow
@pytest.mark.parametrize("strict", [False, True])
def test_record_tolerates_a_failing_list_unless_strict(tmp_path: Path, strict: bool) -> None:
    argv = [PY, "-m", "mcpgen.cli", "record", "-o", "c.jsonl", *(["--strict-lists"] if strict else [])]
    argv += ["--", PY, PEER, "--fail", "prompts/list=-32601"]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == (2 if strict else 0), done.stderr
    assert ("prompts/list failed: the server returned an error: [-32601]" in done.stderr) is strict
