"""`--runtime vendor`: the part of the runtime a generated package uses, copied verbatim into it
(`PKG/_runtime/`), and what that copy needs installed to run.

The one rule: the copy is the closure, by import, of what the package's own files import of
`_runtime`. Every `import` statement of a runtime module counts, wherever it stands (at the top,
inside a function, under `if TYPE_CHECKING:`, which type checkers follow), and so does the
`__init__.py` of every package on the way to a module. The runtime imports only itself
(relatively) and its declared dependencies, so the copy works with no mcpgen installed; a
client reaches the client side (core, transports, client, support.client), a server the server
side. The runtime's front door (`mcpgen/runtime/__init__.py`, the public API loading every
part) is the one module not copied: generated code imports only `support/`, and the copy's
`__init__.py` is written here instead, stating the copy's exact run-time requirements.

Those are the third-party modules the closure imports, as the runtime's own distribution
(mcpgen-runtime's metadata) requires them: each requirement of its base, or of the extra that
holds it.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"
RUNTIME_DISTRIBUTION = "mcpgen-runtime"
# Where a generated package holds its copy (its modules import `._runtime` / `.._runtime`).
VENDOR_FOLDER = "_runtime"
FRONT_DOOR = ""  # the runtime package itself, as a module name relative to it
# Above every copied module. The runtime is clean under mypy --strict and pyright's strict mode
# (make lint, tests/layout/test_pyright_runtime.py), and so is the copy, in a project that
# checks its own tree strictly, but for the one rule the runtime relaxes ([tool.pyright] in
# pyproject.toml says why): its modules share members named with an underscore.
COPY_HEADER = "# mcpgen's runtime, vendored verbatim (--runtime vendor).\n"


@dataclass(frozen=True)
class Requirements:
    """What a vendored copy needs installed: always (`base`), and per runtime extra (`extras`),
    each a pip requirement as mcpgen-runtime's metadata states it."""

    base: tuple[str, ...] = ()
    extras: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """One line per group, for a docstring or a README."""
        found = [f"always: {', '.join(self.base)}"] if self.base else []
        return found + [f"as mcpgen-runtime's `{e}` extra holds them: {', '.join(r)}" for e, r in self.extras.items()]


def _modules() -> dict[str, Path]:
    """Every module of the runtime, by its name relative to the runtime package ("" for it)."""
    found = {}
    for path in RUNTIME_DIR.rglob("*.py"):
        parts = list(path.relative_to(RUNTIME_DIR).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(package: list[str], level: int, module: str | None) -> list[str]:
    """The dotted path (a list of parts) a relative import names, seen from `package`."""
    base = package[: len(package) - level + 1] if level > 1 else list(package)
    return base + (module.split(".") if module else [])


def _package_of(name: str, path: Path) -> list[str]:
    parts = name.split(".") if name else []
    return parts if path.name == "__init__.py" else parts[:-1]


def _imports(tree: ast.AST, package: list[str]) -> Iterator[tuple[str, bool]]:
    """(dotted name, relative?) of everything a module imports, and for `from X import y` also
    X.y (a submodule, when it is one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, False) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                yield (node.module or ""), False
                continue
            target = ".".join(_resolve(package, node.level, node.module))
            yield target, True
            yield from ((f"{target}.{alias.name}".strip("."), True) for alias in node.names)


def _with_packages(name: str) -> list[str]:
    """`name` and the packages on the way to it (their __init__.py run first), front door aside."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def closure(entries: Iterable[str]) -> tuple[list[str], set[str]]:
    """The runtime modules reached from `entries` (names relative to the runtime, sorted), and the
    top-level names of the third-party modules they import."""
    modules = _modules()
    seen: set[str] = set()
    third_party: set[str] = set()
    stack = [m for entry in entries for m in _with_packages(entry) if m in modules]
    while stack:
        name = stack.pop()
        if name in seen or name == FRONT_DOOR:
            continue
        seen.add(name)
        path = modules[name]
        for target, relative in _imports(ast.parse(path.read_text(encoding="utf-8")), _package_of(name, path)):
            if relative:
                stack += [m for m in _with_packages(target) if m in modules]
            elif target.split(".")[0] not in sys.stdlib_module_names:
                third_party.add(target.split(".")[0])
    return sorted(seen), third_party


def entries_of(files: Mapping[str, str]) -> set[str]:
    """What a generated package's own Python files import of `_runtime` (relative to the runtime)."""
    found: set[str] = set()
    for path, text in files.items():
        if not path.endswith(".py") or path.startswith(f"{VENDOR_FOLDER}/"):
            continue
        package = path.removesuffix(".py").split("/")[:-1]  # an __init__.py's is its own folder
        for target, relative in _imports(ast.parse(text), package):
            head, _, rest = target.partition(".")
            if relative and head == VENDOR_FOLDER:
                found.add(rest)
    return found


def _distribution_of(module: str) -> str:
    """The distribution that installs import name `module` (the same name when none installed does)."""
    installed = importlib.metadata.packages_distributions().get(module, [])
    return installed[0] if installed else module


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements_of(third_party: Iterable[str]) -> Requirements:
    """The runtime distribution's requirements for these imports, by extra (its metadata)."""
    wanted = {_canonical(_distribution_of(m)) for m in third_party}
    base: list[str] = []
    extras: dict[str, list[str]] = {}
    for line in importlib.metadata.requires(RUNTIME_DISTRIBUTION) or []:
        requirement, _, marker = line.partition(";")
        name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
        if name is None or _canonical(name.group(0)) not in wanted:
            continue
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        others = re.sub(r"\s*(and\s+)?extra\s*==\s*['\"][^'\"]+['\"]\s*", "", marker).strip()
        text = requirement.strip() + (f"; {others}" if others else "")
        if extra is None:
            base.append(text)
        elif extra.group(1) != "all" and text not in base:
            extras.setdefault(extra.group(1), []).append(text)
    return Requirements(tuple(base), {e: tuple(r) for e, r in sorted(extras.items())})


def runtime_extras() -> tuple[str, ...]:
    """The extras of the runtime distribution (its metadata), `all` aside."""
    extras = importlib.metadata.metadata(RUNTIME_DISTRIBUTION).get_all("Provides-Extra") or []
    return tuple(sorted(e for e in extras if e != "all"))


def package_requirements(files: Mapping[str, str]) -> Requirements:
    """What a vendored package of these files needs installed (its copy's closure's imports)."""
    return requirements_of(closure(entries_of(files))[1])


def front_door(package: str, requirements: Requirements) -> str:
    """The copy's `__init__.py`: what it is, and what it needs installed (a docstring only)."""
    lines = [f"The part of mcpgen's runtime {package} uses, vendored by `--runtime vendor`.", ""]
    lines += ["Run-time requirements (pip):", ""] + [f"- {line}" for line in requirements.lines()]
    body = "\n".join(lines).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'"""{body}\n"""\n'


def vendored_files(files: Mapping[str, str], package: str) -> tuple[dict[str, str], Requirements]:
    """The copy a package of these files needs ({path in the package: text}), and its requirements."""
    modules = _modules()
    names, third_party = closure(entries_of(files))
    requirements = requirements_of(third_party)  # as package_requirements(files) says
    copied = {
        f"{VENDOR_FOLDER}/{modules[name].relative_to(RUNTIME_DIR).as_posix()}": COPY_HEADER
        + modules[name].read_text(encoding="utf-8")
        for name in names
    }
    copied[f"{VENDOR_FOLDER}/__init__.py"] = front_door(package, requirements)
    if (RUNTIME_DIR / "py.typed").exists():
        copied[f"{VENDOR_FOLDER}/py.typed"] = ""
    return dict(sorted(copied.items())), requirements
