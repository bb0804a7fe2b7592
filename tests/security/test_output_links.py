"""Links inside or at -o never send a write or a deletion outside the output folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from generation import cli_run, tool, write_json


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, _, err = cli_run(args, capsys)
    return code, err


def snap(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return write_json(tmp_path / "t.json", [tool("alpha", {"x": {"type": "string"}})])


def test_a_symlinked_subfolder_is_refused_and_nothing_outside_changes(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "srv"
    assert run(["server", str(source), "-o", str(out)], capsys)[0] == 0
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "base.py").write_text("victim's")
    (victim / "keep.txt").write_text("victim's")
    import shutil

    shutil.rmtree(out / "_generated")
    os.symlink(victim, out / "_generated")
    doc = json.loads((out / ".mcpgen-manifest.json").read_text())
    doc["files"]["_generated/keep.txt"] = doc["files"]["_generated/base.py"]
    (out / ".mcpgen-manifest.json").write_text(json.dumps(doc))
    before = snap(victim)
    for force in ([], ["--force"]):
        code, err = run(["server", str(source), "-o", str(out), *force], capsys)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and "_generated" in lines[0] and "refusing" in lines[0], err
        assert snap(victim) == before
        assert (out / "_generated").is_symlink()


def test_a_link_in_place_of_a_generated_file_is_refused(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pkg"
    assert run(["client", str(source), "-o", str(out)], capsys)[0] == 0
    victim = tmp_path / "victim.py"
    victim.write_text("victim's")
    (out / "client.py").unlink()
    os.symlink(victim, out / "client.py")
    code, err = run(["client", str(source), "-o", str(out), "--force"], capsys)
    assert code == 2 and "client.py" in err
    assert victim.read_text() == "victim's" and (out / "client.py").is_symlink()
    # --check does not read through the link either: it reports the file as missing.
    code, err = run(["client", str(source), "-o", str(out), "--diff"], capsys)
    assert code == 1 and "victim's" not in err


def test_a_symlinked_output_stays_a_link_and_its_target_is_written(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    link = tmp_path / "link"
    os.symlink(real, link)
    for _ in range(2):  # first generation (the target does not exist yet), then a regeneration
        code, err = run(["client", str(source), "-o", str(link)], capsys)
        assert code == 0, err
        assert link.is_symlink() and os.readlink(link) == str(real)
        assert (real / "client.py").is_file() and (real / ".mcpgen-manifest.json").is_file()
    assert not [p for p in tmp_path.iterdir() if ".mcpgen-" in p.name]  # no temporary left


def test_a_symlink_of_the_users_inside_the_folder_is_kept_as_a_link(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "srv"
    assert run(["server", str(source), "-o", str(out)], capsys)[0] == 0
    elsewhere = tmp_path / "data"
    elsewhere.mkdir()
    (elsewhere / "big.bin").write_text("data")
    os.symlink(elsewhere, out / "data")
    assert run(["server", str(source), "-o", str(out)], capsys)[0] == 0
    assert (out / "data").is_symlink() and os.readlink(out / "data") == str(elsewhere)
    assert (elsewhere / "big.bin").read_text() == "data"
