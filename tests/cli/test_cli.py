"""`mcpgen client` / `mcpgen inspect` through the CLI entry point: exit codes, messages, files."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest
import yaml
from generation import PY, cli_run, tool, write_json

from mcpgen.cli import main

GOLDEN_INPUTS = Path(__file__).resolve().parents[1] / "golden" / "inputs"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return cli_run(args, capsys)


def tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


BAD_CASES = {
    "unreadable": lambda d: str(d / "missing.json"),
    "invalid_json": lambda d: str(_write(d / "bad.json", '{"tools": [')),
    "no_input_schema": lambda d: str(write_json(d / "t.json", {"tools": [{"name": "x"}, {"name": "y"}]})),
    "invalid_schema": lambda d: str(write_json(d / "t.json", [{"name": "x", "inputSchema": {"type": 5}}])),
    "not_tools": lambda d: str(write_json(d / "t.json", {"hello": 1})),
}


def _write(p: Path, text: str) -> Path:
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_file_input_exit_2_nothing_written(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = BAD_CASES[case](tmp_path)
    out = tmp_path / "out"
    code, _, err = run_cli(["client", src, "-o", str(out)], capsys)
    assert code == 2
    assert not out.exists()
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines and all(ln.startswith("mcpgen: error: ") for ln in lines)
    if case == "no_input_schema":
        assert len(lines) == 2 and all("inputSchema" in ln for ln in lines)  # every problem, not just the first
    if case == "unreadable":
        assert "cannot read file" in err
    if case == "invalid_json":
        assert "invalid JSON" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "command,needle",
    [
        ([PY, "-c", "import sys; sys.exit(3)"], "exit"),
        ([PY, "-c", "import time; time.sleep(60)"], "within 2s"),
        (["/nonexistent/mcp-server"], "cannot start"),
    ],
    ids=["exits_at_once", "never_answers", "no_such_command"],
)
def test_bad_live_server_exit_2(
    command: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, _, err = run_cli(["client", "-o", str(out), "--connect-timeout", "2", "--", *command], capsys)
    assert code == 2, err
    assert not out.exists()
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err


def test_refuses_to_overwrite_foreign_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    src = write_json(tmp_path / "t.json", [tool("a")])
    code, _, err = run_cli(["client", str(src), "-o", str(out)], capsys)
    assert code == 2 and "refusing" in err
    assert (out / "notes.txt").read_text() == "precious"


def test_all_document_shapes_give_the_same_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = json.loads((GOLDEN_INPUTS / "time.raw.json").read_text())["tools"]["tools"]
    shapes = {
        "result.json": {"tools": tools},
        "rpc.json": {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}},
        "list.json": tools,
        "list.yaml": tools,
    }
    trees = []
    for fname, doc in shapes.items():
        p = tmp_path / fname
        p.write_text(yaml.safe_dump(doc, sort_keys=False) if fname.endswith(".yaml") else json.dumps(doc))
        out = tmp_path / ("out_" + fname.replace(".", "_"))
        code, _, err = run_cli(["client", str(p), "-o", str(out)], capsys)
        assert code == 0, err
        t = tree(out)
        t.pop("_catalog.py")  # server_info differs by shape; everything else must not
        t.pop(".mcpgen-manifest.json")  # (so does the hash of the source it records)
        trees.append(t)
    assert all(t == trees[0] for t in trees)
    single = write_json(tmp_path / "one.json", tools[0])
    code, _, _ = run_cli(["client", str(single), "-o", str(tmp_path / "one")], capsys)
    assert code == 0 and "def get_current_time" in (tmp_path / "one" / "client.py").read_text()


def test_deterministic_and_order_independent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((GOLDEN_INPUTS / "everything.raw.json").read_text())
    doc["tools"]["tools"] += [tool(n, {"x": {"type": "string"}}) for n in ("get_sum", "getSum", "get.sum", "get sum")]
    a = write_json(tmp_path / "a.json", doc)
    runs = []
    for i in range(2):
        out = tmp_path / f"o{i}"
        assert run_cli(["client", str(a), "-o", str(out)], capsys)[0] == 0
        runs.append(tree(out))
    assert runs[0] == runs[1]
    random.Random(7).shuffle(doc["tools"]["tools"])
    b = write_json(tmp_path / "b.json", doc)
    out = tmp_path / "shuffled"
    assert run_cli(["client", str(b), "-o", str(out)], capsys)[0] == 0
    assert tree(out) == runs[0]


def test_regenerate_replaces_own_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pkg"
    assert run_cli(["client", str(write_json(tmp_path / "1.json", [tool("alpha")])), "-o", str(out)], capsys)[0] == 0
    assert run_cli(["client", str(write_json(tmp_path / "2.json", [tool("beta")])), "-o", str(out)], capsys)[0] == 0
    text = (out / "client.py").read_text()
    assert "def beta" in text and "def alpha" not in text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp dirs left


def test_template_override_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tdir = tmp_path / "tpl"
    tdir.mkdir()
    (tdir / "header.py.jinja").write_text("# Code generated by mcpgen {{ mcpgen_version }}. DO NOT EDIT. (custom)\n")
    out = tmp_path / "pkg"
    code, _, err = run_cli(
        ["client", str(write_json(tmp_path / "t.json", [tool("a")])), "-o", str(out), "--templates", str(tdir)], capsys
    )
    assert code == 0, err
    assert (out / "client.py").read_text().splitlines()[0].endswith("(custom)")


def test_inspect_file(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["inspect", str(GOLDEN_INPUTS / "everything.raw.json")])
    out = capsys.readouterr().out
    assert ei.value.code == 0
    assert "get-structured-content" in out and "get_structured_content" in out and "GetStructuredContentResult" in out
    assert "prompts (4)" in out


def test_vendor_runtime_imports_nothing_from_mcpgen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "vend"
    src = write_json(tmp_path / "t.json", [tool("a", {"x": {"type": "integer"}})])
    assert run_cli(["client", str(src), "-o", str(out), "--runtime", "vendor"], capsys)[0] == 0
    assert (out / "_runtime" / "__init__.py").exists()
    for p in out.rglob("*.py"):
        text = p.read_text()
        assert "import mcpgen" not in text and "from mcpgen" not in text, p
    # Import it in a clean interpreter where mcpgen is not importable.
    shadow = tmp_path / "shadow"
    (shadow / "mcpgen").mkdir(parents=True)
    (shadow / "mcpgen" / "__init__.py").write_text("raise ImportError('mcpgen must not be imported')\n")
    import subprocess

    env = {**os.environ, "PYTHONPATH": f"{shadow}{os.pathsep}{tmp_path}"}
    r = subprocess.run(
        [sys.executable, "-c", "import vend, vend.models; print(vend.AsyncClient.__name__)"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "AsyncClient"


def test_no_sync_leaves_out_the_sync_client(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_json(tmp_path / "t.json", [tool("get-weather", {"city": {"type": "string"}}, ["city"])])
    code, _, err = run_cli(["client", str(src), "-o", str(tmp_path / "with_sync")], capsys)
    assert code == 0, err
    code, _, err = run_cli(["client", str(src), "-o", str(tmp_path / "async_only"), "--no-sync"], capsys)
    assert code == 0, err
    with_sync = (tmp_path / "with_sync" / "client.py").read_text()
    async_only = (tmp_path / "async_only" / "client.py").read_text()
    assert "class Client(" in with_sync and "get_weather = sync_method(" in with_sync.split("class Client(")[1]
    assert "class AsyncClient(" in async_only and "class Client(" not in async_only
    assert "Client" not in (tmp_path / "async_only" / "__init__.py").read_text().replace("AsyncClient", "")
