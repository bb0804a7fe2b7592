"""Helpers: generate a client package into a folder and import it under a fresh name."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from generation import imported

from mcpgen.catalog.model import Catalog
from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic

REPO = Path(__file__).resolve().parents[3]
PY = sys.executable
EVERYTHING = [
    "node",
    str(REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
CONFORMANCE = REPO / "examples" / "conformance"


@contextmanager
def generated(catalog: Catalog, folder: Path) -> Iterator[ModuleType]:
    name = f"fc_{uuid.uuid4().hex[:10]}"
    write_atomic(generate_client(catalog, ClientOptions()), folder / name)
    with imported(folder, name) as pkg:
        yield pkg
