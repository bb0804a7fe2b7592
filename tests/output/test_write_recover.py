"""What `recover` does with the leftovers of a killed write, in process (the kills themselves are
in test_write_interrupted.py)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from mcpgen.output import write
from mcpgen.output.ownership import Tree


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


def test_a_leftover_that_cannot_be_removed_is_left_and_the_write_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a leftover holding a busy or immutable file: as root no mode stops the removal, so the
    # removal of that one file fails here as the system would fail it)
    out = tmp_path / "pkg"
    stuck = tmp_path / (write._prefix("pkg") + "new-1")
    stuck.mkdir()
    (stuck / "busy").write_text("x\n")
    (stuck / "other").write_text("y\n")
    unlink = os.unlink

    def refusing(path: Any, *args: Any, **kwargs: Any) -> None:
        if os.fspath(path).endswith("busy"):
            raise PermissionError(errno.EPERM, "Operation not permitted", os.fspath(path))
        unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refusing)
    write.recover(out)  # no error: a leftover mcpgen cannot remove is not worth failing the run for
    assert sorted(p.name for p in stuck.iterdir()) == ["busy"]  # what could go, went
    write.write_tree(out, {"a.py": "new\n"}, Tree(), set())
    assert (out / "a.py").read_text() == "new\n"
    assert stuck.is_dir()
