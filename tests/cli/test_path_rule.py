"""The one rule of a path a user's settings name (mcpgen/runtime/server/paths.py), held over every
option that names one: [tool.mcpgen]'s `output`, `source` (one or a list), `config`, `templates`
and `skills-dir` (and `tool-ui`'s ui:// paths, which handlers.py's TOOL_UI holds too, in
tests/functional/server/test_apps_ui.py) when the project is read. Each hostile value is one
Problem naming its key, and `mcpgen generate` exits non-zero with that one line, writing
nothing. (handlers.py's SKILLS_DIR is the programmer's code, not a config: it may name any
folder, as examples/conformance's `../skills` does.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.config import load_project
from mcpgen.runtime.server.apps_ui import ui_uri_problem
from mcpgen.runtime.server.paths import MAX_PATH_CHARS, path_inside, relative_path_problem

SOURCE = '{"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}'
# What every option refuses; each a TOML basic string's content (escapes as TOML reads them).
HOSTILE = {
    "..": "must stay inside its folder",
    "../outside": "must stay inside its folder",
    "a/../../outside": "must stay inside its folder",
    "a/../b": "must stay inside its folder",  # even a `..` that comes back in
    "./a": "must stay inside its folder",
    "a//b": "must stay inside its folder",
    "/etc/passwd": "must be a relative path",
    "~/.ssh/id_rsa": "must be a relative path",
    "C:\\\\Windows": "must be a relative path",
    "C:relative": "must be a relative path",
    "\\\\\\\\server\\\\share": "must be a relative path",
    "a\\\\..\\\\..\\\\b": "must be a relative path",
    "a\\u0000b": "must be a printable path",
    "a\\nb": "must be a printable path",
    "a/" * 300 + "b": "must be a printable path of at most 500",
    "": "must be a non-empty path",
}
OPTIONS = {
    "output": 'source = "s.json"\noutput = {v}',
    "source": 'source = {v}\noutput = "out"',
    "source-list": 'source = ["s.json", {v}]\noutput = "out"',
    "config": 'config = {v}\nserver = "x"\noutput = "out"',
    "templates": 'source = "s.json"\noutput = "out"\ntemplates = {v}',
    "skills-dir": 'source = "s.json"\noutput = "out"\nskills-dir = {v}',
}


def project(root: Path, option: str, value: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "s.json").write_text(SOURCE, encoding="utf-8")
    body = OPTIONS[option].format(v=f'"{value}"')
    (root / "pyproject.toml").write_text(f'[tool.mcpgen.targets.t]\nkind = "server"\n{body}\n', encoding="utf-8")
    return root


def problems_of(root: Path) -> list[str]:
    _, problems = load_project(root, environ={})
    return [p.message for p in problems]


@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("value", sorted(HOSTILE))
def test_every_option_refuses_every_hostile_path(tmp_path: Path, option: str, value: str) -> None:
    messages = problems_of(project(tmp_path, option, value))
    key = "source" if option == "source-list" else option
    why = "is required" if (option, value) == ("output", "") else HOSTILE[value]  # (no output at all)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"{key!r} ") and why in messages[0], messages
    assert "\n" not in messages[0] and "\0" not in messages[0]


@pytest.mark.parametrize("option", sorted(set(OPTIONS) - {"skills-dir"}))
def test_a_link_out_of_the_project_is_refused(tmp_path: Path, option: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "s.json").write_text(SOURCE, encoding="utf-8")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "link").symlink_to(outside)
    messages = problems_of(project(root, option, "link/s.json"))
    key = "source" if option == "source-list" else option
    assert messages == [
        f"{key!r} must stay inside the project: link is a link; paths are followed through real files and folders only"
    ]


def test_good_paths_pass_and_a_folders_trailing_slash_is_kept_out() -> None:
    for good in ("out", "src/weather_client", "schemas/", "a.b/c-d_e", "é/ü"):
        assert relative_path_problem(good) is None, good
    assert relative_path_problem("a" * MAX_PATH_CHARS) is None
    assert relative_path_problem("a" * (MAX_PATH_CHARS + 1)) is not None
    for bad in (None, 3, b"out", ["out"]):
        assert relative_path_problem(bad) == f"must be a non-empty path, not {bad!r}"


def test_the_ui_path_holds_the_same_rule() -> None:
    for value in HOSTILE:
        text = value.encode().decode("unicode_escape")  # as TOML would have read it
        if text and len(text) < 490:
            assert ui_uri_problem(f"ui://{text}") is not None, value
    assert ui_uri_problem("ui://app/") is not None  # a page is a file
    assert ui_uri_problem("ui://app/page.html") is None


def test_path_inside_names_the_first_link(tmp_path: Path) -> None:
    (tmp_path / "real/deeper").mkdir(parents=True)
    (tmp_path / "real/out").symlink_to(tmp_path.parent)
    assert path_inside(tmp_path, "real/deeper/x") == tmp_path / "real/deeper/x"  # need not exist
    with pytest.raises(ValueError, match=r"^real/out is a link; paths are followed through real"):
        path_inside(tmp_path, "real/out/x")


def test_mcpgen_generate_exits_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "output", "../escaped")
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "generate"], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if "must stay inside" in line]
    assert len(lines) == 1 and "'output'" in lines[0], done.stderr
    assert not (tmp_path / "escaped").exists() and not (root / "out").exists()
