"""`mcpgen docs`: the folder it writes, --check against it, the ownership rule, bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from generation import cli_run

from mcpgen.output.manifest import MANIFEST_NAME

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / "tests/golden/inputs/everything.raw.json"
CONFORMANCE = REPO / "examples/conformance/schemas"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return cli_run(args, capsys)


def test_docs_writes_the_folder_with_a_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "docs"
    code, _, err = run_cli(["docs", str(EVERYTHING), "-o", str(out)], capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_NAME, "index.html", "llms.txt", "reference.md"]
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert manifest["kind"] == "docs" and sorted(manifest["files"]) == ["index.html", "llms.txt", "reference.md"]
    assert "wrote 3 files" in err
    html = (out / "index.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and 'id="tool-get-sum"' in html

    code, _, err = run_cli(["docs", str(EVERYTHING), "-o", str(out), "--check"], capsys)
    assert code == 0 and "up to date" in err

    (out / "index.html").write_text(html.replace("get-sum", "get-product"))
    code, out_text, err = run_cli(["docs", str(EVERYTHING), "-o", str(out), "--check"], capsys)
    assert code == 1 and "index.html" in out_text and "out of date" in err

    # Rewriting replaces mcpgen's own files only when they are as it wrote them: an edited one
    # is the user's now.
    code, _, err = run_cli(["docs", str(EVERYTHING), "-o", str(out)], capsys)
    assert code == 2 and "refusing to overwrite index.html" in err
    assert "get-product" in (out / "index.html").read_text()


def test_docs_from_a_folder_of_schemas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "docs"
    code, _, err = run_cli(["docs", str(CONFORMANCE), "-o", str(out)], capsys)
    assert code == 0, err
    llms = (out / "llms.txt").read_text()
    assert "[`test_simple_text`](reference.md#tool-test-simple-text)" in llms
    assert "[`test://static-text`](reference.md#resource-static-text)" in llms


def test_docs_leaves_files_it_did_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, _, err = run_cli(["docs", str(EVERYTHING), "-o", str(out)], capsys)
    assert code == 2 and "--force" in err and not (out / "index.html").exists()
    code, _, err = run_cli(["docs", str(EVERYTHING), "-o", str(out), "--force"], capsys)
    assert code == 0, err
    assert (out / "notes.txt").read_text() == "mine" and (out / "index.html").is_file()


def test_bad_source_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [')
    out = tmp_path / "docs"
    code, _, err = run_cli(["docs", str(bad), "-o", str(out)], capsys)
    assert code == 2 and not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcpgen: error: ") and "Traceback" not in err


def test_an_invalid_tool_needs_skip_invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "tools.json"
    src.write_text(
        json.dumps(
            [
                {"name": "ok", "inputSchema": {"type": "object"}},
                {"name": "far", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "other.json"}}}},
            ]
        )
    )
    out = tmp_path / "docs"
    code, _, err = run_cli(["docs", str(src), "-o", str(out)], capsys)
    assert code == 2 and "far" in err and not out.exists()
    code, _, err = run_cli(["docs", str(src), "-o", str(out), "--skip-invalid"], capsys)
    assert code == 0 and "warning" in err
    html = (out / "index.html").read_text()
    assert 'id="tool-ok"' in html and 'id="tool-far"' not in html


@pytest.mark.slow
def test_docs_from_a_live_stdio_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The source shapes of the other commands: here a real server started after `--`."""
    out = tmp_path / "docs"
    code, _, err = run_cli(
        ["docs", "-o", str(out), "--connect-timeout", "60", "--", sys.executable, "-m", "mcp_server_time"], capsys
    )
    assert code == 0, err
    html = (out / "index.html").read_text()
    assert 'id="tool-convert-time"' in html and 'id="tool-get-current-time"' in html
    assert "await client.get_current_time(timezone=" in (out / "reference.md").read_text()


def test_templates_override_a_docs_file_and_html_stays_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    custom = tmp_path / "templates"
    custom.mkdir()
    (custom / "llms.txt.jinja").write_text(
        "# {{ page.title }}\n{% for t in page.tools %}- {{ t.heading }}\n{% endfor %}"
    )
    (custom / "index.html.jinja").write_text("<p>{{ page.tools[0].description }}</p>\n")
    src = tmp_path / "tools.json"
    src.write_text(json.dumps([{"name": "t", "description": "<b>x</b>", "inputSchema": {"type": "object"}}]))
    out = tmp_path / "docs"
    code, _, err = run_cli(["docs", str(src), "-o", str(out), "--templates", str(custom)], capsys)
    assert code == 0, err
    assert (out / "llms.txt").read_text() == "# MCP server\n- t\n"
    assert (out / "index.html").read_text() == "<p>&lt;b&gt;x&lt;/b&gt;</p>\n"  # a user's page is autoescaped too
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert manifest["options"]["templates"].startswith("sha256:")
