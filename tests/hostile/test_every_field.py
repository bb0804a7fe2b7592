"""Rule 1 of issue 34, attacked: no untrusted string reaches generated code except through one
context-aware emitter (mcpgen/render/emitters.py, chosen by mcpgen/render/pycontext.py).

Every generator command (client flat and code-mode, the many-servers `--config` client of two
live `mcpgen mock` servers, server scaffold from the file and from a live mock server, its
contract test, docs) renders a catalog
whose every string field is a break-out payload (every_field.py) and its benign twin. Then:
- every generated `.py` parses, and the multiset of its files' syntax trees equals the benign
  twin's once string constants and identifiers are blanked (the names mcpgen derives from
  untrusted names may differ; node types, nesting and counts may not);
- the payloads' marker appears in no token but a string literal;
- importing every module (and `python -m` the server with `--help`) runs nothing: a
  sitecustomize traps os.system, os.popen, os.exec*/spawn*, subprocess.Popen, and exec, eval
  and compile called from a generated file;
- the HTML docs and the Markdown (rendered by a CommonMark parser) have the benign twin's tags
  and attributes, no javascript: link, and no NUL.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from every_field import MARK, benign, catalog, payload
from markdown_it import MarkdownIt

COMMANDS = {
    "flat": ["client", "cat.json", "-o", "flat_pkg"],
    "code_mode": ["client", "cat.json", "--layout", "code-mode", "-o", "code_pkg"],
    "server": ["server", "cat.json", "-o", "srv_pkg"],
    "docs": ["docs", "cat.json", "-o", "docs_out"],
    # Two live servers (`mcpgen mock` of the same catalog, over stdio) under one package.
    "many": ["client", "--config", "mcp.json", "-o", "many_pkg"],
    # The reported path: a scaffold mirroring a live (here: mock) server.
    "live_server": ["server", "-o", "live_pkg", "--", sys.executable, "-m", "mcpgen.cli", "mock", "cat.json"],
}
PACKAGES = ["flat_pkg", "code_pkg", "srv_pkg", "many_pkg", "live_pkg"]
TRAP = """
import builtins, os, subprocess, sys
_ROOT = os.environ["MCPGEN_TRAP_ROOT"]
_LOG = os.environ["MCPGEN_TRAP_LOG"]
def _hit(what):
    with open(_LOG, "a", encoding="utf-8") as f:
        f.write(what + "\\n")
    raise RuntimeError("trapped: " + what)
def _wrap_any(name, real):
    def trap(*a, **k):
        _hit(name)
    return trap
for _name in ("system", "popen", "execv", "execve", "execvp", "execl", "spawnv", "spawnl", "posix_spawn"):
    if hasattr(os, _name):
        setattr(os, _name, _wrap_any("os." + _name, getattr(os, _name)))
subprocess.Popen.__init__ = lambda self, *a, **k: _hit("subprocess.Popen")
def _wrap_generated(name, real):
    def trap(*a, **k):
        if sys._getframe(1).f_code.co_filename.startswith(_ROOT):
            _hit("builtins." + name)
        return real(*a, **k)
    return trap
for _name in ("exec", "eval", "compile"):
    setattr(builtins, _name, _wrap_generated(_name, getattr(builtins, _name)))
"""


def _mcpgen(args: list[str], cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)


def _render(root: Path, document: dict[str, object], names: list[str]) -> Path:
    root.mkdir()
    (root / "cat.json").write_text(json.dumps(document), encoding="utf-8")
    mock = {"command": sys.executable, "args": ["-m", "mcpgen.cli", "mock", "cat.json"], "cwd": str(root)}
    config = {"mcpServers": {"one": mock, "two": mock}}
    (root / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    for name in names:
        _mcpgen(COMMANDS[name], root)
    return root


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("every_field")
    names = list(COMMANDS)
    return _render(base / "benign", catalog(benign), names), _render(base / "hostile", catalog(payload), names)


class _Blank(ast.NodeTransformer):
    """String constants and identifiers blanked: what is left is the file's shape."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant("") if isinstance(node.value, (str, bytes)) else node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("id", "attr", "arg", "name", "asname", "module"):
            if isinstance(getattr(node, field, None), str):
                setattr(node, field, "N")
        return super().generic_visit(node)


def _shapes(folder: Path) -> Counter[str]:
    return Counter(ast.dump(_Blank().visit(ast.parse(p.read_text(encoding="utf-8")))) for p in folder.rglob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("folder", PACKAGES)
def test_hostile_catalog_generates_the_benign_shape(twins: tuple[Path, Path], folder: str) -> None:
    good, bad = (twin / folder for twin in twins)
    assert len(list(bad.rglob("*.py"))) == len(list(good.rglob("*.py"))) > 3
    hostile, benign_shapes = _shapes(bad), _shapes(good)
    assert hostile == benign_shapes, sorted((hostile - benign_shapes).items())[:1]


@pytest.mark.slow
@pytest.mark.parametrize("folder", PACKAGES)
def test_payloads_stay_inside_string_literals(twins: tuple[Path, Path], folder: str) -> None:
    files = sorted((twins[1] / folder).rglob("*.py"))
    seen = 0
    for path in files:
        src = path.read_text(encoding="utf-8")
        assert "\x00" not in src and "\u2028" not in src, path
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if MARK in tok.string:
                seen += 1
                assert tok.type == tokenize.STRING, f"{path}:{tok.start}: {tok.string[:80]!r}"
    assert seen > 20  # the payloads did reach the files, as text


def _run_trapped(twin: Path, code: list[str]) -> subprocess.CompletedProcess[str]:
    trap = twin / "trap"
    trap.mkdir(exist_ok=True)
    (trap / "sitecustomize.py").write_text(TRAP, encoding="utf-8")
    log = twin / "trap.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(trap), str(twin)]),
        "MCPGEN_TRAP_ROOT": str(twin),
        "MCPGEN_TRAP_LOG": str(log),
    }
    done = subprocess.run([sys.executable, *code], cwd=twin, env=env, capture_output=True, text=True, timeout=120)
    assert not log.exists(), log.read_text(encoding="utf-8")
    assert MARK not in done.stdout
    return done


IMPORT_ALL = """
import importlib, pkgutil, sys
for name in sys.argv[1:]:
    pkg = importlib.import_module(name)
    for info in pkgutil.walk_packages(pkg.__path__, name + "."):
        importlib.import_module(info.name)
print("imported")
"""


@pytest.mark.slow
def test_importing_and_running_the_hostile_render_runs_nothing(twins: tuple[Path, Path]) -> None:
    hostile = twins[1]
    done = _run_trapped(hostile, ["-c", IMPORT_ALL, *PACKAGES])
    assert done.stdout.strip() == "imported", done.stderr
    for server in ("srv_pkg", "live_pkg"):
        done = _run_trapped(hostile, ["-m", server, "--help"])
        assert done.returncode == 0 and "usage" in done.stdout.lower(), done.stderr
    # The contract test is a module of the package: IMPORT_ALL imported it with the rest.
    assert sorted((hostile / "srv_pkg").glob("test_*contract*.py"))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag + "(" + ",".join(sorted(name for name, _ in attrs)) + ")"] += 1
        self.links += [value or "" for name, value in attrs if name in ("href", "src")]


def _tags(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


# What a description keeps of its own Markdown by design (md_block): emphasis and code spans.
INLINE_FORMATTING = ("em()", "strong()", "code()")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["index.html", "reference.md", "llms.txt"])
def test_hostile_docs_keep_the_benign_markup(twins: tuple[Path, Path], name: str) -> None:
    good, bad = ((twin / "docs_out" / name).read_text(encoding="utf-8") for twin in twins)
    assert MARK in bad and not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", bad)
    markdown = not name.endswith(".html")
    if markdown:
        good, bad = (MarkdownIt("commonmark").enable("table").render(text) for text in (good, bad))
        # Each entry's heading is one code span holding the whole name, nothing else.
        headings = re.findall(r"<h3>(.*?)</h3>", bad, re.S) + re.findall(r"<li><a [^>]*>(.*?)</a>", bad, re.S)
        headings = [h for h in headings if MARK in h]
        assert headings and all(re.fullmatch(r"<code>[^<]*</code>", h) for h in headings), headings
    hostile, benign_tags = _tags(bad), _tags(good)
    for tags in (hostile.tags, benign_tags.tags):
        for tag in INLINE_FORMATTING if markdown else ():
            tags.pop(tag, None)
    assert hostile.tags == benign_tags.tags, (hostile.tags - benign_tags.tags, benign_tags.tags - hostile.tags)
    assert not [link for link in hostile.links if link.strip().lower().startswith(("javascript:", "data:"))]
