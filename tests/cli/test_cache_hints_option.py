"""`cache-hints` in [tool.mcpgen]: a scaffold's default cache hints per list method
(`ToolsBase.CACHE_HINTS`), which a CACHE_HINTS on handlers.py's Handlers replaces."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import PY

from mcpgen.catalog.model import Problem
from mcpgen.config import parse_cache_hints
from mcpgen.options import CacheHintOption
from mcpgen.runtime import CacheHint, connect_memory

SOURCE = {
    "tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}],
    # No argument: `_models/_shared.py` then imports no `Field` (pyright strict: unused import).
    "prompts": [{"name": "greet"}],
    "resources": [{"uri": "docs://readme", "name": "readme"}],
}
PYPROJECT = """
[tool.mcpgen.targets.srv]
kind = "server"
source = "source.json"
output = "hinted_srv"
cache-hints = { "tools/list" = { ttl-ms = 300000 }, "resources/list" = { ttl-ms = 1000, scope = "private" } }
"""


def test_each_hint_is_checked_as_the_runtime_checks_it() -> None:
    problems: list[Problem] = []
    value = {
        "tools/list": {"ttl-ms": 60_000},
        "prompts/list": {"ttl_ms": 5, "scope": "private"},
        "tools/call": {"ttl-ms": 1},
        "resources/list": {"ttl-ms": -1},
        "resources/read": {"ttl-ms": True},
        "resources/templates/list": {"scope": "everyone"},
    }
    hints = parse_cache_hints(value, "t", problems)
    assert hints == (CacheHintOption("prompts/list", 5, "private"), CacheHintOption("tools/list", 60_000, "public"))
    messages = sorted(p.message for p in problems)
    assert len(messages) == 4
    assert any("'tools/call': not a cacheable method" in m for m in messages)
    assert sum("'ttl-ms' must be an integer from 0 to 86400000" in m for m in messages) == 2
    assert any("'scope' must be 'public' or 'private'" in m for m in messages)
    for bad, why in (([], "must be a table of list method"), ({"tools/list": 5}, "must be a table"),
                     ({"tools/list": {"ttl": 5}}, "unknown key 'ttl'")):  # fmt: skip
        found: list[Problem] = []
        assert parse_cache_hints(bad, "t", found) == ()
        assert len(found) == 1 and why in found[0].message, found


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("hinted")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "source.json").write_text(json.dumps(SOURCE))
    done = subprocess.run([PY, "-m", "mcpgen.cli", "generate"], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("hinted_srv")
    finally:
        sys.path.remove(str(root))


def _hints(server: Any) -> tuple[Any, Any, Any]:
    async def main() -> tuple[Any, Any, Any]:
        async with connect_memory(server, protocol="2026-07-28", cache_results=False) as session:
            tools = await session.request("tools/list")
            resources = await session.request("resources/list")
            prompts = await session.request("prompts/list")
        return [(r["ttlMs"], r["cacheScope"]) for r in (tools, resources, prompts)]  # type: ignore[return-value]

    return asyncio.run(main())


def test_the_options_are_the_scaffolds_default(package: Any) -> None:
    handlers = importlib.import_module("hinted_srv.handlers")
    assert package.ToolsBase.CACHE_HINTS == {
        "resources/list": CacheHint(ttl_ms=1000, scope="private"),
        "tools/list": CacheHint(ttl_ms=300_000, scope="public"),
    }
    tools, resources, prompts = _hints(package.build_server(handlers.Handlers()))
    assert tools == (300_000, "public") and resources == (1000, "private")
    assert prompts == (0, "public")  # not named: ask again every time


def test_handlers_override_the_options(package: Any) -> None:
    handlers = importlib.import_module("hinted_srv.handlers")

    class Mine(handlers.Handlers):  # type: ignore[misc,name-defined]
        CACHE_HINTS = {"tools/list": CacheHint(ttl_ms=5)}

    tools, resources, _ = _hints(package.build_server(Mine()))
    assert tools == (5, "public") and resources == (0, "public")


USER_OVERRIDE = """from mcpgen.runtime import CacheHint

from hinted_srv.handlers import Handlers


class Mine(Handlers):
    CACHE_HINTS = {"tools/list": CacheHint(ttl_ms=5)}
"""


@pytest.mark.slow
def test_the_hinted_scaffold_and_an_override_pass_mypy_and_pyright_strict(package: Any) -> None:
    root = Path(package.__file__).parent.parent
    (root / "user_override.py").write_text(USER_OVERRIDE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYRIGHT_PYTHON_", "MYPYPATH"))}
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "hinted_srv", "user_override.py"]
    done = subprocess.run(mypy, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11", "include": ["hinted_srv", "user_override.py"]}
    (root / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    pyright = [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable]
    done = subprocess.run(pyright, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout)
    assert report["summary"]["filesAnalyzed"] >= 5, report["summary"]
    assert report["summary"]["errorCount"] == 0, json.dumps(report["generalDiagnostics"][:10], indent=1)


def test_a_changed_hint_regenerates_the_scaffold(package: Any) -> None:
    root = Path(package.__file__).parent.parent
    base = root / "hinted_srv/_generated/base.py"
    assert "ttl_ms=300000" in base.read_text()
    (root / "pyproject.toml").write_text(PYPROJECT.replace("300000", "120000"))
    done = subprocess.run([PY, "-m", "mcpgen.cli", "generate"], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ttl_ms=120000" in base.read_text() and "ttl_ms=300000" not in base.read_text()
    manifest = json.loads((root / "hinted_srv/.mcpgen-manifest.json").read_text())
    assert manifest["options"]["cache-hints"]["tools/list"] == {"ttl-ms": 120000, "scope": "public"}
