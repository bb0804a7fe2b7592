"""Shared by the testing-kit tests: the captures and schemas the acceptance runs over, and a
client package generated from one of them."""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path
from types import ModuleType

from mcpgen.catalog.model import Catalog
from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.sources.files import load_file

REPO = Path(__file__).resolve().parents[2]
SOURCES = {
    "everything": REPO / "tests/golden/inputs/everything.raw.json",
    "time": REPO / "tests/golden/inputs/time.raw.json",
    "conformance": REPO / "examples/conformance/schemas/tools.yaml",
}


def load(name: str) -> Catalog:
    catalog, problems = load_file(SOURCES[name])
    assert catalog is not None, problems
    return catalog


def client_package(catalog: Catalog, folder: Path) -> ModuleType:
    """Generate a client for `catalog` under `folder` and import it (a unique name)."""
    name = f"kit_{uuid.uuid4().hex[:10]}"
    write_atomic(generate_client(catalog, ClientOptions()), folder / name)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(name)
