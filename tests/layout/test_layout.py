"""The architecture as rules a test can hold (docs/architecture.md describes them):

- no import cycles between mcpgen's modules, counting imports inside functions (only
  `if TYPE_CHECKING:` blocks are exempt);
- the runtime imports nothing from the generator;
- generated code imports only `mcpgen.runtime.support.*` from mcpgen (or its vendored copy).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from mcpgen.cli import main

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "mcpgen"
GOLDEN_INPUTS = REPO / "tests" / "golden" / "inputs"
# The only runtime modules generated code may import (a change here is a change of the contract
# between generated packages and the runtime: regenerate every example and golden copy).
SUPPORT_MODULES = {
    "mcpgen.runtime.support.client",
    "mcpgen.runtime.support.server",
    "mcpgen.runtime.support.models",
    "mcpgen.runtime.support.tools",
    "mcpgen.runtime.support.version",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, module: str) -> set[str]:
    """Every module `path` imports at run time (absolute names), wherever the import sits."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from . import x` / `from pkg import module` name modules too.
            found.update(f"{target}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        # An import of a package runs its __init__, so it is an edge to that module too.
        graph[name] = {m for m in _imports(path, name) if m in files and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = walk(node)
            if found:
                return found
    return None


def test_no_import_cycles() -> None:
    graph = _graph()
    assert len(graph) > 50, "the walk found mcpgen's modules"
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_runtime_never_imports_the_generator() -> None:
    offenders = {
        name: sorted(m for m in deps if not m.startswith("mcpgen.runtime"))
        for name, deps in _graph().items()
        if name.startswith("mcpgen.runtime")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, offenders
    for path in (PACKAGE / "runtime").rglob("*.py"):
        absolute = {m for m in _imports(path, _module_name(path)) if m.startswith("mcpgen") and m != "mcpgen.runtime"}
        text = path.read_text(encoding="utf-8")
        # Relative imports only: the vendored copy must work as PKG._runtime.
        assert "from mcpgen" not in text and "import mcpgen" not in text, path
        assert all(m.startswith("mcpgen.runtime") for m in absolute), (path, absolute)


def _runtime_imports(folder: Path, package: str) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        if "_runtime" in path.relative_to(folder).parts:
            continue
        module = ".".join([package, *path.relative_to(folder).with_suffix("").parts])
        if path.name == "__init__.py":
            module = module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "runtime" in node.module:
                name = node.module.lstrip(".")
                found.add(
                    "mcpgen." + name.removeprefix("mcpgen.").replace("_runtime", "runtime", 1)
                    if not name.startswith("mcpgen")
                    else name
                )
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("mcpgen"))
    return found


@pytest.mark.parametrize("kind", ["client", "server"])
@pytest.mark.parametrize("runtime", ["import", "vendor"])
def test_generated_code_imports_only_the_support_modules(
    kind: str, runtime: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"pinned_{kind}"
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main([kind, str(GOLDEN_INPUTS / "everything.raw.json"), "-o", str(out), "--runtime", runtime])
    assert ei.value.code == 0, capsys.readouterr().err
    used = _runtime_imports(out, out.name)
    assert used, "the package imports the runtime somewhere"
    assert used <= SUPPORT_MODULES, used - SUPPORT_MODULES
    if runtime == "vendor":
        for path in out.rglob("*.py"):  # nothing reaches for an installed mcpgen
            text = path.read_text(encoding="utf-8")
            assert "from mcpgen" not in text and "import mcpgen" not in text, path
        for module in used:  # the vendored copy holds what the package imports
            assert (out / "_runtime" / Path(*module.split(".")[2:])).with_suffix(".py").is_file(), module


def test_every_support_module_is_a_pure_re_export() -> None:
    """support/ holds names, not behaviour: moving the runtime around never changes generated code."""
    for path in (PACKAGE / "runtime" / "support").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            assert isinstance(node, (ast.ImportFrom, ast.Assign, ast.Expr)), (path.name, ast.dump(node)[:80])
    assert json.dumps(sorted(SUPPORT_MODULES))  # listed once, here


def test_every_package_ships() -> None:
    """pyproject.toml lists packages by hand (templates/ maps into mcpgen.templates): none forgotten."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    # mcpgen.runtime ships in its own distribution, mcpgen-runtime (runtime/pyproject.toml), only.
    runtime = set(tomllib.loads((REPO / "runtime" / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert {p for p in found if p.startswith("mcpgen.runtime")} == runtime
    assert found - runtime <= listed, sorted(found - runtime - listed)
    assert not listed & runtime


def test_what_the_output_depends_on_byte_for_byte_is_pinned() -> None:
    """Goldens and --check compare ruff's formatter output byte for byte: ruff is pinned exactly
    (one pin: the test extra's ruff is the same), the installed ruff is that pin, mcpgen itself
    no longer depends on black, and datamodel-code-generator stays inside one minor series."""
    import sys
    from importlib.metadata import version

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"]
    ruff = [d for d in deps if d.startswith("ruff")]
    assert len(ruff) == 1 and ruff[0].startswith("ruff=="), ruff
    assert version("ruff") == ruff[0].removeprefix("ruff==")
    assert [d for d in project["optional-dependencies"]["test"] if d.startswith("ruff")] in ([], ruff)
    assert not [d for d in deps if d.startswith("black")]
    dcg = [d for d in deps if d.startswith("datamodel-code-generator")]
    assert len(dcg) == 1 and ",<" in dcg[0], dcg
