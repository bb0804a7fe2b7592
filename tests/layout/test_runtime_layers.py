"""The runtime's layers as packages (docs/architecture.md, "The runtime: layers by role"):

- `core` imports nothing else of the runtime; `transports` only `core`; `client` and `server`
  only `core` and `transports`, never each other; none of them imports `support/` (which
  re-exports from them) or the runtime's front door (`mcpgen/runtime/__init__.py`). Imports
  inside functions count; only `if TYPE_CHECKING:` blocks are exempt (the walk of test_layout).
- The Streamable HTTP server (`runtime/server/http/`) stays in small pieces: no module over
  450 lines, no function (or method) over 60.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layout import PACKAGE, _graph, _imports

# What each layer may import of the runtime besides itself. `version` (the runtime's release,
# standard library only and importing nothing) is a leaf every layer may read: a client names
# the release in its clientInfo.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset({"version"}),
    "transports": frozenset({"core", "version"}),
    "client": frozenset({"core", "transports", "version"}),
    "server": frozenset({"core", "transports", "version"}),
}
HTTP_SERVER = PACKAGE / "runtime" / "server" / "http"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60


def _layer(module: str) -> str | None:
    """`core`, `transports`, ..., `runtime` for the runtime's own __init__; None outside it."""
    parts = module.split(".")
    if parts[:2] != ["mcpgen", "runtime"]:
        return None
    return parts[2] if len(parts) > 2 else "runtime"


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import (module -> module) that crosses the layers against MAY_IMPORT."""
    found = []
    for module, deps in sorted(graph.items()):
        layer = _layer(module)
        if layer not in MAY_IMPORT:
            continue
        allowed = MAY_IMPORT[layer] | {layer}
        found += [f"{module} -> {dep}" for dep in sorted(deps) if (_layer(dep) or layer) not in allowed]
    return found


def oversized(text: str, name: str) -> list[str]:
    """What of one module is over the size limits: the module, or its functions and methods."""
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{name}: {lines} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    return found


def test_the_runtime_layers_hold_as_packages() -> None:
    graph = _graph()
    layers = {_layer(m) for m in graph}
    assert set(MAY_IMPORT) <= layers, "the walk found every layer"
    assert layer_violations(graph) == []


def test_the_layer_check_finds_a_crossing() -> None:
    planted = {
        "mcpgen.runtime.core.a": {"mcpgen.runtime.core.b", "mcpgen.runtime.transports.t"},
        "mcpgen.runtime.transports.t": {"mcpgen.runtime.core.a", "mcpgen.runtime.server.s"},
        "mcpgen.runtime.client.c": {"mcpgen.runtime.transports.t", "mcpgen.runtime.server.s"},
        "mcpgen.runtime.server.s": {"mcpgen.runtime.core", "mcpgen.runtime.support.server", "mcpgen.runtime"},
        "mcpgen.runtime.support.server": {"mcpgen.runtime.server.s"},  # support may import anything
    }
    assert layer_violations(planted) == [
        "mcpgen.runtime.client.c -> mcpgen.runtime.server.s",
        "mcpgen.runtime.core.a -> mcpgen.runtime.transports.t",
        "mcpgen.runtime.server.s -> mcpgen.runtime",
        "mcpgen.runtime.server.s -> mcpgen.runtime.support.server",
        "mcpgen.runtime.transports.t -> mcpgen.runtime.server.s",
    ]


def test_an_import_inside_a_function_counts_and_one_for_type_checking_does_not(tmp_path: Path) -> None:
    source = tmp_path / "planted.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ..client.session import ClientSession\n"
        "def serve() -> None:\n"
        "    from ..server.http.serving import serve_http\n",
        encoding="utf-8",
    )
    imported = _imports(source, "mcpgen.runtime.transports.planted")
    assert "mcpgen.runtime.server.http.serving" in imported
    assert not any(m.startswith("mcpgen.runtime.client") for m in imported)
    graph = {"mcpgen.runtime.transports.planted": imported & {"mcpgen.runtime.server.http.serving"}}
    assert layer_violations(graph) == ["mcpgen.runtime.transports.planted -> mcpgen.runtime.server.http.serving"]


def test_the_http_server_is_in_small_modules_and_functions() -> None:
    modules = sorted(HTTP_SERVER.glob("*.py"))
    assert len(modules) > 5, "the walk found the HTTP server's modules"
    found = [problem for path in modules for problem in oversized(path.read_text(encoding="utf-8"), path.name)]
    assert found == []


def test_the_size_check_finds_a_long_module_and_a_long_method() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(60))
    method = f"class A:\n    async def long(self) -> None:\n{body}"
    assert oversized(method, "m.py") == ["m.py:2 long: 61 lines"]
    assert oversized("x = 1\n" * 451, "big.py") == ["big.py: 451 lines"]
    assert oversized("def short() -> None:\n" + "    pass\n" * 59, "ok.py") == []
