"""`--runtime vendor` copies the closure, by import, of what the package imports of the runtime
(render/vendor.py): the copy imports nothing outside itself, holds nothing it does not reach, and
states what it needs installed. A client copies the client side, a server the server side."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # (mcpgen admits 3.10, where tomli stands in)
    import tomli as tomllib

import pytest

from mcpgen.cli import main
from mcpgen.render.vendor import RUNTIME_DISTRIBUTION, closure, entries_of, requirements_of

REPO = Path(__file__).resolve().parents[2]
GOLDEN_INPUTS = REPO / "tests" / "golden" / "inputs"


@pytest.fixture(scope="module", params=["client", "server"])
def vendored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    kind: str = request.param
    out = tmp_path_factory.mktemp("vendor") / f"vendored_{kind}"
    try:
        main([kind, str(GOLDEN_INPUTS / "everything.raw.json"), "-o", str(out), "--runtime", "vendor", "-q"])
    except SystemExit as ended:  # mcpgen always answers with an exit status, 0 included
        assert ended.code == 0, ended.code
    else:
        raise AssertionError("mcpgen returned without an exit status")
    return kind, out


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _relative_targets(path: Path, root: Path) -> set[str]:
    """Every module a file's relative imports name, as dotted paths from the package's root."""
    package = list(path.relative_to(root).parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join(base + (node.module.split(".") if node.module else []))
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return found


def _absolute_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names)


def test_the_copy_imports_nothing_outside_itself(vendored: tuple[str, Path]) -> None:
    _, out = vendored
    modules = {_module_of(p, out) for p in out.rglob("*.py")}
    packages = {m.rsplit(".", 1)[0] for m in modules if "." in m} | {""}
    for path in (out / "_runtime").rglob("*.py"):
        for target in _relative_targets(path, out):
            # A name imported from a module is an attribute, not a module: only modules must exist.
            is_module = target in modules or target in packages
            assert is_module or target.rsplit(".", 1)[0] in modules, (path, target)
            assert target.startswith("_runtime"), (path, target)


def test_every_copied_module_is_reached_by_an_import(vendored: tuple[str, Path]) -> None:
    # Minimal: a module nothing of the package (copy included) imports would not be copied.
    _, out = vendored
    reached = set().union(*(_relative_targets(p, out) for p in out.rglob("*.py")))
    for path in (out / "_runtime").rglob("*.py"):
        module = _module_of(path, out)
        if path.name == "__init__.py":
            continue  # run because a module below it is imported
        assert module in reached, module


def test_a_client_copies_the_client_side_and_a_server_the_server_side(vendored: tuple[str, Path]) -> None:
    kind, out = vendored
    copied = {p.relative_to(out / "_runtime").as_posix() for p in (out / "_runtime").rglob("*.py")}
    assert {"core/jsonrpc.py", "support/models.py"} <= copied
    if kind == "client":
        assert {"support/client.py", "client/session.py", "transports/http_client.py"} <= copied
        assert not {p for p in copied if p.startswith(("server/", "client/auth/"))}
        assert "support/server.py" not in copied
    else:
        assert {"support/server.py", "server/server.py", "server/http/serving.py", "transports/stdio.py"} <= copied
        assert not {"client/session.py", "transports/http_client.py", "support/client.py"} & copied
        assert not {p for p in copied if p.startswith("client/auth/")}


def test_the_copy_states_its_run_time_requirements(vendored: tuple[str, Path]) -> None:
    kind, out = vendored
    stated = (out / "_runtime" / "__init__.py").read_text(encoding="utf-8")
    needed = set().union(*(_absolute_imports(p) for p in (out / "_runtime").rglob("*.py")))
    assert "mcpgen" not in needed
    assert "always: pydantic>=2.6, jsonschema>=4.20, google-re2>=1.1" in stated
    assert "`http` extra holds them: httpx>=0.27" in stated
    if kind == "client":
        assert needed >= {"httpx", "pydantic", "jsonschema", "re2"} and not needed & {"uvicorn", "joserfc", "redis"}
        assert "uvicorn" not in stated and "redis" not in stated and "joserfc" not in stated
    else:
        assert needed >= {"uvicorn", "joserfc", "redis"}
        assert "uvicorn>=0.30" in stated and "`redis` extra holds them: redis>=5.0" in stated


def test_requirements_come_from_the_runtime_distributions_metadata() -> None:
    found = requirements_of({"httpx", "re2", "authlib", "json"})
    assert found.base == ("google-re2>=1.1",)  # re2 is installed by google-re2; json is no distribution
    assert found.extras == {"http": ("httpx>=0.27",), "oauth": ("authlib>=1.3",)}
    assert RUNTIME_DISTRIBUTION == "mcpgen-runtime"


def test_the_closure_follows_imports_inside_functions_and_for_type_checkers() -> None:
    # connect_http imports the HTTP transport only when called; core.results' TYPE_CHECKING block.
    modules, third_party = closure(["client.connect"])
    assert "transports.http_client" in modules and "httpx" in third_party
    assert "" not in modules  # the front door (the public API, loading every part) is never copied
    assert entries_of({"a/b.py": "from .._runtime.support import client\nfrom . import c\n"}) == {
        "support",
        "support.client",
    }


def _pyright_directives(path: Path) -> set[str]:
    """The `# pyright: ...` comments of a file (each directive, as written after the colon)."""
    return {
        line.split(":", 1)[1].strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("# pyright:")
    }


def test_the_copy_is_checked_as_strictly_as_the_runtime(vendored: tuple[str, Path]) -> None:
    # No rule relaxed at all: not in the runtime's own pyright check ([tool.pyright] in
    # pyproject.toml, strict mode, no `report...` setting), not in any copied file (no
    # `# pyright:` comment), so a user's pyright sees the copy as the runtime's check does.
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pyright"]
    assert config["typeCheckingMode"] == "strict"
    assert [rule for rule in config if rule.startswith("report")] == []
    _, out = vendored
    copied = sorted((out / "_runtime").rglob("*.py"))
    assert len(copied) > 20
    for path in copied:
        assert _pyright_directives(path) == set(), path
