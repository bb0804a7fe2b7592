"""Writing a generated package: the output folder holds the complete old tree or the complete
new tree at every instant, byte for byte, whatever happens (Ctrl-C, SIGKILL, a full disk).

The new tree is built whole in a dot-named folder beside the output folder: the generated files
are written there, and every entry of the user's (a file mcpgen did not write, a link, a folder)
is hard-linked into it, so the user's files keep their inode, bytes and mode. Then the two
folders are swapped in one step: on Linux `renameat2(RENAME_EXCHANGE)`. The old tree, now under
the dot-name, is removed. A run that was killed leaves only dot-named folders, which the next
run removes.

Where the exchange is not available (other systems, file systems without it) two renames do the
swap: the old tree moves to a dot-name, the new tree into place. A kill between the two leaves
the output folder missing for that instant; the next run moves the old tree back before
anything else. Nothing is ever written inside the existing output folder, so no link inside
it can send a write elsewhere; a symlinked output folder stays a link and mcpgen writes into
the folder it points to.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .ownership import TEMP_MARK, Tree

if TYPE_CHECKING:
    from ..render.files import FileSet

# Tests set this to interrupt a write at a given step (kill, Ctrl-C or a full disk).
step_hook: Callable[[str], None] | None = None


def _step(what: str) -> None:
    if step_hook is not None:
        step_hook(what)


def _prefix(name: str) -> str:
    return f".{name}{TEMP_MARK}"


def recover(real: Path) -> None:
    """Undo what a killed run left beside `real`: move an old tree back if `real` is missing,
    and remove the dot-named temporary folders."""
    parent = real.parent
    if not parent.is_dir():
        return
    prefix = _prefix(real.name)
    left = sorted(e for e in os.listdir(parent) if e.startswith(prefix))
    if not left:
        return
    olds = [e for e in left if e.startswith(prefix + "old-")]
    if not os.path.lexists(real) and len(olds) == 1:
        os.rename(parent / olds[0], real)  # the two-rename swap was cut between its renames
    for entry in left:
        # rmtree refuses a link (never following it), a file and a name moved back just above;
        # ignore_errors leaves them: only folders are removed.
        shutil.rmtree(parent / entry, ignore_errors=True)


def write_tree(target: Path, files: Mapping[str, str], keep: Tree, drop: set[str]) -> None:
    """Make `target` hold exactly `files` plus every entry of `keep` (the folder as it is) but
    those in `drop` and those `files` replaces; see the module docstring for how."""
    real = Path(os.path.realpath(target))
    real.parent.mkdir(parents=True, exist_ok=True)
    recover(real)
    new = Path(tempfile.mkdtemp(prefix=_prefix(real.name) + "new-", dir=real.parent))
    try:
        _step("mkdir")
        _build(real, new, files, keep, drop)
        if not real.is_dir():
            _step("rename")
            os.rename(new, real)
            return
        _step("swap")
        if not _exchange(new, real):
            aside = real.parent / new.name.replace(_prefix(real.name) + "new-", _prefix(real.name) + "old-")
            os.rename(real, aside)
            try:
                _step("swap-2")
                os.rename(new, real)
            except BaseException:
                os.rename(aside, real)  # Ctrl-C or an error between the two: the old tree back
                raise
            os.rename(aside, new)
        _step("cleanup")
    finally:
        # Before the swap this is the unfinished new tree; after it, the old one.
        shutil.rmtree(new, ignore_errors=True)


def _build(real: Path, new: Path, files: Mapping[str, str], keep: Tree, drop: set[str]) -> None:
    """The complete new tree in `new`: the user's entries linked, the generated files written."""
    try:
        os.chmod(new, stat.S_IMODE(real.stat().st_mode) if real.is_dir() else 0o777 & ~_umask())
    except OSError:
        pass
    kept = {rel: kind for rel, kind in keep.files.items() if rel not in drop and rel not in files}
    full = set(kept) | set(files)
    holds, had = _folders_of(full), _folders_of(keep.files)
    # Folders that still hold something, the user's folders that held no file at all, and the
    # folders on the way to those (one that held only mcpgen's files stays for a user's folder).
    users = {d for d in keep.dirs if d not in had}
    for rel in sorted(holds | users | _folders_of(users)):
        os.mkdir(new / rel)  # parents sort first: each folder's parent is made before it
        if rel in keep.dirs:
            with contextlib.suppress(OSError):
                os.chmod(new / rel, stat.S_IMODE(os.lstat(real / rel).st_mode))
    for rel, kind in sorted(kept.items()):
        _step(f"link {rel}")
        if kind == "link":
            os.symlink(os.readlink(real / rel), new / rel)
            continue
        try:
            os.link(real / rel, new / rel, follow_symlinks=False)
        except OSError as exc:
            if kind != "file" or exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP):
                raise
            shutil.copy2(real / rel, new / rel, follow_symlinks=False)
    for rel, text in sorted(files.items()):
        _step(f"write {rel}")
        # O_EXCL refuses any name that is there, a link too (it is not followed, POSIX open).
        fd = os.open(new / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def _folders_of(rels: Iterable[str]) -> set[str]:
    """Every folder on the way to each of `rels` (posix relative paths), the paths themselves not."""
    return {"/".join(rel.split("/")[:i]) for rel in rels for i in range(1, rel.count("/") + 1)}


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    fn.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]  # returns int: the default
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def write_atomic(fs: FileSet, target: Path) -> None:
    """Replace the folder `target` with exactly the files of `fs`, in one step (as above)."""
    write_tree(target, fs.files, Tree(), set())
