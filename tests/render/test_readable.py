"""Generated code a reviewer reads like hand-written (issue 33, item 5), held on real packages:
a client, a code-mode client (with a vendored runtime too) and a server scaffold, each made by
`mcpgen` in a subprocess from one catalog, then read, imported and checked with ruff."""

from __future__ import annotations

import ast
import copy
import difflib
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from generation import importable

from mcpgen.output.formatter import ruff_binary
from mcpgen.plan.naming import RUNTIME_EXPORTS
from mcpgen.runtime.core.errors import InvalidArguments, RequestTimeout, ToolError
from mcpgen.runtime.core.tables import HandledTool, ResultMode, ToolRow

PY = sys.executable

# Nested objects two tools both call `content` (DCG's ContentItem / ContentItem1 before), a nested
# `resource` (the runtime's Resource), tools whose stems are runtime names (`ToolResult`,
# `PromptResult`), optional arguments with and without a default, a wire name that differs from
# its Python name, a wrapped and a root result.
CONTENT = {"type": "array", "items": {"type": "object", "properties": {"type": {"type": "string"}}}}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "read_media_file",
        "description": "Read an image or audio file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Where the file is."}},
            "required": ["path"],
        },
        "outputSchema": {"type": "object", "properties": {"content": CONTENT}},
    },
    {
        "name": "read_text_file",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "maxLines": {"type": "integer", "default": 100, "description": "At most this many."},
                "range": {"type": "object", "properties": {"start": {"type": "integer"}}},
            },
            "required": ["path"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "content": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}},
                "resource": {"type": "object", "properties": {"uri": {"type": "string"}}},
            },
        },
    },
    {"name": "tool", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
    {"name": "prompt", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
    {
        "name": "list_names",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"]},
    },
]


def _mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [PY, "-m", "mcpgen.cli", *args, "-q"], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _make(root: Path, tools: list[dict[str, Any]]) -> Path:
    """Every kind of package from `tools`, under `root` (one folder a package)."""
    root.mkdir(parents=True)
    (root / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    _mcpgen("client", "tools.json", "-o", "rd_client", cwd=root)
    _mcpgen("client", "tools.json", "-o", "rd_code", "--layout", "code-mode", cwd=root)
    _mcpgen("client", "tools.json", "-o", "rd_vcode", "--layout", "code-mode", "--runtime", "vendor", cwd=root)
    _mcpgen("server", "tools.json", "-o", "rd_server", cwd=root)
    return root


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = _make(tmp_path_factory.mktemp("readable") / "one", TOOLS)
    with importable(root, "rd_client", "rd_code", "rd_vcode", "rd_server"):
        yield root


def _generated(root: Path) -> list[Path]:
    """Every generated Python file (the vendored runtime is the runtime's own, not generated)."""
    return [p for p in sorted(root.rglob("*.py")) if "_runtime" not in p.parts and p.name != "handlers.py"]


def _classes(root: Path) -> list[str]:
    return [n.name for p in _generated(root) for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ClassDef)]


def test_a_one_tool_change_is_a_one_line_diff_of_the_catalog(packages: Path, tmp_path: Path) -> None:
    changed = copy.deepcopy(TOOLS)
    changed[1]["description"] = "Read a text file, now described."
    other = _make(tmp_path / "two", changed)
    for path in ("rd_client/_catalog.py", "rd_server/_generated/tables.py"):
        before = (packages / path).read_text().splitlines()
        after = (other / path).read_text().splitlines()
        diff = [line for line in difflib.unified_diff(before, after, lineterm="", n=0) if line[:1] in "+-"]
        diff = [line for line in diff if not line.startswith(("+++", "---"))]
        assert len(diff) == 2, diff  # one line out, one line in
        assert "read_text_file" in diff[0] and "now described" in diff[1]


def test_no_generated_module_sends_locals(packages: Path) -> None:
    files = _generated(packages)
    assert len(files) > 20
    assert not [p for p in files if "locals()" in p.read_text()]
    source = (packages / "rd_client/client.py").read_text()
    assert '{"path": path, "maxLines": max_lines, "range": range}' in source


def _typed_methods(path: Path) -> Iterator[ast.AsyncFunctionDef]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.AsyncFunctionDef) and not node.name.startswith("_"):
            yield node


def test_every_typed_method_documents_every_argument_its_return_and_what_it_raises(packages: Path) -> None:
    checked = 0
    for path in [packages / "rd_client/client.py", *sorted((packages / "rd_code/tools").glob("[!_]*.py"))]:
        for method in _typed_methods(path):
            doc = ast.get_docstring(method) or ""
            for arg in method.args.kwonlyargs:
                assert re.search(rf"^    {arg.arg} \([^)]+\): \S", doc, re.M), (path.name, method.name, arg.arg, doc)
            assert "\nReturns:\n    " in doc and "\nRaises:\n" in doc, (method.name, doc)
            for error in ("ToolError", "RequestTimeout", "ConnectionClosed", "RpcError"):
                assert f"\n    {error}: " in doc, (method.name, error)
            checked += 1
    assert checked == 2 * len(TOOLS)
    doc = ast.get_docstring(
        next(m for m in _typed_methods(packages / "rd_client/client.py") if m.name == "read_text_file")
    )
    assert doc is not None
    doc = " ".join(doc.split())  # (long entries wrap)
    assert "max_lines (int, optional): At most this many. Left out, the server's default applies: 100." in doc
    assert "InvalidArguments: " in doc and "ToolOutputError: " in doc


def test_nested_model_names_come_from_their_parent_never_a_counter_or_a_runtime_name(packages: Path) -> None:
    classes = [c for c in _classes(packages) if c != "ExactSchemaCheck"]
    models = [c for c in classes if c.endswith(("Args", "Result")) or "Args" in c or "Result" in c]
    assert "ReadMediaFileResultContentItem" in models and "ReadTextFileResultContentItem" in models
    assert "ReadTextFileResultResource" in models and "ReadTextFileArgsRange" in models
    assert "ToolToolResult" in models and "PromptToolArgs" in models
    assert not [c for c in models if re.search(r"[A-Za-z]\d+$", c)]
    assert not set(classes) & RUNTIME_EXPORTS - {"AsyncClient", "Client", "ToolsBase"}


def test_the_reserved_names_are_every_name_a_package_re_exports(packages: Path) -> None:
    client = importlib.import_module("rd_client")
    code = importlib.import_module("rd_code")
    server = importlib.import_module("rd_server._generated")
    reexported = {n for n in [*client.__all__, *code.__all__] if n[:1].isupper() and not n.isupper()}
    reexported |= {n for n in vars(server) if n[:1].isupper() and not n.isupper()}  # (constants: RUNTIME_REQUIRES)
    # Both ways: a name the templates stop re-exporting leaves the hand-kept list too, so the
    # list never renames a tool's models for a name no package has.
    assert reexported == RUNTIME_EXPORTS, (reexported - RUNTIME_EXPORTS, RUNTIME_EXPORTS - reexported)


@pytest.mark.parametrize("package", ["rd_client", "rd_code"])
def test_every_error_a_call_raises_is_importable_from_the_package(packages: Path, package: str) -> None:
    pkg = importlib.import_module(package)
    assert (pkg.InvalidArguments, pkg.ToolError, pkg.RequestTimeout) == (InvalidArguments, ToolError, RequestTimeout)
    for name in ("ConnectionClosed", "RpcError", "ToolOutputError", "McpError"):
        assert name in pkg.__all__ and getattr(pkg, name).__name__ == name


def test_imports_are_sorted_in_every_generated_module(packages: Path) -> None:
    ruff = ruff_binary()
    assert isinstance(ruff, str), ruff
    files = [str(p.relative_to(packages)) for p in _generated(packages)]
    assert any("/tools/" in f for f in files)  # code-mode tool modules included
    done = subprocess.run(
        [ruff, "check", "--isolated", "--no-cache", "--select", "I,F401", "--line-length", "120", *files],
        cwd=packages,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def test_tables_are_rows_with_a_result_mode(packages: Path) -> None:
    catalog = importlib.import_module("rd_client._catalog")
    tables = importlib.import_module("rd_server._generated.tables")
    assert catalog.TOOL_TABLE["read_media_file"] == ToolRow(
        args="ReadMediaFileArgs", result="ReadMediaFileResult", mode=ResultMode.MODEL
    )
    assert catalog.TOOL_TABLE["prompt"] == ToolRow(args="PromptToolArgs", result=None, mode=ResultMode.CONTENT)
    assert tables.TOOLS["list_names"] == HandledTool(
        method="list_names", args="ListNamesArgs", result="ListNamesResult", mode=ResultMode.WRAPPED_ROOT
    )
    # The catalog is one exact JSON text a tool, the tool as the source gave it.
    assert [json.loads(t) for t in catalog.TOOLS_JSON] == sorted(TOOLS, key=lambda t: t["name"])
    assert [json.loads(t) for t in tables.TOOLS_JSON] == sorted(TOOLS, key=lambda t: t["name"])
