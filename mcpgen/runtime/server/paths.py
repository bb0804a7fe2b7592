"""The one rule of a path a user's settings name relative to a folder: `[tool.mcpgen]`'s
`output`, `source`, `config`, `templates` (relative to the project, the folder of pyproject.toml),
a server target's `skills-dir` (relative to the package), and an MCP Apps page's `ui://` path
(relative to the package's `ui/`, in `tool-ui` and in handlers.py's TOOL_UI alike, since it is a
name served to clients). A path in handlers.py's code (SKILLS_DIR) is the programmer's, as the
rest of that code is: it may name any folder.

The rule, in two halves held here:

- `relative_path_problem` (lexical, when the setting is read: `mcpgen generate` for
  [tool.mcpgen], the server's start for handlers.py): a non-empty printable string (no NUL, no
  control character) of at most `MAX_PATH_CHARS`, relative (no leading `/`, no drive, no UNC
  share, no `~`), `/`-separated (no backslash), and no `..`, `.` or empty segment (a folder's
  one trailing `/` aside). So it names something inside its folder whatever that folder is: no
  `..` at all, even one that would come back (`skills/../shared`), since a rule that resolves
  paths to decide would depend on the disk at the time it is checked. Absolute paths are
  refused too: a project's config names its own files; an outside one is reached by `url` or
  `command`, or from a project that holds it.
- `path_inside` (when the path is used): no step of it below the folder is a symbolic link, so
  it cannot resolve outside the folder either (a link the user put there, or one put since).

Breaking either is a one-line reason: a Problem of `mcpgen generate` (exit 1), or a
ServerSetupError when the server starts.
"""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

MAX_PATH_CHARS = 500


def relative_path_problem(value: object) -> str | None:
    """Why `value` breaks the rule above (a phrase to follow the setting's name), or None."""
    if not isinstance(value, str) or not value:
        return f"must be a non-empty path, not {value!r:.80}"
    if len(value) > MAX_PATH_CHARS or not value.isprintable():
        return f"must be a printable path of at most {MAX_PATH_CHARS} characters"
    if value.startswith(("/", "~")) or "\\" in value or PureWindowsPath(value).drive:
        return f"must be a relative path with '/' separators (no '/', '~' or drive first), not {value!r:.120}"
    if any(part in ("", ".", "..") for part in value.removesuffix("/").split("/")):
        return f"must stay inside its folder (no '..', '.' or empty segment), not {value!r:.120}"
    return None


def path_inside(folder: Path, relative: str) -> Path:
    """`folder / relative` (which `relative_path_problem` passed), every step below `folder` a
    real file or folder: ValueError naming the first symbolic link on the way."""
    path = folder
    for step in relative.removesuffix("/").split("/"):
        path = path / step
        if path.is_symlink():
            shown = path.relative_to(folder).as_posix()
            raise ValueError(f"{shown!s:.120} is a link; paths are followed through real files and folders only")
    return path


__all__ = ["MAX_PATH_CHARS", "path_inside", "relative_path_problem"]
