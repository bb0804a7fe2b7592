"""Every shell and Python block of README.md and of every page of the site (docs/**/*.md) runs,
in order, as a reader following that page would.

Blocks are found by their fence (```sh / bash / shell / console, ```python / py), whoever wrote
them: a new page's or section's blocks are tested with no change here. Each page is its own
sequence: its blocks run one after another in a fresh copy of examples/weather (the folder the
pages' commands name), or of the folder a line `<!-- snippets: examples/NAME -->` in the page
names, with this checkout's .venv
first on PATH; the npm test peers are linked in as node_modules, so `npx -y PACKAGE` starts the
installed peer without a download. A shell block runs under `bash -e`; a Python block is a
script run with the same interpreter. Stdin is an empty pipe (a stdio server started by a block
sees its client leave at once); each block's background processes are stopped with it.

SKIP names the few blocks that cannot run here, by a line they contain, each with its reason.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
# The README, then every page of the site in path order (what `mkdocs build` finds in docs/).
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]
EXAMPLE = REPO / "examples" / "weather"
# A page runs in another example folder when it says so: <!-- snippets: examples/conformance -->
WORKSPACE_DIRECTIVE = re.compile(r"^<!-- snippets: (examples/[A-Za-z0-9_-]+) -->$", re.M)
NODE_MODULES = REPO / "tests" / "peers" / "node_modules"
SHELL = ("sh", "bash", "shell", "console")
PYTHON = ("python", "py")
BLOCK_TIMEOUT = 240

# A line of the block -> why it cannot run in a test.
SKIP = {
    "export MCPGEN_STORE=redis://": "needs a Redis and serves until stopped; tests/functional/server/"
    "test_scale_out.py runs two workers on a real redis-server behind a real nginx",
    "make demo": "sets up this checkout and runs the whole test suite, this test included (make test)",
    "mcpgen client --url https://mcp.example.com/mcp": "needs a remote server and a login",
    "python -m weather_server --http --port 8000  #": "serves until stopped; tests/functional/server/"
    "test_http_announce.py runs it (on a free port) and checks what it prints",
    "async with c.resource_updates() as updates:": "a fragment inside the block above that waits for "
    "server-side changes; tests/functional/client/test_everything_features.py covers subscriptions",
    "mcpgen client --config mcp.json --server github --server linear": "names github and linear servers the "
    "example's mcp.json does not have; tests/functional/client/test_many_servers.py runs the same commands "
    "over two scaffolded servers whose tools collide",
    "$ mcpgen login https://mcp.example.com/mcp": "a transcript against a remote server that needs a "
    "browser login; tests/functional/client/test_oauth_login.py runs login, status, client --url and logout "
    "against a local authorization server",
    "auth = OAuth(authorizer=PasteBack()": "needs a remote server that asks for a login; "
    "tests/functional/client/test_oauth_login.py connects a generated client with auth= to one",
    "--auth-issuer https://auth.example.com": "serves until stopped, and needs a real authorization "
    "server; tests/functional/server/test_oauth_server.py runs a protected server against oidc-provider",
    "await c.github.create_issue": "the package of the block above (github and linear servers); "
    "tests/functional/client/test_many_servers.py calls through such a package",
}


@dataclass(frozen=True)
class Block:
    line: int  # where its fence opens in its page
    language: str
    code: str
    page: str = "README.md"  # relative to the repository

    @property
    def skip_reason(self) -> str | None:
        for marker, reason in SKIP.items():
            if marker in self.code:
                return reason
        return None


FENCE = re.compile(r"^```([A-Za-z0-9_-]*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)


def blocks(text: str, page: str = "README.md") -> list[Block]:
    """Every fenced block in a language we run, in document order."""
    found = []
    for match in FENCE.finditer(text):
        language = match.group(1).lower()
        if language in SHELL or language in PYTHON:
            found.append(Block(text.count("\n", 0, match.start()) + 1, language, match.group(2), page))
    return found


def example_folder(text: str) -> Path:
    """The example folder a page's blocks run in: examples/weather unless the page names another."""
    named = WORKSPACE_DIRECTIVE.search(text)
    folder = REPO / named.group(1) if named else EXAMPLE
    assert folder.is_dir(), f"{named.group(0) if named else folder}: no such example folder"
    return folder


def _page_blocks() -> list[Block]:
    return [b for page in PAGES for b in blocks(page.read_text(encoding="utf-8"), page.relative_to(REPO).as_posix())]


def test_the_extractor_finds_blocks_in_any_section() -> None:
    sample = "# A\n```sh\necho one\n```\n\ntext\n\n## B (added later)\n```python\nprint(2)\n```\n```toml\nx = 1\n```\n"
    assert [(b.line, b.language, b.code) for b in blocks(sample)] == [
        (2, "sh", "echo one\n"),
        (9, "python", "print(2)\n"),
    ]


def test_the_extractor_knows_each_page_and_its_folder() -> None:
    assert README in PAGES and REPO / "docs" / "tutorial" / "first-client.md" in PAGES
    assert example_folder("# A page\n") == EXAMPLE
    assert example_folder("# A\n<!-- snippets: examples/conformance -->\n") == REPO / "examples" / "conformance"
    with pytest.raises(AssertionError, match="no such example folder"):
        example_folder("<!-- snippets: examples/nowhere -->\n")


def test_every_skip_names_a_block_that_exists() -> None:
    codes = [b.code for b in ALL_BLOCKS]
    for marker in SKIP:
        assert any(marker in code for code in codes), f"SKIP entry matches no README or docs block: {marker!r}"


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """page -> its workspace, made on the page's first block (each page starts from a fresh copy)."""
    return {}


def _workspace(page: str, made: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    if page not in made:
        folder = example_folder((REPO / page).read_text(encoding="utf-8"))
        root = tmp_path_factory.mktemp("snippets") / folder.name
        shutil.copytree(folder, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if NODE_MODULES.is_dir():
            (root / "node_modules").symlink_to(NODE_MODULES)
        elif os.environ.get("CI"):
            raise AssertionError("tests/peers/node_modules is missing: run `make setup`")
        made[page] = root
    return made[page]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    return env


def _run(block: Block, cwd: Path, index: int) -> subprocess.CompletedProcess[str]:
    if block.language in SHELL:
        argv = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    else:
        script = cwd / f"_readme_block_{index}.py"
        script.write_text(block.code, encoding="utf-8")
        argv = [sys.executable, script.name]
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: background servers stop with it
    )
    try:
        out, err = proc.communicate(input="", timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        err += f"\n(stopped after {BLOCK_TIMEOUT}s)"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


ALL_BLOCKS = _page_blocks()


@pytest.mark.slow
@pytest.mark.timeout(BLOCK_TIMEOUT + 60)
@pytest.mark.parametrize(
    "index", range(len(ALL_BLOCKS)), ids=[f"{b.page}:line{b.line}-{b.language}" for b in ALL_BLOCKS]
)
def test_snippet_runs(index: int, workspaces: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> None:
    """A page's blocks run in its order in one workspace: each sees what the ones before it made."""
    block = ALL_BLOCKS[index]
    if block.skip_reason:
        pytest.skip(block.skip_reason)
    done = _run(block, _workspace(block.page, workspaces, tmp_path_factory), index)
    assert done.returncode == 0, (
        f"{block.page} line {block.line} ({block.language}) exited {done.returncode}:\n{block.code}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )


def test_most_blocks_run() -> None:
    """The skip list stays small: most blocks really run."""
    runnable = [b for b in ALL_BLOCKS if not b.skip_reason]
    assert len(runnable) >= 6 and len(runnable) > len(SKIP), (len(runnable), len(SKIP))
