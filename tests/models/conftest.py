"""Helpers for exactness tests: build a client package in-process from inline tools and import it."""

from __future__ import annotations

import importlib
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from generation import forget

from mcpgen.catalog.build import build_catalog
from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions, Runtime
from mcpgen.output.write import write_atomic

sys.path.insert(0, str(Path(__file__).resolve().parent))  # jsts_agreement_lib, models_support

from models_support import Build  # noqa: E402


@pytest.fixture
def build(tmp_path: Path) -> Iterator[Build]:
    """build(tools, skip_invalid=False, runtime="import") -> the imported package (unique name)."""
    made: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def _build(tools: list[Any], *, skip_invalid: bool = False, runtime: str = "import") -> ModuleType:
        cat, problems = build_catalog(tools)
        assert skip_invalid or not problems, problems
        name = f"exact_{uuid.uuid4().hex[:10]}"
        fs = generate_client(cat, ClientOptions(runtime=Runtime(runtime)), skip_invalid=skip_invalid)
        write_atomic(fs, tmp_path / name)
        made.append(name)
        pkg = importlib.import_module(name)
        importlib.import_module(name + ".models")
        return pkg

    yield _build
    sys.path.remove(str(tmp_path))
    forget(*made)
