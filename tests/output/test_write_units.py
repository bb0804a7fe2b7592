"""Writing an output folder, in process and fast: what the new tree holds (the user's entries
linked with their inode and mode, folders emptied of mcpgen's files gone, empty user folders
kept), the modes of what mcpgen creates, the steps of a write, the two-rename fallback and its
error handling, and the copy where a hard link is refused. Failures are injected with
monkeypatch on the module's `os` functions; the kills are in test_write_interrupted.py."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpgen.output import write
from mcpgen.output.ownership import Tree
from mcpgen.render.files import FileSet


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def beside(out: Path) -> list[str]:
    """What lies in the output folder's parent, the folder itself included."""
    return sorted(p.name for p in out.parent.iterdir())


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr(write, "step_hook", seen.append)
    return seen


@pytest.fixture
def umask() -> Iterator[None]:
    """A strict umask for the test (0o077), the previous one back after it."""
    previous = os.umask(0o077)
    yield
    os.umask(previous)


@pytest.fixture
def user_tree(tmp_path: Path) -> tuple[Path, Tree]:
    """An output folder with a generated file, a user's file, link, private folder and empty folder."""
    out = tmp_path / "pkg"
    (out / "gen").mkdir(parents=True)
    (out / "gen" / "old.py").write_text("old\n")
    (out / "mine.txt").write_text("mine\n")
    os.chmod(out / "mine.txt", 0o640)
    os.symlink("mine.txt", out / "link")
    (out / "private").mkdir(mode=0o700)
    (out / "private" / "notes").write_text("n\n")
    os.chmod(out / "private", 0o700)
    (out / "empty").mkdir()
    keep = Tree(
        {"gen/old.py": "file", "mine.txt": "file", "link": "link", "private/notes": "file"},
        {"gen", "private", "empty"},
    )
    return out, keep


def test_a_first_write_makes_the_parents_and_takes_the_umask(tmp_path: Path, steps: list[str], umask: None) -> None:
    out = tmp_path / "a" / "b" / "pkg"
    write.write_tree(out, {"x.py": "x\n", "sub/y.py": "y\n"}, Tree(), set())
    assert (out / "sub" / "y.py").read_text() == "y\n"
    assert (mode(out), mode(out / "sub"), mode(out / "x.py")) == (0o700, 0o700, 0o600)
    assert os.umask(0o077) == 0o077  # left as it was
    assert steps == ["mkdir", "write sub/y.py", "write x.py", "rename"]
    assert beside(out) == ["pkg"]


def test_with_the_usual_umask_folders_are_755_and_files_644(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write.write_tree(tmp_path / "pkg", {"x.py": "x\n"}, Tree(), set())
    finally:
        os.umask(previous)
    assert (mode(tmp_path / "pkg"), mode(tmp_path / "pkg" / "x.py")) == (0o755, 0o644)


def test_a_rewrite_links_the_users_entries_and_keeps_their_modes(
    user_tree: tuple[Path, Tree], steps: list[str]
) -> None:
    out, keep = user_tree
    os.chmod(out, 0o750)
    inode = os.lstat(out / "mine.txt").st_ino
    write.write_tree(out, {"gen/new.py": "new\n"}, keep, {"gen/old.py"})
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "empty",
        "gen",
        "gen/new.py",
        "link",
        "mine.txt",
        "private",
        "private/notes",
    ]
    assert os.lstat(out / "mine.txt").st_ino == inode and mode(out / "mine.txt") == 0o640
    assert os.readlink(out / "link") == "mine.txt"
    assert (mode(out), mode(out / "private")) == (0o750, 0o700)
    assert steps[0] == "mkdir" and steps[-2:] == ["swap", "cleanup"]
    assert sorted(s for s in steps if s.startswith(("link", "write"))) == [
        "link link",
        "link mine.txt",
        "link private/notes",
        "write gen/new.py",
    ]
    assert beside(out) == ["pkg"]


def test_a_folder_emptied_of_mcpgens_files_goes_and_an_empty_user_folder_stays(user_tree: tuple[Path, Tree]) -> None:
    out, keep = user_tree
    write.write_tree(out, {"x.py": "x\n"}, keep, {"gen/old.py"})
    assert not (out / "gen").exists()
    assert (out / "empty").is_dir()


def test_the_next_write_clears_what_a_killed_one_left(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    write.write_tree(out, {"x.py": "1\n"}, Tree(), set())
    left = tmp_path / (write._prefix("pkg") + "new-killed")
    (left / "half").mkdir(parents=True)
    write.write_tree(out, {"x.py": "2\n"}, Tree({"x.py": "file"}, set()), set())
    assert beside(out) == ["pkg"] and (out / "x.py").read_text() == "2\n"


def test_write_atomic_replaces_the_folder_with_exactly_the_files(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    write.write_tree(out, {"stale.py": "s\n"}, Tree(), set())
    write.write_atomic(FileSet({"x.py": "x\n"}), out)
    assert sorted(p.name for p in out.iterdir()) == ["x.py"]


@pytest.fixture
def no_exchange(monkeypatch: pytest.MonkeyPatch) -> None:
    """A system without renameat2's exchange: the two-rename swap."""
    monkeypatch.setattr(write, "_exchange", lambda a, b: False)


def test_the_two_rename_swap_leaves_the_new_tree_and_nothing_beside(
    user_tree: tuple[Path, Tree], steps: list[str], no_exchange: None
) -> None:
    out, keep = user_tree
    write.write_tree(out, {"gen/new.py": "new\n"}, keep, {"gen/old.py"})
    assert (out / "gen" / "new.py").read_text() == "new\n" and (out / "mine.txt").read_text() == "mine\n"
    assert steps[-3:] == ["swap", "swap-2", "cleanup"]
    assert beside(out) == ["pkg"]


def test_an_error_between_the_two_renames_puts_the_old_tree_back(
    user_tree: tuple[Path, Tree], monkeypatch: pytest.MonkeyPatch, no_exchange: None
) -> None:
    out, keep = user_tree
    real_rename = os.rename

    def rename(src: Any, dst: Any) -> None:
        if Path(dst) == out and write._prefix("pkg") + "new-" in Path(src).name:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_rename(src, dst)

    monkeypatch.setattr(write.os, "rename", rename)
    with pytest.raises(OSError, match="No space left on device"):
        write.write_tree(out, {"gen/new.py": "new\n"}, keep, {"gen/old.py"})
    monkeypatch.undo()
    assert (out / "gen" / "old.py").read_text() == "old\n" and not (out / "gen" / "new.py").exists()
    assert beside(out) == ["pkg"]


def link_refused(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def link(src: Any, dst: Any, **kw: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(write.os, "link", link)


@pytest.mark.parametrize("code", [errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP])
def test_where_a_hard_link_is_refused_the_users_file_is_copied_with_its_mode(
    user_tree: tuple[Path, Tree], monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    out, keep = user_tree
    inode = os.lstat(out / "mine.txt").st_ino
    link_refused(monkeypatch, code)
    write.write_tree(out, {"x.py": "x\n"}, keep, {"gen/old.py"})
    assert (out / "mine.txt").read_text() == "mine\n" and mode(out / "mine.txt") == 0o640
    assert os.lstat(out / "mine.txt").st_ino != inode


def test_another_link_error_or_an_entry_that_is_no_file_stops_the_write(
    user_tree: tuple[Path, Tree], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, keep = user_tree
    link_refused(monkeypatch, errno.EACCES)
    with pytest.raises(PermissionError, match="Permission denied"):
        write.write_tree(out, {"x.py": "x\n"}, keep, set())
    os.mkfifo(out / "fifo")
    link_refused(monkeypatch, errno.EXDEV)
    with pytest.raises(OSError, match="Invalid cross-device link"):
        write.write_tree(out, {"x.py": "x\n"}, Tree({"fifo": "other"}, set()), set())
    monkeypatch.undo()
    assert (out / "gen" / "old.py").read_text() == "old\n" and beside(out) == ["pkg"]


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="renameat2 is Linux's")
def test_the_exchange_swaps_two_folders_and_says_why_it_cannot(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "in-a").touch()
    (tmp_path / "b").mkdir()
    assert write._exchange(tmp_path / "a", tmp_path / "b")
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["in-a"]
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        write._exchange(tmp_path / "a", tmp_path / "missing")


def _two_folders(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "in-a").touch()
    (tmp_path / "b").mkdir()
    return tmp_path / "a", tmp_path / "b"


def _untouched(a: Path, b: Path) -> bool:
    return [p.name for p in a.iterdir()] == ["in-a"] and list(b.iterdir()) == []


def test_the_exchange_is_not_tried_off_linux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _two_folders(tmp_path)
    darwin = os.uname_result(("Darwin", "host", "23.0", "v", "arm64"))
    monkeypatch.setattr(os, "uname", lambda: darwin)
    assert write._exchange(a, b) is False  # unsupported: the caller takes the two renames
    assert _untouched(a, b)
    monkeypatch.delattr(os, "uname")  # (a system without uname at all)
    assert write._exchange(a, b) is False
    assert _untouched(a, b)


class _Renameat2:
    """renameat2 as ctypes shows it, failing with `errno` (ctypes' copy of it, which `_exchange` reads)."""

    argtypes: object = None
    restype: object = None

    def __init__(self, errno_: int) -> None:
        self.errno = errno_

    def __call__(self, *args: object) -> int:
        import ctypes

        ctypes.set_errno(self.errno)
        return -1


class _Libc:
    """A C library as ctypes shows it: with or without renameat2."""

    def __init__(self, errno_: int | None) -> None:
        if errno_ is not None:
            self.renameat2 = _Renameat2(errno_)


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="renameat2 is Linux's")
@pytest.mark.parametrize("libc", [_Libc(None), _Libc(errno.ENOSYS), _Libc(errno.EINVAL), _Libc(errno.ENOTSUP)])
def test_the_exchange_says_unsupported_where_libc_or_the_kernel_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, libc: _Libc
) -> None:
    import ctypes

    a, b = _two_folders(tmp_path)
    monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: libc)
    assert write._exchange(a, b) is False
    assert _untouched(a, b)


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="renameat2 is Linux's")
def test_the_exchange_of_relative_paths_is_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_folders(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert write._exchange(Path("a"), Path("b"))
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["in-a"]


@pytest.mark.parametrize("refused", [False, True], ids=["linked", "copied"])
def test_a_users_file_swapped_for_a_link_after_the_walk_is_carried_as_that_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: bool
) -> None:
    # The walk saw a file; a link to a file outside stands there when the tree is built. Neither the
    # hard link nor the copy follows it: the outside file's bytes or inode never enter the folder.
    outside = tmp_path / "secret"
    outside.write_text("secret\n")
    out = tmp_path / "pkg"
    out.mkdir()
    os.symlink(outside, out / "mine.txt")
    if refused:
        link_refused(monkeypatch, errno.EXDEV)
    write.write_tree(out, {"x.py": "x\n"}, Tree({"mine.txt": "file"}, set()), set())
    assert os.readlink(out / "mine.txt") == str(outside)
    assert os.lstat(out / "mine.txt").st_ino != os.lstat(outside).st_ino
    assert outside.read_text() == "secret\n" and os.lstat(outside).st_nlink == 1


def test_a_users_empty_folder_keeps_the_folder_around_it_that_held_only_mcpgens_files(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    (out / "a" / "b" / "mine").mkdir(parents=True)
    (out / "a" / "b" / "gen.py").write_text("old\n")
    os.chmod(out / "a" / "b", 0o750)
    keep = Tree({"a/b/gen.py": "file"}, {"a", "a/b", "a/b/mine"})
    write.write_tree(out, {"x.py": "x\n"}, keep, {"a/b/gen.py"})
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == ["a", "a/b", "a/b/mine", "x.py"]
    assert mode(out / "a" / "b") == 0o750
