"""`--project` (render/project.py): the output folder as an installable distribution, owned by
the manifest like every generated file; its untrusted inputs (the source's name and version)
never break the files they reach. Installing and running one: tests/distribution."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import cli_run

from mcpgen.config import parse_target
from mcpgen.options import ClientOptions, ProjectOptions, ServerOptions
from mcpgen.render.environment import runtime_requires
from mcpgen.render.project import DEFAULT_VERSION, ProjectFacts, dependencies
from mcpgen.render.vendor import Requirements

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOOLS = [
    {
        "name": "add",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    }
]


def _source(tmp_path: Path, server_info: dict[str, Any] | None = None) -> Path:
    doc: dict[str, Any] = {"tools": TOOLS}
    if server_info is not None:
        doc["serverInfo"] = server_info
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, out, err = cli_run(args, capsys)
    return code, out + err


def _pyproject(folder: Path) -> dict[str, Any]:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@pytest.mark.parametrize("kind", ["client", "server"])
def test_the_output_becomes_a_distribution_with_the_exact_runtime_requirement(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"weather-{kind}"
    source = _source(tmp_path, {"name": "weather", "version": "1.4.2"})
    assert _run([kind, str(source), "-o", str(out), "--project", "-q"], capsys)[0] == 0
    package = out / f"weather_{kind}"
    assert (package / "py.typed").is_file() and (package / "__init__.py").is_file()
    project = _pyproject(out)
    assert (project["name"], project["version"]) == (f"weather-{kind}", "1.4.2")  # the source's version
    assert project["dependencies"] == [f"mcpgen-runtime{runtime_requires()}"]  # a file source: no extra
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert (
        f"# weather-{kind}" in readme and "pip install ." in readme and f"mcpgen-runtime{runtime_requires()}" in readme
    )
    manifest = json.loads((out / ".mcpgen-manifest.json").read_text(encoding="utf-8"))
    assert {"pyproject.toml", "README.md", f"weather_{kind}/__init__.py"} <= set(manifest["files"])
    assert _run([kind, str(source), "-o", str(out), "--project", "--check"], capsys)[0] == 0


def test_a_scaffold_reports_the_projects_version_and_its_handlers_stay_the_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "calc"
    source = _source(tmp_path, {"name": "calc", "version": "1.0.0"})
    args = ["server", str(source), "-o", str(out), "--project", "--project-version", "3.2.1", "-q"]
    assert _run(args, capsys)[0] == 0
    assert 'SERVER_VERSION = "3.2.1"' in (out / "calc" / "_generated" / "tables.py").read_text(encoding="utf-8")
    assert _pyproject(out)["version"] == "3.2.1"
    wheel = tomllib.loads((out / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]
    assert wheel["targets"]["wheel"]["exclude"] == ["calc/test_calc_contract.py"]  # a test file, not the wheel's
    handlers = out / "calc" / "handlers.py"
    handlers.write_text(handlers.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    assert _run(args, capsys)[0] == 0
    assert handlers.read_text(encoding="utf-8").endswith("# mine\n")
    assert _run([*args, "--check"], capsys)[0] == 0  # the user's file is no part of the comparison


def test_check_reports_a_stale_pyproject(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calc"
    source = _source(tmp_path)
    assert _run(["client", str(source), "-o", str(out), "--project", "-q"], capsys)[0] == 0
    assert _project_version(out) == DEFAULT_VERSION  # no version in the source
    code, err = _run(
        ["client", str(source), "-o", str(out), "--project", "--project-version", "2.0", "--check"], capsys
    )
    assert code == 1 and "changed" in err and "pyproject.toml" in err and "README.md" not in err


def _project_version(out: Path) -> str:
    version: str = _pyproject(out)["version"]
    return version


def test_what_the_source_says_about_itself_never_breaks_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = {"name": 'x"\n[tool.evil]\nrun = "rm -rf /" <script>', "version": '1.0"\nevil = "yes'}
    out = tmp_path / "odd"
    assert _run(["client", str(_source(tmp_path, hostile)), "-o", str(out), "--project", "-q"], capsys)[0] == 0
    doc = tomllib.loads((out / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(doc) == {"build-system", "project", "tool"} and set(doc["tool"]) == {"hatch"}
    assert doc["project"]["version"] == DEFAULT_VERSION  # not a release version: not taken
    assert "\n" not in doc["project"]["description"] and "<" not in doc["project"]["description"]
    assert "<script>" not in (out / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--project-name", "no spaces please"], "--project-name: 'no spaces please' is not a distribution name"),
        (["--project-version", "latest"], "--project-version: 'latest' is not a release version"),
        (["--project-extra", "turbo"], "--project-extra: 'turbo' is not an extra of mcpgen-runtime"),
    ],
)
def test_a_bad_project_option_is_one_line_and_writes_nothing(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "calc"
    code, err = _run(["client", str(_source(tmp_path)), "-o", str(out), "--project", *args], capsys)
    assert code == 2 and message in err
    assert not out.exists()


def test_project_options_without_project_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["client", str(_source(tmp_path)), "-o", str(tmp_path / "c"), "--project-name", "c"], capsys)
    assert code == 2 and "apply with --project only" in err


def test_the_pyproject_keys_make_the_same_options(tmp_path: Path) -> None:
    raw = {"kind": "server", "source": "t.json", "output": "out", "project": True, "project-version": "1.2"}
    raw["project-extras"] = ["http"]
    target, problems = parse_target("t", raw, tmp_path, {}, "here")
    assert problems == [] and target is not None and isinstance(target.generator, ServerOptions)
    assert target.generator.project == ProjectOptions(None, "1.2", ("http",))
    target, problems = parse_target("t", {**raw, "kind": "client", "project": False}, tmp_path, {}, "here")
    assert target is None and sorted(p.message for p in problems) == [
        "'project-extras' applies with 'project = true' only",
        "'project-version' applies with 'project = true' only",
    ]
    assert ClientOptions().project is None


def test_dependencies_follow_the_one_rule() -> None:
    client = ProjectFacts("client", "c", "", http_source=True, live_source=True)
    assert dependencies(client, ("oauth",), ">=0.2,<0.3", None) == ["mcpgen-runtime[http,oauth]>=0.2,<0.3"]
    vendored = Requirements(("pydantic>=2.6",), {"http": ("httpx>=0.27",), "speed": ("msgspec>=0.19",)})
    assert dependencies(client, (), ">=0.2,<0.3", vendored) == ["pydantic>=2.6", "httpx>=0.27"]
