"""Progress on stderr: stages and counts on an updating line when stderr is a terminal (a real
pseudo-terminal here), the one summary line otherwise, nothing at all with --quiet on success,
every stage on its own line with --verbose."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from generation import cli_run

TOOLS = [
    {"name": f"tool-{i}", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}} for i in range(3)
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return cli_run(args, capsys)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    return path


@pytest.mark.slow
def test_stages_and_counts_on_a_terminal(source: Path, tmp_path: Path) -> None:
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "mcpgen.cli", "client", str(source), "-o", str(tmp_path / "pkg")]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, cwd=tmp_path)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=60)
    os.close(master)
    text = seen.decode()
    assert proc.returncode == 0, text
    for stage in (
        f"mcpgen: reading {source} ...",
        "mcpgen: validating 3 tools ...",
        "mcpgen: models 3 tools ...",
        "mcpgen: formatting 10 files ...",
        "mcpgen: writing 10 files to",
    ):
        assert "\r\x1b[K" + stage in text, (stage, text)
    # The updating line is cleared before the summary, which stays.
    assert f"\r\x1b[Kwrote 10 files to {tmp_path / 'pkg'} (3 tools)" in text, text


def test_one_summary_line_when_not_a_terminal(source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["client", str(source), "-o", str(tmp_path / "pkg")], capsys)
    assert code == 0 and out == "" and err == f"wrote 10 files to {tmp_path / 'pkg'} (3 tools)\n", err


@pytest.mark.parametrize(
    "args",
    [
        ["client", "{src}", "-o", "{dir}/pkg", "--quiet"],
        ["server", "{src}", "-o", "{dir}/srv", "-q"],
        ["snapshot", "{src}", "-o", "{dir}/snap.json", "--quiet"],
        ["generate", "--quiet"],
    ],
    ids=["client", "server", "snapshot", "generate"],
)
def test_quiet_success_is_silent(
    args: list[str], source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpgen.targets.t]\nkind = "client"\nsource = "tools.json"\noutput = "gen"\n'
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = run([a.format(src=source, dir=tmp_path) for a in args], capsys)
    assert code == 0 and out == "" and err == "", (out, err)
    assert any(tmp_path.glob("*/__init__.py")) or (tmp_path / "snap.json").exists()


def test_quiet_still_prints_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["client", str(tmp_path / "missing.json"), "-o", str(tmp_path / "pkg"), "-q"], capsys)
    assert code == 2 and out == "" and err.startswith("mcpgen: error: ") and len(err.splitlines()) == 1


def test_verbose_prints_every_stage_with_its_time(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["client", str(source), "-o", str(tmp_path / "pkg"), "--verbose"], capsys)
    lines = err.splitlines()
    assert code == 0, err
    stages = [line.split(" (")[0] for line in lines[:-1]]
    assert stages == [
        f"mcpgen: reading {source}",
        "mcpgen: validating 3 tools",
        "mcpgen: models 3 tools",
        "mcpgen: formatting 10 files",
        f"mcpgen: writing 10 files to {tmp_path / 'pkg'}",
    ], lines
    assert all(line.endswith(" s)") for line in lines[:-1]) and lines[-1].startswith("wrote 10 files")


@pytest.mark.parametrize("command", ["client", "server", "generate", "inspect", "snapshot", "diff"])
def test_every_command_takes_quiet_and_verbose(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0 and "-q, --quiet" in out and "-v, --verbose" in out
