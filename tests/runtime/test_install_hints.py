"""What the runtime tells a user to install names the runtime's own distribution: generated code
depends on `mcpgen-runtime`, not on the generator, so no message of `mcpgen/runtime/` may say
`mcpgen[...]` (the rule, over every string of every runtime module, checked on a planted
violation too); the two extras hints that did (`--store redis`, auth over HTTP) come from
core/extras.py's `install_hint`, the one place such a line is made."""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import pytest

import mcpgen.runtime
from mcpgen.runtime.server.http import serving
from mcpgen.runtime.server.options import ServeOptions
from mcpgen.runtime.server.server import Server
from mcpgen.runtime.server.store import options as store_options

RUNTIME = Path(mcpgen.runtime.__file__).resolve().parent
# The generator's distribution with an extra: `mcpgen[oauth]`, never `mcpgen-runtime[oauth]`.
GENERATOR_EXTRA = re.compile(r"(?<![\w.-])mcpgen\[")


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module (f-strings' literal parts included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _naming_the_generator(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line}"
        for path in sorted(root.rglob("*.py"))
        for line, text in _strings(path)
        if GENERATOR_EXTRA.search(text)
    ]


def test_no_runtime_string_names_the_generators_distribution(tmp_path: Path) -> None:
    assert _naming_the_generator(RUNTIME) == []
    (tmp_path / "planted.py").write_text(
        "def f(e):\n    raise SystemExit(f\"needs pip install 'mcpgen[redis]': {e}\")\n"
        "OK = \"pip install 'mcpgen-runtime[redis]'\"\n"
    )
    assert _naming_the_generator(tmp_path) == ["planted.py:2"]


def test_a_missing_redis_names_the_runtimes_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_redis(url: str | None) -> None:
        raise ImportError("No module named 'redis'")

    monkeypatch.setattr(store_options, "open_store", no_redis)
    with pytest.raises(SystemExit, match="^2$"):
        store_options.store_from_args(argparse.Namespace(store="redis://localhost"))
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: --store redis needs the redis extra (pip install 'mcpgen-runtime[redis]'): ")


def test_a_missing_oauth_extra_names_the_runtimes_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcpgen.runtime.server.auth.resource", None)  # its import fails
    options = ServeOptions(auth=object())  # type: ignore[arg-type]  # (never read: the import fails first)
    with pytest.raises(SystemExit, match=re.escape("auth needs the oauth extra (pip install 'mcpgen-runtime[oauth]')")):
        serving._asgi_app(Server("s", "1"), options)
