"""A catalog of 2,000 tools (a big server, or a hostile one): generated whole, imports, typed, exact."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pydantic
import pytest
from generation import importable

from mcpgen.catalog.build import build_catalog
from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic

COUNT = 2000


def catalog_tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for i in range(COUNT):
        # Pairs that collide after sanitizing (tool-7 / tool_7) and a few shapes of schema.
        name = f"tool-{i // 2}" if i % 2 == 0 else f"tool_{i // 2}"
        props: dict[str, Any] = {
            "n": {"type": "integer", "minimum": 0},
            "label": {"type": "string", "enum": ["a", "b"]} if i % 3 == 0 else {"type": "string"},
        }
        tool: dict[str, Any] = {
            "name": name,
            "description": f"tool {i}",
            "inputSchema": {"type": "object", "properties": props, "required": ["n"]},
        }
        if i % 5 == 0:
            tool["outputSchema"] = {
                "type": "object",
                "properties": {"total": {"type": "number"}},
                "required": ["total"],
            }
        tools.append(tool)
    return tools


@pytest.mark.slow
def test_two_thousand_tools(tmp_path: Path) -> None:
    catalog, problems = build_catalog(catalog_tools())
    assert not problems
    fs = generate_client(catalog, ClientOptions())
    write_atomic(fs, tmp_path / "many_client")
    client_src = (tmp_path / "many_client" / "client.py").read_text()
    # Every tool got its own method; the wire names are sent unchanged.
    assert client_src.count("\n    async def tool_") == COUNT
    assert "'tool-999'" in client_src and "'tool_999'" in client_src

    with importable(tmp_path, "many_client"):
        pkg = importlib.import_module("many_client")
        models = importlib.import_module("many_client.models")
        args = models.Tool0Args
        assert args.model_validate({"n": 1, "label": "a"}).n == 1
        with pytest.raises(
            pydantic.ValidationError, match=r"does not match the JSON Schema: /n: -1 is less than the minimum of 0 "
        ):
            args.model_validate({"n": -1})  # minimum is enforced
        with pytest.raises(
            pydantic.ValidationError, match=r"does not match the JSON Schema: /n: '1' is not of type 'integer' "
        ):
            args.model_validate({"n": "1"})  # no lax coercion
        assert len(pkg.AsyncClient.tool_definitions(pkg.AsyncClient.__new__(pkg.AsyncClient))) == COUNT

    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "many_client"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={k: v for k, v in os.environ.items() if k != "MYPYPATH"},
    )
    assert checked.returncode == 0, checked.stdout[-3000:]
