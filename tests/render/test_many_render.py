"""A package for many servers rendered from catalogs in memory: namespaces that shadow the
modules and helpers the generated client uses still make valid, typed code."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from generation import importable, tool

from mcpgen.generate import generate_many
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.sources.files import catalog_from_document

REPO = Path(__file__).resolve().parents[2]
# Names the generated client.py itself uses for modules and helpers.
AWKWARD_SERVERS = ["os", "contextlib", "config path", "cast", "Any", "connect", "class", "time"]


def _generate(root: Path) -> str:
    catalogs = {}
    for server in AWKWARD_SERVERS:
        catalog, problems = catalog_from_document(
            {"tools": [tool("create_issue"), tool(f"only_{len(server)}")]}, server
        )
        assert catalog is not None, problems
        catalogs[server] = catalog
    files, many = generate_many(catalogs, ClientOptions(), config_file="../mcp.json")
    package = f"many_{uuid.uuid4().hex[:8]}"
    write_atomic(files, root / package)
    assert [s.server for s in many.servers] == sorted(AWKWARD_SERVERS)
    return package


def test_shadowing_namespaces_import_and_resolve(tmp_path: Path) -> None:
    package = _generate(tmp_path)
    with importable(tmp_path, package):
        pkg = importlib.import_module(package)
        spaces = dict(pkg.SERVERS)
        assert spaces["os"] == "os" and spaces["config_path"] == "config path"
        assert spaces["connect_"] == "connect" and spaces["class_"] == "class"
        # The sync twin's namespaces are properties; connect stays the classmethod.
        assert isinstance(pkg.Client.__dict__["contextlib"], property)
        assert callable(pkg.Client.connect) and callable(pkg.AsyncClient.connect)
        assert set(pkg.AsyncClient.__annotations__) == set(spaces)
        assert sum(1 for c in pkg.COLLISIONS if "'create_issue' is offered by 8 servers" in c) == 1


@pytest.mark.slow
def test_shadowing_namespaces_pass_mypy_strict(tmp_path: Path) -> None:
    package = _generate(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11", package],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
