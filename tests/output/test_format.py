"""Generated Python goes through ruff's formatter: black's style at line length 100, whatever
the user's own ruff settings say; a file it cannot parse, a missing or hung ruff are each one
line naming what failed, and the output folder is not touched."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mcpgen.catalog.model import Problem
from mcpgen.cli import main
from mcpgen.output import formatter
from mcpgen.output.formatter import format_files
from mcpgen.render.files import FileSet

MESSY = "import os\ndef f(a,b = 1):\n  return {'a':a,   'b':b}\nclass C:\n\n    x=1\n"
TIDY = 'import os\n\n\ndef f(a, b=1):\n    return {"a": a, "b": b}\n\n\nclass C:\n    x = 1\n'
# 99 characters fit on a line of 100; the call below is 104 long, so it is split.
FITS = "value = some_function(" + ", ".join(["argument_x"] * 6) + ", arg)\n"
WIDE = "value = some_function(" + ", ".join(["argument_x"] * 7) + ")\n"


def formatted(texts: dict[str, str]) -> tuple[dict[str, str], list[Problem]]:
    fs = FileSet()
    for path, text in texts.items():
        fs.add(path, text)
    problems = format_files(fs)
    return fs.files, problems


def test_black_style_at_line_length_100() -> None:
    out, problems = formatted({"a.py": MESSY, "pkg/b.py": FITS, "pkg/c.py": WIDE, "notes.md": MESSY})
    assert problems == []
    assert out["a.py"] == TIDY
    assert len(FITS) - 1 <= 100 and out["pkg/b.py"] == FITS
    assert len(WIDE) - 1 > 100 and out["pkg/c.py"].count("\n") > 1
    assert out["notes.md"] == MESSY  # not Python: left as it is


def test_verbatim_files_are_left_as_they_are() -> None:
    fs = FileSet()
    fs.add("_runtime/copied.py", MESSY, format=False)
    fs.add("a.py", MESSY)
    assert format_files(fs) == []
    assert fs.files == {"_runtime/copied.py": MESSY, "a.py": TIDY}


def test_the_users_configuration_and_environment_do_not_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = '[tool.ruff]\nline-length = 20\n[tool.ruff.format]\nquote-style = "single"\nindent-style = "tab"\n'
    (tmp_path / "pyproject.toml").write_text(settings)
    (tmp_path / "ruff.toml").write_text(settings.replace("tool.ruff.", "").replace("[tool.ruff]\n", ""))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUFF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RUFF_OUTPUT_FORMAT", "json")
    out, problems = formatted({"a.py": MESSY, "b.py": FITS})
    assert problems == []
    assert out == {"a.py": TIDY, "b.py": FITS}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml", "ruff.toml"]  # no cache written


def test_a_file_that_does_not_parse_is_one_problem_naming_it() -> None:
    fs = FileSet()
    fs.add("a.py", MESSY)
    fs.add("stub/broken.py", "def (:\n    pass\n")
    problems = format_files(fs)
    assert [p.where for p in problems] == ["stub/broken.py"]
    assert problems[0].message.startswith("generated code does not format: ")
    assert "\n" not in str(problems[0])
    assert fs.files["a.py"] == MESSY  # nothing is taken from a failed run


def test_ruff_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ruff.__main__", None)  # `from ruff.__main__ import ...` fails
    problems = formatted({"a.py": MESSY})[1]
    assert [p.where for p in problems] == ["ruff"] and "not installed" in problems[0].message


def test_ruff_package_without_its_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    import ruff.__main__

    def missing() -> str:
        raise FileNotFoundError("ruff")

    monkeypatch.setattr(ruff.__main__, "find_ruff_bin", missing)
    problems = formatted({"a.py": MESSY})[1]
    assert [p.where for p in problems] == ["ruff"] and "executable" in problems[0].message


def fake_ruff(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "ruff"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(formatter, "ruff_binary", lambda: str(script))


def test_a_hung_ruff_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_ruff(tmp_path, "exec sleep 30", monkeypatch)
    monkeypatch.setattr(formatter, "FORMAT_TIMEOUT_S", 0.5)
    problems = formatted({"a.py": MESSY})[1]
    assert [str(p) for p in problems] == ["ruff: ruff format did not finish in 0.5 s"]


def test_a_failing_ruff_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_ruff(tmp_path, "echo 'error: something broke' >&2\necho 'second line' >&2\nexit 2", monkeypatch)
    problems = formatted({"a.py": MESSY})[1]
    assert [str(p) for p in problems] == ["ruff: ruff format failed: error: something broke"]


def test_a_ruff_that_cannot_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formatter, "ruff_binary", lambda: str(tmp_path / "nowhere" / "ruff"))
    problems = formatted({"a.py": MESSY})[1]
    assert [p.where for p in problems] == ["ruff"] and "cannot run" in problems[0].message


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_without_ruff_generation_fails_in_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
    src = tmp_path / "tools.json"
    src.write_text(json.dumps({"tools": [tool]}))
    out = tmp_path / "echo_client"
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["client", str(src), "-o", str(out)])
    assert ei.value.code == 0
    before = tree(out)
    tool["description"] = "Now described."
    src.write_text(json.dumps({"tools": [tool]}))
    capsys.readouterr()
    monkeypatch.setattr(formatter, "ruff_binary", lambda: Problem("ruff", "the ruff formatter is not installed"))
    with pytest.raises(SystemExit, match=r"^2$") as ei:
        main(["client", str(src), "-o", str(out)])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if "error" in line] == [
        "mcpgen: error: ruff: the ruff formatter is not installed"
    ]
    assert tree(out) == before
    assert not any(name.startswith(".") and name != ".mcpgen-manifest.json" for name in os.listdir(out))
