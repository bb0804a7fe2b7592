"""What `recover` does with the leftovers of a killed write, in process (the kills themselves are
in test_write_interrupted.py)."""

from __future__ import annotations

from pathlib import Path

from mcpgen.output import write


def test_an_old_tree_beside_a_present_output_folder_is_removed_not_moved_back(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    out.mkdir()
    (out / "a.py").write_text("current\n")
    old = tmp_path / (write._prefix("pkg") + "old-1")
    old.mkdir()
    (old / "a.py").write_text("old\n")
    write.recover(out)
    assert (out / "a.py").read_text() == "current\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_missing_output_folder_gets_its_one_old_tree_back(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    old = tmp_path / (write._prefix("pkg") + "old-1")
    old.mkdir()
    (old / "a.py").write_text("old\n")
    new = tmp_path / (write._prefix("pkg") + "new-1")
    new.mkdir()
    write.recover(out)
    assert (out / "a.py").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]
