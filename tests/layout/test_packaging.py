"""Packaging metadata in the form current setuptools reads without deprecation warnings, and a
development install that type checkers can see."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def test_license_is_an_spdx_expression_with_its_file() -> None:
    doc = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = doc["project"]
    assert project["license"] == "MIT"  # a table here makes setuptools >= 77 warn on every build
    assert all((REPO / path).is_file() for path in project["license-files"])
    assert not any(c.startswith("License ::") for c in project.get("classifiers", []))  # (refused with SPDX)
    (setuptools,) = [r for r in doc["build-system"]["requires"] if r.startswith("setuptools")]
    match = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools)
    assert match and int(match.group(1)) >= 77, setuptools  # the first to read SPDX license strings


def test_make_installs_in_a_mode_type_checkers_follow() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in makefile.splitlines() if "pip install" in line and " -e " in line]
    assert installs and all("editable_mode=compat" in line for line in installs), installs


def _requirement_name(requirement: str) -> str:
    """The distribution a requirement names (`mcpgen-runtime[oauth]~=0.2` -> mcpgen-runtime)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return match.group(0).lower().replace("_", "-")


def test_the_generators_extras_name_the_runtimes_extras_instead_of_repeating_their_packages() -> None:
    # One source of truth for what generated code runs with: runtime/pyproject.toml. A package an
    # extra of the runtime lists may reach mcpgen's extras only through `mcpgen-runtime[...]`.
    mcpgen = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = tomllib.loads((REPO / "runtime" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime_extras = {_requirement_name(r) for rs in runtime["optional-dependencies"].values() for r in rs}
    runtime_extras -= {"mcpgen-runtime"} | {_requirement_name(r) for r in mcpgen["dependencies"]}
    assert {"authlib", "redis", "uvloop"} <= runtime_extras  # the walk reads what it should
    repeated = {
        f"{extra}: {r}"
        for extra, requirements in mcpgen["optional-dependencies"].items()
        for r in requirements
        if _requirement_name(r) in runtime_extras
    }
    assert repeated == set()
    for extra in ("oauth", "redis", "all"):
        assert any(r.startswith(f"mcpgen-runtime[{extra}") for r in mcpgen["optional-dependencies"][extra]), extra
