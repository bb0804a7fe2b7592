"""The runtime type-checks whether or not the stubs of its untyped dependencies are installed.

`--runtime vendor` copies runtime modules into a user's package, and the user runs `mypy --strict`
on it where only the run-time requirements are installed: jsonschema (no type information of its
own) without the dev-only `types-jsonschema`. An import of it then is `import-untyped`, and an
ignore that only the stubs need is `unused-ignore` under --strict: every such line carries both
codes, so one source is clean in both environments (checked by hand in a fresh venv: 18 errors
in a vendored client and server before, none after)."""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "mcpgen/runtime"
# Packages the runtime requires that ship no type information (no py.typed): their types come
# from a stub distribution a user may not have.
UNTYPED = ("jsonschema",)


def _imports_of(name: str) -> list[tuple[Path, int, str]]:
    found: list[tuple[Path, int, str]] = []
    for path in sorted(RUNTIME.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            modules = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            if any(m == name or m.startswith(name + ".") for m in modules):
                found.append((path, node.lineno, lines[node.lineno - 1]))
    return found


def test_the_untyped_packages_really_ship_no_type_information() -> None:
    for name in UNTYPED:
        files = importlib.metadata.files(name) or []
        assert files, name
        assert not [f for f in files if f.name == "py.typed"], f"{name} is typed now: drop it from UNTYPED"


def test_every_import_of_an_untyped_package_is_ignored_with_or_without_its_stubs() -> None:
    for name in UNTYPED:
        imports = _imports_of(name)
        assert len(imports) >= 5, imports  # validation.py and patterns.py import jsonschema lazily
        bad = [f"{p.relative_to(RUNTIME)}:{n}" for p, n, line in imports if "import-untyped, unused-ignore" not in line]
        assert not bad, f"needs `# type: ignore[import-untyped, unused-ignore]`: {bad}"


def test_an_ignore_in_a_function_importing_an_untyped_package_tolerates_its_absence() -> None:
    # An ignore the stubs need (a call or an attribute they type) is unused without them.
    checked = 0
    for name in UNTYPED:
        for path in sorted({p for p, _, _ in _imports_of(name)}):
            source = path.read_text(encoding="utf-8")
            lines = source.splitlines()
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                imported = [
                    i
                    for i in ast.walk(node)
                    if isinstance(i, ast.Import | ast.ImportFrom)
                    and any((a.name if isinstance(i, ast.Import) else i.module or "").startswith(name) for a in i.names)
                ]
                if not imported:
                    continue
                for number in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    line = lines[number - 1]
                    if "# type: ignore[" in line and "import-untyped" not in line:
                        checked += 1
                        assert "unused-ignore" in line, f"{path.relative_to(RUNTIME)}:{number}: {line.strip()}"
    assert checked >= 2  # patterns.py: validators.extend and the diverted `re`
