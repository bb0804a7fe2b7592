"""mcpgen-runtime (runtime/pyproject.toml) installed alone in a fresh venv: what it pulls in,
how much room it takes, and a generated client and server running on it, over stdio and HTTP.

One venv for the whole module (installing takes most of the time); no pip in it, so that what
is there is what mcpgen-runtime brought. The generator runs from the repo's own venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from serving import serving

from mcpgen.render.environment import runtime_requires
from mcpgen.runtime.version import __version__ as runtime_version

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# The generator's own dependencies: none of them may come with the runtime.
GENERATOR_ONLY = {"mcpgen", "click", "jinja2", "datamodel-code-generator", "ruff", "pyyaml", "black"}
SIZE_LIMIT = 30 * 1024 * 1024


@dataclass
class RuntimeVenv:
    python: Path
    site_packages: Path
    base_distributions: set[str]  # installed by `pip install ./runtime`, before any extra
    work: Path  # the weather server example and a client generated from it


def _pip_install(python: Path, *requirements: str) -> None:
    # The repo venv's pip installs into the fresh one (--python), which therefore holds no pip.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *requirements], check=True)


def _run(python: Path, code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(python), "-c", code], cwd=cwd, env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


def _distributions(python: Path, cwd: Path) -> set[str]:
    listing = _run(
        python, "import importlib.metadata as m; print(*(d.metadata['Name'] for d in m.distributions()))", cwd
    )
    return {name.lower() for name in listing.stdout.split()}


@pytest.fixture(scope="session")
def runtime_venv(tmp_path_factory: pytest.TempPathFactory) -> RuntimeVenv:
    root = tmp_path_factory.mktemp("runtime-alone")
    venv.create(root / "venv", with_pip=False)
    python = root / "venv" / "bin" / "python"
    work = root / "work"
    work.mkdir()
    _pip_install(python, str(REPO / "runtime"))
    base = _distributions(python, work)
    _pip_install(python, f"{REPO / 'runtime'}[http]")
    shutil.copytree(REPO / "examples" / "weather" / "weather_server", work / "weather_server")
    generated = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpgen.cli",
            "client",
            "-q",
            "-o",
            "weather_client",
            "--",
            str(python),
            "-m",
            "weather_server",
        ],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert generated.returncode == 0, generated.stderr
    site = Path(_run(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])", work).stdout.strip())
    return RuntimeVenv(python, site, base, work)


def test_alone_it_pulls_in_what_generated_code_validates_with_and_nothing_of_the_generator(
    runtime_venv: RuntimeVenv,
) -> None:
    assert "mcpgen-runtime" in runtime_venv.base_distributions
    assert {"pydantic", "jsonschema", "google-re2"} <= runtime_venv.base_distributions
    assert not runtime_venv.base_distributions & (GENERATOR_ONLY | {"httpx", "uvicorn"})
    with_http = _distributions(runtime_venv.python, runtime_venv.work)
    assert {"httpx", "uvicorn"} <= with_http
    assert not with_http & (GENERATOR_ONLY - {"click"})  # uvicorn's own command line needs click
    found = _run(runtime_venv.python, "import mcpgen.cli", runtime_venv.work)
    assert "No module named 'mcpgen.cli'" in found.stderr


def test_with_the_http_extra_it_stays_under_30_mb(runtime_venv: RuntimeVenv) -> None:
    size = sum(p.stat().st_size for p in runtime_venv.site_packages.rglob("*") if p.is_file())
    assert 0 < size < SIZE_LIMIT, f"{size / 2**20:.1f} MB"


def test_a_generated_client_calls_a_generated_server_over_stdio(runtime_venv: RuntimeVenv) -> None:
    call = "from weather_client import Client\nwith Client.connect() as c:\n    print(c.list_cities(country='NO'))"
    result = _run(runtime_venv.python, call, runtime_venv.work)
    assert result.returncode == 0, result.stderr
    assert "Oslo" in result.stdout


def test_a_generated_client_calls_a_generated_server_over_http(runtime_venv: RuntimeVenv) -> None:
    argv = [str(runtime_venv.python), "-m", "weather_server", "--http", "--port", "{port}"]
    with serving(argv, cwd=runtime_venv.work) as url:
        call = (
            "import sys\nfrom weather_client import Client\n"
            "with Client.connect_http(sys.argv[1]) as c:\n    print(c.get_forecast(city='Oslo', days=2).city)"
        )
        result = subprocess.run(
            [str(runtime_venv.python), "-c", call, url],
            cwd=runtime_venv.work,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Oslo"


def test_under_another_runtime_minor_version_the_import_fails_in_one_line(
    runtime_venv: RuntimeVenv, tmp_path: Path
) -> None:
    # The installed runtime, as its next minor release: the same code under another version.
    other = tmp_path / "mcpgen" / "runtime"
    shutil.copytree(runtime_venv.site_packages / "mcpgen" / "runtime", other)
    version = other / "version.py"
    released = f'__version__ = "{runtime_version}"'
    assert released in version.read_text()
    version.write_text(version.read_text().replace(released, '__version__ = "0.99.1"'))
    for package in ("weather_client", "weather_server"):
        result = _run(runtime_venv.python, f"import {package}", runtime_venv.work, PYTHONPATH=str(tmp_path))
        assert result.returncode == 1
        requires = runtime_requires()
        assert result.stderr.splitlines()[-1] == (
            f"ImportError: {package} was generated for mcpgen-runtime{requires} but mcpgen-runtime 0.99.1 is "
            f"installed: pip install 'mcpgen-runtime{requires}' (or regenerate {package})"
        )
