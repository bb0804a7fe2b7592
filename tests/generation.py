"""Helpers shared by the generator tests: generate a client package from inline tool JSON and
import it (the `generate` fixture, registered in tests/conftest.py), and the live peers to
generate from."""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions, Runtime
from mcpgen.output.write import write_atomic
from mcpgen.sources.files import catalog_from_document

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
EVERYTHING = [
    "node",
    str(REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
TIME_SERVER = [PY, "-m", "mcp_server_time"]
SDK_SERVER = [PY, str(REPO / "tests/peers/sdk_structured_server.py")]


def tool(
    name: str, props: dict[str, Any] | None = None, required: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    return {"name": name, "inputSchema": schema, **extra}


GenerateFn = Callable[..., ModuleType]


@pytest.fixture
def generate(tmp_path: Path) -> Iterator[GenerateFn]:
    """generate(doc, runtime="import") -> the imported package (a fresh, unique name)."""
    made: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def _gen(doc: Any, *, runtime: str = "import", source_command: list[str] | None = None) -> ModuleType:
        cat, problems = catalog_from_document(doc, "inline")
        assert not problems, problems
        assert cat is not None
        if source_command:
            from dataclasses import replace

            cat = replace(cat, source_command=tuple(source_command))
        name = f"gen_{uuid.uuid4().hex[:10]}"
        write_atomic(generate_client(cat, ClientOptions(runtime=Runtime(runtime))), tmp_path / name)
        made.append(name)
        return importlib.import_module(name)

    yield _gen
    sys.path.remove(str(tmp_path))
    forget(*made)


def forget(*packages: str) -> None:
    """The generated `packages` (and every module under them) gone from sys.modules, so another
    test can generate and import packages of the same names. The one clean-up every test that
    imports generated code uses (`imported`, `importable`, the `generate` fixture, ...)."""
    for name in [m for m in sys.modules if m.split(".")[0] in packages]:
        del sys.modules[name]


@contextmanager
def imported(folder: Path, name: str) -> Iterator[ModuleType]:
    """The package `folder/name` imported, then forgotten (sys.path and sys.modules as before)."""
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))
        forget(name)


def cli_run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one in-process `mcpgen ...` run. mcpgen always ends with
    SystemExit, 0 included: that is its way to answer, not an error, so it is caught here rather
    than expected with pytest.raises."""
    from mcpgen.cli import main

    try:
        main(args)
    except SystemExit as ended:
        code = ended.code
    else:
        raise AssertionError(f"mcpgen {' '.join(args)} returned without an exit status")
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else 1), out, err


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# Wire names that stress the naming rules (keywords, collisions, unicode, digits, members).
AWKWARD = [
    "get-weather",
    "get_weather",
    "getWeather",
    "a.b.c",
    "my tool",
    "class",
    "list",
    "print",
    "model_dump",
    "schema",
    "json",
    "call_tool",
    "dispatch",
    "with_options",
    "connect",
    "close",
    "天気",
    "café",
    "Ωmega",
    "",
    "3d",
    "__init__",
    "self",
    "_private",
    "None",
    "get_weather_2",
    # File names: Windows keeps "con" for a device; a name has no length limit, a file name has.
    "con",
    "t" * 300,
    "t" * 299 + "u",
]


def scaffold_server(out: Path, tools_json: str, package: str, handlers: str) -> Path:
    """`mcpgen server` of `tools_json` into out/package (a subprocess, as a user runs it), its
    handlers.py replaced by `handlers`; returns `out` (the folder to run `python -m package` in)."""
    import subprocess

    (out / "tools.json").write_text(tools_json)
    done = subprocess.run(
        [PY, "-m", "mcpgen.cli", "server", str(out / "tools.json"), "-o", str(out / package)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=out,
    )
    assert done.returncode == 0, done.stderr
    (out / package / "handlers.py").write_text(handlers)
    return out


def mcpgen_cli(cwd: Path, *args: str, timeout: float = 300) -> None:
    """`python -m mcpgen.cli ARGS` in `cwd`, which must succeed (its stderr is the failure's message)."""
    import subprocess

    done = subprocess.run([PY, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr


@contextlib.contextmanager
def importable(root: Path, *packages: str) -> Iterator[Path]:
    """`root` on sys.path inside the block, so its generated `packages` import; afterwards they
    are forgotten (sys.modules too), so another test can generate packages of the same names."""
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        forget(*packages)
