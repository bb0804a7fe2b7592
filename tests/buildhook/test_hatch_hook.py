"""The hatchling build hook: `pip wheel` of a project that commits only a snapshot generates its
client into the wheel, with the bytes and manifest `mcpgen generate` writes; a live source is
refused in one line unless the hook's table allows it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mcpgen.buildhook.build import BuildRefused, HookOptions, build_targets, hook_options

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "examples" / "weather"
MCPGEN = str(Path(sys.executable).with_name("mcpgen"))  # the installed command
MANIFEST = "weather_client/.mcpgen-manifest.json"

PYPROJECT = """\
[build-system]
requires = ["hatchling", "mcpgen"]
build-backend = "hatchling.build"

[project]
name = "weather-app"
version = "1.0"

[tool.hatch.build.targets.wheel]
packages = ["weather_client"]

[tool.hatch.build.hooks.mcpgen]

[tool.mcpgen.targets.weather]
kind = "client"
source = "snapshots/weather.snapshot.json"
output = "weather_client"
"""


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "MCPGEN_"))}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example weather server's catalog, snapshotted from the running server."""
    path = tmp_path_factory.mktemp("snap") / "weather.snapshot.json"
    done = _run(
        [
            MCPGEN,
            "snapshot",
            "-q",
            "-o",
            str(path),
            "--",
            sys.executable,
            "-m",
            "weather_server",
        ],
        WEATHER,
    )
    assert done.returncode == 0, done.stderr
    return path


def _project(root: Path, snapshot: Path, pyproject: str = PYPROJECT) -> Path:
    (root / "snapshots").mkdir(parents=True)
    shutil.copy(snapshot, root / "snapshots" / "weather.snapshot.json")
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    # The team does not commit generated code: git ignores it, the wheel must hold it anyway.
    (root / ".gitignore").write_text("weather_client/\n", encoding="utf-8")
    return root


def _wheel(project: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", str(dist), "."]
    return _run(args, project)


@pytest.mark.slow
def test_the_wheel_holds_the_generated_client_with_its_manifests_hashes(tmp_path: Path, snapshot: Path) -> None:
    project = _project(tmp_path / "app", snapshot)
    built = _wheel(project, tmp_path / "dist")
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("weather_app-1.0-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        inside = {n: zf.read(n) for n in zf.namelist() if n.startswith("weather_client/")}
    manifest = json.loads(inside[MANIFEST])
    assert manifest["kind"] == "client" and "client.py" in manifest["files"]
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256(inside[f"weather_client/{rel}"]).hexdigest() == digest, rel
    assert set(inside) == {MANIFEST, *(f"weather_client/{rel}" for rel in manifest["files"])}
    assert b"async def get_forecast" in inside["weather_client/client.py"]
    # The same bytes as `mcpgen generate` in a copy of the project, manifest included.
    other = _project(tmp_path / "other", snapshot)
    generated = _run([MCPGEN, "generate", "-q"], other)
    assert generated.returncode == 0, generated.stderr
    on_disk = {
        f"weather_client/{p.relative_to(other / 'weather_client').as_posix()}": p.read_bytes()
        for p in (other / "weather_client").rglob("*")
        if p.is_file()
    }
    assert on_disk == inside


@pytest.mark.slow
def test_a_live_source_in_a_build_is_refused_in_one_line(tmp_path: Path, snapshot: Path) -> None:
    live = PYPROJECT.replace(
        'source = "snapshots/weather.snapshot.json"', 'command = ["python", "-m", "weather_server"]'
    )
    project = _project(tmp_path / "app", snapshot, live)
    built = _wheel(project, tmp_path / "dist")
    assert built.returncode != 0
    lines = [line for line in (built.stdout + built.stderr).splitlines() if "mcpgen: error:" in line]
    assert len(lines) == 1 and "a build generates from files, not a live server" in lines[0], built.stderr
    assert "allow-live = true" in lines[0]
    assert not (project / "weather_client").exists() and not list((tmp_path / "dist").glob("*.whl"))


def test_allow_live_lets_a_live_target_through(tmp_path: Path, snapshot: Path) -> None:
    live = PYPROJECT.replace('source = "snapshots/weather.snapshot.json"', 'url = "http://127.0.0.1:9/mcp"')
    project = _project(tmp_path / "app", snapshot, live)
    with pytest.raises(BuildRefused, match=r"not a live server \(http://127\.0\.0\.1:9/mcp\)"):
        build_targets(project, HookOptions())
    (chosen,) = build_targets(project, hook_options({"allow-live": True}))
    assert chosen.source.url == "http://127.0.0.1:9/mcp"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        pytest.param({"allow-live": "yes"}, "'allow-live' must be true or false", id="allow-live"),
        pytest.param({"targets": "weather"}, "'targets' must be a list of target names", id="targets"),
        pytest.param({"alow-live": True}, "unknown option 'alow-live'", id="typo"),
    ],
)
def test_a_bad_hook_table_is_refused(table: dict[str, object], message: str) -> None:
    with pytest.raises(BuildRefused, match=message):
        hook_options(table)


def test_an_unknown_target_or_a_missing_table_is_refused(tmp_path: Path, snapshot: Path) -> None:
    project = _project(tmp_path / "app", snapshot)
    with pytest.raises(BuildRefused, match=r"no target named 'wether' \(known: weather\)"):
        build_targets(project, HookOptions(targets=("wether",)))
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(BuildRefused, match=r"no pyproject\.toml with a \[tool\.mcpgen\] table"):
        build_targets(bare, HookOptions())
