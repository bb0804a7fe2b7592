"""The one ownership rule, for every command: a file mcpgen did not write (not in its manifest
with a matching sha256) is never overwritten or deleted; --force only permits generating next
to such files; a collision is one error line naming the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from generation import cli_run, tool, write_json


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, _, err = cli_run(args, capsys)
    return code, err


def snap(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcpgen: error: "), err
    return lines[0]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return write_json(tmp_path / "t.json", [tool("alpha", {"x": {"type": "string"}}), tool("beta")])


@pytest.mark.parametrize("kind", ["client", "server"])
@pytest.mark.parametrize("force", [False, True])
def test_force_never_overwrites_the_users_own_files(
    kind: str, force: bool, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "__init__.py").write_text("MINE = 1\n")
    (out / "client.py").write_text("# my client\n")
    before = snap(out)
    code, err = run([kind, str(source), "-o", str(out), *(["--force"] if force else [])], capsys)
    line = one_error(err)
    assert code == 2 and "__init__.py" in line and "refusing to overwrite" in line and "even with --force" in line
    assert snap(out) == before


@pytest.mark.parametrize("kind", ["client", "server"])
def test_force_generates_next_to_the_users_files_and_leaves_them(
    kind: str, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pkg"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    code, err = run([kind, str(source), "-o", str(out)], capsys)
    assert code == 2 and "notes.txt" in one_error(err) and "--force generates next to them" in err
    code, err = run([kind, str(source), "-o", str(out), "--force"], capsys)
    assert code == 0, err
    assert (out / "notes.txt").read_text() == "precious" and (out / "__init__.py").is_file()
    ino = (out / "notes.txt").stat().st_ino
    code, err = run([kind, str(source), "-o", str(out), "--force"], capsys)
    assert code == 0, err
    assert (out / "notes.txt").stat().st_ino == ino  # the very same file, not a copy


def _manifest(out: Path) -> dict[str, object]:
    return json.loads((out / ".mcpgen-manifest.json").read_text())


@pytest.mark.parametrize("entry", ["../victim.txt", "/etc/passwd", "a/../../victim.txt", "./x", "a//b", "c:x", "a\\b"])
def test_manifest_paths_outside_the_folder_are_refused(
    entry: str, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pkg"
    assert run(["client", str(source), "-o", str(out)], capsys)[0] == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("outside")
    doc = _manifest(out)
    doc["files"][entry] = "0" * 64  # type: ignore[index]
    (out / ".mcpgen-manifest.json").write_text(json.dumps(doc))
    before = snap(tmp_path)
    code, err = run(["client", str(source), "-o", str(out)], capsys)
    assert code == 2 and "manifest" in one_error(err)
    assert snap(tmp_path) == before


def test_a_manifest_listing_handlers_py_never_deletes_it(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "srv"
    assert run(["server", str(source), "-o", str(out)], capsys)[0] == 0
    handlers = (out / "handlers.py").read_bytes()
    import hashlib

    doc = _manifest(out)
    # A hostile manifest claims handlers.py, with its true hash, and a user module too.
    (out / "db.py").write_text("DB = 1\n")
    doc["files"]["handlers.py"] = hashlib.sha256(handlers).hexdigest()  # type: ignore[index]
    doc["files"]["db.py"] = hashlib.sha256(b"DB = 2\n").hexdigest()  # type: ignore[index]
    (out / ".mcpgen-manifest.json").write_text(json.dumps(doc))
    code, err = run(["server", str(source), "-o", str(out)], capsys)
    assert code == 0, err
    assert (out / "handlers.py").read_bytes() == handlers
    assert (out / "db.py").read_text() == "DB = 1\n"  # listed, but not with its hash: the user's


def test_stale_files_go_only_when_their_hash_matches(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pkg"
    assert run(["client", str(source), "-o", str(out), "--runtime", "vendor"], capsys)[0] == 0
    session = out / "_runtime" / "client" / "session.py"
    assert session.is_file()
    edited = out / "_runtime" / "core" / "__init__.py"
    edited.write_text(edited.read_text() + "# mine\n")
    code, err = run(["client", str(source), "-o", str(out), "--force"], capsys)
    assert code == 0, err
    assert not session.exists()  # mcpgen's, unchanged, no longer generated: removed
    assert edited.read_text().endswith("# mine\n")  # changed since mcpgen wrote it: kept
