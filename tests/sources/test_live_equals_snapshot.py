"""Generating from a live server and from its snapshot gives the same bytes (every file, the
manifest too), for several server shapes: keys in the server's own order (serverInfo, prompts,
resources), failed optional lists, HTTP, the official Python SDK and the reference `everything`
server. Real servers, the real `mcpgen` command."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.generation import EVERYTHING

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
PEER = str(REPO / "tests/peers/real_shapes_server.py")

# shape -> the source flags of `mcpgen` for it (a "{url}" is the HTTP peer's URL)
SHAPES: dict[str, list[str]] = {
    "keys-out-of-order": ["--", PY, PEER],
    "failed-lists": ["--", PY, PEER, "--fail", "prompts/list=-32601", "--repeat", "resources/templates/list"],
    "http": ["--url", "{url}"],
    "python-sdk": ["--", PY, str(REPO / "tests/peers/sdk_server.py")],
    "everything": ["--", *EVERYTHING],
}


def mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run([PY, "-m", "mcpgen.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=180)
    assert done.returncode == 0, done.stderr


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_live_and_its_snapshot_generate_the_same_bytes(
    tmp_path: Path, shape: str, real_shapes_http: Callable[..., str]
) -> None:
    if shape == "everything" and not Path(EVERYTHING[1]).exists():
        pytest.skip("the everything server is not installed (make setup runs npm ci)")
    url = real_shapes_http() if shape == "http" else ""
    source = [a.replace("{url}", url) for a in SHAPES[shape]]
    mcpgen("snapshot", "-q", "-o", "snap.json", *source, cwd=tmp_path)
    for kind in ("client", "server"):
        # The same folder name under two parents: the package name is the same too.
        (tmp_path / "live").mkdir(exist_ok=True)
        (tmp_path / "snap").mkdir(exist_ok=True)
        mcpgen(kind, "-q", "-o", f"live/{kind}_pkg", *source, cwd=tmp_path)
        mcpgen(kind, "-q", "-o", f"snap/{kind}_pkg", "snap.json", cwd=tmp_path)
        live, snap = tree(tmp_path / "live" / f"{kind}_pkg"), tree(tmp_path / "snap" / f"{kind}_pkg")
        assert live.keys() == snap.keys()
        assert [name for name in live if live[name] != snap[name]] == []
