"""Hostile and awkward tools: every one is generated (parses, imports, mypy --strict, behaves as the
schema says) or refused alone with a clear message; nothing is built from the input's text."""

from __future__ import annotations

import ast
import importlib
import io
import json
import sys
import tokenize
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest
from checkers import mypy_strict
from hostile_corpus import BAD_TOOLS, EVIL, MARK, good_tools

from mcpgen.catalog.build import build_catalog
from mcpgen.cli import main
from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic

BANNED_CALLS = {"eval", "exec", "compile", "__import__", "breakpoint", "input"}
BANNED_MODULES = {"os", "subprocess", "sys", "shutil", "socket", "pathlib", "builtins"}


def _all_tools() -> list[Any]:
    return good_tools() + [t for t, _ in BAD_TOOLS]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ModuleType, list[Any]]:
    """One in-process generator run over the whole corpus with skip_invalid."""
    import urllib.request

    def no_network(*a: Any, **k: Any) -> Any:
        raise AssertionError("the generator tried to open a URL")

    saved = urllib.request.urlopen
    urllib.request.urlopen = no_network  # type: ignore[assignment]
    try:
        cat, problems = build_catalog(_all_tools())
        from dataclasses import replace

        cat = replace(cat, refused=tuple(problems))
        fs = generate_client(cat, ClientOptions(), skip_invalid=True)
    finally:
        urllib.request.urlopen = saved  # type: ignore[assignment]
    out = tmp_path_factory.mktemp("hostile")
    write_atomic(fs, out / "hostile_pkg")
    sys.path.insert(0, str(out))
    try:
        pkg = importlib.import_module("hostile_pkg")
        importlib.import_module("hostile_pkg.models")
    finally:
        sys.path.remove(str(out))
    return out / "hostile_pkg", pkg, fs.warnings


def test_good_tools_generated_bad_tools_refused_clearly(generated: tuple[Path, ModuleType, list[Any]]) -> None:
    _, pkg, warnings = generated
    table = pkg._catalog.TOOL_TABLE
    assert sorted(table) == sorted({t["name"] for t in good_tools()})
    text = [str(w) for w in warnings]
    for tool, words in BAD_TOOLS:
        name = tool["name"]
        where = repr(name) if isinstance(name, str) else "tool["
        assert any(where in line and words in line for line in text), (name, words, text)
    for line in text:
        assert "Traceback" not in line and len(line) < 1500, line


def test_every_generated_file_is_inert(generated: tuple[Path, ModuleType, list[Any]]) -> None:
    root, _, _ = generated
    files = sorted(root.rglob("*.py"))
    assert files
    for path in files:
        src = path.read_text(encoding="utf-8")
        tree = ast.parse(src)
        for stmt in tree.body:
            ok = isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ok = ok or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))  # docstring
            ok = ok or (isinstance(stmt, ast.Expr) and _is_model_rebuild(stmt.value))
            ok = ok or (isinstance(stmt, ast.Expr) and ast.unparse(stmt) == RUNTIME_CHECK)
            ok = ok or (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _inert_value(stmt.value))
            ok = ok or isinstance(stmt, ast.If) and ast.unparse(stmt.test) == "TYPE_CHECKING"
            assert ok, f"{path.name}:{stmt.lineno}: {ast.unparse(stmt)[:200]}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                assert not (isinstance(f, ast.Name) and f.id in BANNED_CALLS), f"{path.name}:{node.lineno}"
                base = f.value if isinstance(f, ast.Attribute) else None
                while isinstance(base, ast.Attribute):
                    base = base.value
                assert not (isinstance(base, ast.Name) and base.id in BANNED_MODULES), f"{path.name}:{node.lineno}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(m.split(".")[0] in {"subprocess", "os", "shutil", "socket"} for m in mods), path
        # Untrusted text only inside string literals: no other token may carry the marker.
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type not in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)):
                assert MARK not in tok.string, f"{path.name}:{tok.start}: {tok.string[:80]!r}"


# The one call a generated package makes at import, naming nothing from the source: is the
# installed mcpgen-runtime one it was generated for (runtime/version.py)?
RUNTIME_CHECK = "require_runtime(__name__, RUNTIME_REQUIRES)"


def _is_model_rebuild(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "model_rebuild"
        and isinstance(node.func.value, ast.Name)
        and not node.args
        and not node.keywords
    )


# The named tuples a generated table's rows are (runtime/core/tables.py).
_ROWS = frozenset({"ToolRow", "HandledTool", "HandledItem"})


def _row_value(node: ast.expr) -> bool:
    """A string or None, or `ResultMode.<MEMBER>`."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str)
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ResultMode"


# Objects a generated module builds from its own (or its catalog's) constants only: the catalog,
# and where the models' exact checks read their schemas (runtime/core/exact_schemas.py).
_FROM_NAMES = {"ToolCatalog", "ExactSchemas"}


def _inert_value(node: ast.expr | None) -> bool:
    """Literals, names, attribute lookups, subscripts and TypeVar/Callable-style type expressions."""
    if node is None:
        return True
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if not (isinstance(f, ast.Name) and f.id in {"TypeVar", "Unset", "float", *_FROM_NAMES, *_ROWS}):
                return False
            if f.id in _FROM_NAMES and not all(isinstance(a, ast.Name) for a in sub.args):
                return False  # built from the module's own constants (imported names), nothing else
            if f.id in _ROWS and not all(_row_value(k.value) for k in sub.keywords) or f.id in _ROWS and sub.args:
                return False  # a table row is keywords of literals and ResultMode members only
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield)):
            return False
    return True


def test_hostile_values_behave_as_the_schema_says(generated: tuple[Path, ModuleType, list[Any]]) -> None:
    _, pkg, _ = generated
    models = importlib.import_module("hostile_pkg.models")
    table = pkg._catalog.TOOL_TABLE
    for evil in EVIL[:4]:
        m = getattr(models, table[evil][0])
        for i, e in enumerate(EVIL):
            assert m.model_validate({e: e}).model_dump(by_alias=True, exclude_unset=True) == {e: e}
            assert m.model_validate({e: f"v{i}"})
            with pytest.raises(
                pydantic.ValidationError,
                match=r"(?s)does not match the JSON Schema: /.*: 'not in the enum' is not one of \[",
            ):
                m.model_validate({e: "not in the enum"})
        with pytest.raises(
            pydantic.ValidationError,
            match=r"does not match the JSON Schema: \(top level\): False schema does not allow 1 ",
        ):
            m.model_validate({"never": 1})
        with pytest.raises(
            pydantic.ValidationError,
            match=r"does not match the JSON Schema: /class: '1' is not of type 'integer', 'null' ",
        ):
            m.model_validate({"class": "1"})  # integer|null: no lax "1" -> 1
        assert m.model_validate({"class": None, "always": [1], "anything": {"a": 1}})
        assert (m.__doc__ or "").strip() == evil.strip()
    deep = getattr(models, table["deep"][0])
    inst: Any = 60
    for _ in range(60):
        inst = {"n": inst}
    assert deep.model_validate(inst)
    bad: Any = 61
    for _ in range(60):
        bad = {"n": bad}
    with pytest.raises(
        pydantic.ValidationError, match=r"does not match the JSON Schema: (/n)+: 61 is greater than the maximum of 60 "
    ):
        deep.model_validate(bad)  # the constraint 60 levels down is enforced
    wide = getattr(models, table["wide"][0])
    full = {f"p{i}": i for i in range(5000)}
    assert wide.model_validate(full).model_dump(by_alias=True, exclude_unset=True) == full
    with pytest.raises(pydantic.ValidationError, match=r"does not match the JSON Schema: /p7: required, but missing "):
        wide.model_validate({k: v for k, v in full.items() if k != "p7"})
    rec = getattr(models, table["recursive"][0])
    assert rec.model_validate({"head": {"v": 1, "next": {"v": 2, "next": None}}, "self": {"head": None}})
    with pytest.raises(
        pydantic.ValidationError, match=r"does not match the JSON Schema: /head/next/v: '2' is not of type 'integer' "
    ):
        rec.model_validate({"head": {"next": {"v": "2"}}})
    # Lookbehind needs a backtracking engine: generated (with a warning), every value refused.
    look = getattr(models, table["lookbehind"][0])
    for value in ("ab", "cb"):
        with pytest.raises(pydantic.ValidationError, match="cannot be checked .lookaround"):
            look.model_validate({"s": value})


def _described(text: str) -> str:
    """How an argument's description reads in a docstring's Args: section (its start)."""
    return " ".join(text.split())[:200]


def test_hostile_descriptions_are_kept_as_text(generated: tuple[Path, ModuleType, list[Any]]) -> None:
    """Every description reaches Field(description=...) and the method's Args: section verbatim,
    as text: quotes, backslashes, template syntax and code stay inert (see the inert test above)."""
    _, pkg, _ = generated
    models = importlib.import_module("hostile_pkg.models")
    table = pkg._catalog.TOOL_TABLE
    method_of = {wire: method for method, wire in pkg._catalog.METHOD_NAMES.items()}
    for evil in EVIL[:4]:
        fields = getattr(models, table[evil][0]).model_fields
        described = {(f.serialization_alias or name): f.description for name, f in fields.items()}
        # The Args: section wraps long lines (plan/docstrings.py): compare with white space folded.
        doc = " ".join((getattr(pkg.AsyncClient, method_of[evil]).__doc__ or "").split())
        assert "Args:" in doc
        for e in EVIL:
            assert described[e] == e.strip()[:4000], repr(e)
            assert _described(e) in doc, repr(e)


def test_hostile_descriptions_in_a_server_are_inert(tmp_path: Path) -> None:
    """The server's handler stubs and models take the same descriptions through the same filters."""
    from mcpgen.generate import generate_server
    from mcpgen.options import ServerOptions

    cat, problems = build_catalog(good_tools()[:4])
    assert not problems
    prompt = {"name": "p", "arguments": [{"name": e[:20] or "x", "description": e} for e in EVIL[-4:]]}
    from dataclasses import replace

    server = generate_server(replace(cat, prompts=(prompt,)), ServerOptions(), "hostile_server")
    for path, src in [*server.files.files.items(), ("handlers.py", server.handlers)]:
        if path.endswith(".py"):
            ast.parse(src)
            for tok in tokenize.generate_tokens(io.StringIO(src).readline):
                if tok.type not in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)):
                    assert MARK not in tok.string, f"{path}:{tok.start}: {tok.string[:80]!r}"
    handlers = ast.parse(server.handlers)
    docs = [ast.get_docstring(f, clean=False) or "" for f in ast.walk(handlers) if isinstance(f, ast.AsyncFunctionDef)]
    assert len(docs) == 5 and all("Args:" in d for d in docs)
    for e in EVIL:
        assert all(_described(e) in d for d in docs[:4]), repr(e)  # the tools' stubs
    assert all(_described(e) in docs[4] for e in EVIL[-4:])  # the prompt's stub


@pytest.mark.slow
def test_generated_package_passes_mypy_strict(generated: tuple[Path, ModuleType, list[Any]]) -> None:
    root, _, _ = generated
    r = mypy_strict(root.parent, [root.name], "--python-version", "3.11")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_cli_refuses_without_skip_invalid_and_skips_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = [{"name": "fine", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}] + [
        t for t, _ in BAD_TOOLS[:10]
    ]
    src = tmp_path / "tools.json"
    src.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(SystemExit, match=r"^2$") as ei:
        main(["client", str(src), "-o", str(out)])
    err = capsys.readouterr().err
    assert ei.value.code == 2 and "Traceback" not in err and not out.exists()
    assert err.count("mcpgen: error:") >= 10 and "file:///etc/passwd" in err
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["client", str(src), "-o", str(out), "--skip-invalid"])
    err = capsys.readouterr().err
    assert ei.value.code == 0, err
    assert "mcpgen: warning:" in err and "(1 tool)" in err
    assert (out / "models.py").is_file()
