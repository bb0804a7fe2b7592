"""The generator's layout as rules (docs/architecture.md, "The generator: six stages"):

- no stage imports a later one, counting imports inside functions (only `if TYPE_CHECKING:` is
  exempt). By import the order is catalog < sources < plan < models < render < output: the
  catalog is the IR every stage speaks (sources build it with catalog.build), so it comes first;
- the shared modules (`mcpgen/__init__.py`, options, console, wording) import no stage;
- the testing kit imports no stage after sources, config none after plan, and only the
  orchestrating modules (pipeline, generate, kinds, quick_check, entry, cli/) import either;
- pipeline.py reaches output/ through one module, and only kinds.py tells the kinds apart;
- no module of mcpgen/, the runtime included, is over 700 lines.

Each rule is checked on a planted violation too, so a rule that cannot fail fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest
from test_layout import _imports  # the walker that counts imports inside functions

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "mcpgen"

STAGES = ("catalog", "sources", "plan", "models", "render", "output")
SHARED = frozenset({"mcpgen", "mcpgen.options", "mcpgen.console", "mcpgen.wording"})
# Modules beside the stages, each with the last stage it may import.
SIDE = {"mcpgen.testing": "sources", "mcpgen.config": "plan"}
# The only modules that may import every stage (and the side modules).
ORCHESTRATION = frozenset(
    {
        "mcpgen.pipeline",
        "mcpgen.generate",
        "mcpgen.kinds",
        "mcpgen.quick_check",
        "mcpgen.entry",
        "mcpgen.cli",
        "mcpgen.buildhook",
    }
)
MAX_LINES = 700


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _tier(module: str) -> tuple[str, int] | None:
    """(what the module is, the index of the last stage it may import), or None: unclassified.

    Orchestration may import everything (the index past the last stage)."""
    if module in SHARED:
        return "shared", -1
    for i, stage in enumerate(STAGES):
        if _within(module, f"mcpgen.{stage}"):
            return stage, i
    for prefix, last in SIDE.items():
        if _within(module, prefix):
            return prefix, STAGES.index(last)
    if any(_within(module, m) for m in ORCHESTRATION):
        return "orchestration", len(STAGES)
    return None


def stage_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import of `graph` (module -> modules it imports) that breaks a rule above."""
    found: list[str] = []
    for module, deps in sorted(graph.items()):
        if _within(module, "mcpgen.runtime"):
            continue  # its own layers: tests/layout/test_layout.py
        tier = _tier(module)
        if tier is None:
            found.append(f"{module}: not placed in a tier (add it to tests/layout/test_stages.py and the docs)")
            continue
        name, last = tier
        for dep in sorted(deps):
            if _within(dep, "mcpgen.runtime") or not _within(dep, "mcpgen"):
                continue
            target = _tier(dep)
            if target is None or name == "orchestration":
                continue  # the unplaced module is reported on its own line
            dep_name, dep_index = target
            if dep_name == "shared" or dep_name == name:
                continue
            if dep_name == "orchestration" or dep_name in SIDE:
                found.append(f"{module} imports {dep}: only the orchestrating modules import {dep_name}")
            elif name == "shared" or dep_index > last:
                found.append(f"{module} ({name}) imports {dep} ({dep_name}): a later stage")
    return found


def _graph(root: Path) -> dict[str, set[str]]:
    """The import graph of the package `root` (named mcpgen), imports inside functions counted."""
    files: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = ["mcpgen", *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return {name: {m for m in _imports(path, name) if m in files and m != name} for name, path in files.items()}


def test_no_stage_imports_a_later_one() -> None:
    graph = _graph(PACKAGE)
    assert len([m for m in graph if not _within(m, "mcpgen.runtime")]) > 50, "the walk found the generator"
    assert stage_violations(graph) == []


def test_the_checker_finds_what_was_planted() -> None:
    allowed = {
        "mcpgen.sources.files": {"mcpgen.catalog.build", "mcpgen.runtime.client", "mcpgen.console"},
        "mcpgen.output.emit": {"mcpgen.render.files", "mcpgen.options"},
        "mcpgen.testing.mock": {"mcpgen.sources.files"},
        "mcpgen.config": {"mcpgen.plan.naming"},
        "mcpgen.pipeline": {"mcpgen.output.emit", "mcpgen.testing.mock", "mcpgen.config"},
        "mcpgen.cli.generating": {"mcpgen.kinds"},
    }
    assert stage_violations(allowed) == []
    planted = {
        "mcpgen.render.files": {"mcpgen.output.formatter"},  # a stage importing a later one
        "mcpgen.catalog.model": {"mcpgen.sources.files"},
        "mcpgen.testing.mock": {"mcpgen.plan.build"},  # past its last stage
        "mcpgen.config": {"mcpgen.render.client"},
        "mcpgen.output.manifest": {"mcpgen.config"},  # a side module outside orchestration
        "mcpgen.models.dcg": {"mcpgen.testing.mock"},
        "mcpgen.render.docs": {"mcpgen.kinds"},  # orchestration
        "mcpgen.options": {"mcpgen.catalog.model"},  # a shared module importing a stage
        "mcpgen.newthing": set(),  # unplaced
    }
    found = stage_violations(planted)
    for module in planted:
        assert any(line.startswith(module + " ") or line.startswith(module + ":") for line in found), module
    assert len(found) == len(planted), found


def test_the_walk_counts_imports_inside_functions_and_exempts_type_checking(tmp_path: Path) -> None:
    root = tmp_path / "mcpgen"
    for folder in ("render", "output"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "output" / "formatter.py").write_text("X = 1\n")
    (root / "render" / "late.py").write_text(
        "def f() -> int:\n    from ..output import formatter\n\n    return formatter.X\n"
    )
    (root / "render" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ..output.formatter import X\n"
    )
    found = stage_violations(_graph(root))
    assert found == [  # `from ..output import formatter` names the package and the module
        "mcpgen.render.late (render) imports mcpgen.output (output): a later stage",
        "mcpgen.render.late (render) imports mcpgen.output.formatter (output): a later stage",
    ]


def test_pipeline_reaches_output_through_one_module() -> None:
    used = {m for m in _graph(PACKAGE)["mcpgen.pipeline"] if _within(m, "mcpgen.output")}
    assert used == {"mcpgen.output.emit"}


def _kind_switches(path: Path) -> list[int]:
    """Lines of `isinstance(x, ClientOptions | ServerOptions | DocsOptions ...)` in `path`."""
    kinds = {"ClientOptions", "ServerOptions", "DocsOptions"}
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} if len(node.args) == 2 else set()
            if names & kinds:
                lines.append(node.lineno)
    return lines


def test_only_kinds_py_tells_the_kinds_apart(tmp_path: Path) -> None:
    switches = {
        str(p.relative_to(REPO)): lines
        for p in PACKAGE.rglob("*.py")
        if "runtime" not in p.relative_to(PACKAGE).parts and (lines := _kind_switches(p))
    }
    assert list(switches) == ["mcpgen/kinds.py"], switches
    planted = tmp_path / "planted.py"
    planted.write_text("def f(g):\n    return 1 if isinstance(g, (ClientOptions, int)) else 2\n")
    assert _kind_switches(planted) == [2]


def _long_modules(root: Path, limit: int) -> dict[str, int]:
    counts = {str(p.relative_to(root)): len(p.read_text(encoding="utf-8").splitlines()) for p in root.rglob("*.py")}
    return {p: n for p, n in counts.items() if n > limit}


def test_no_module_is_over_700_lines(tmp_path: Path) -> None:
    """The generator and the runtime alike (the runtime's server/http/ has its own, tighter
    limit in test_runtime_layers.py)."""
    assert _long_modules(PACKAGE, MAX_LINES) == {}
    (tmp_path / "runtime").mkdir()
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "runtime" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "fits.py").write_text("x = 1\n" * MAX_LINES)
    assert _long_modules(tmp_path, MAX_LINES) == {"big.py": MAX_LINES + 1, "runtime/big.py": MAX_LINES + 1}


@pytest.mark.parametrize("module", sorted(ORCHESTRATION | SHARED | set(SIDE)))
def test_every_named_module_exists(module: str) -> None:
    """A rule about a module that was renamed away would hold for nothing."""
    path = REPO / Path(*module.split("."))
    assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), module
