"""`--project` end to end: a generated client and a generated server, each an installable
distribution, built as wheels (hatchling, no build isolation) and installed with no index into a
fresh venv that holds only mcpgen-runtime (from ./runtime); there the client calls the server
over stdio and over HTTP, and both pass mypy --strict and pyright --strict against that venv.

pip proves the dependencies: installing with --no-index succeeds only when what each pyproject
requires (mcpgen-runtime in the release range the code checks, with the extras it names) is
already in the venv.
"""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkers import errors_of, mypy, pyright_strict
from generation import mcpgen_cli
from serving import serving

from mcpgen.render.environment import runtime_requires

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Installed:
    python: Path
    work: Path  # the two project folders, the wheels, and `run/` (a folder without their sources)


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("project-install")
    venv.create(work / "venv", with_pip=False)
    python = work / "venv" / "bin" / "python"
    _pip("--python", str(python), "install", f"{REPO / 'runtime'}[http]")
    source = work / "source"
    shutil.copytree(REPO / "examples" / "weather" / "weather_server", source / "weather_server")
    live = ["--", sys.executable, "-m", "weather_server"]
    mcpgen_cli(source, "client", "-q", "-o", str(work / "weather-client"), "--project", *live)
    server = ["server", "-q", "-o", str(work / "weather-server"), "--project", "--project-extra", "http"]
    mcpgen_cli(source, *server, "--name", "weather_server", *live)
    # The handlers are the user's file: the example's own, for a server that answers.
    shutil.copy(source / "weather_server" / "handlers.py", work / "weather-server" / "weather_server" / "handlers.py")
    _pip(
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        str(work / "wheels"),
        *(str(work / p) for p in ("weather-client", "weather-server")),
    )
    wheels = sorted(str(w) for w in (work / "wheels").glob("*.whl"))
    assert len(wheels) == 2, wheels
    _pip("--python", str(python), "install", "--no-index", *wheels)
    (work / "run").mkdir()
    return Installed(python, work)


def _run(installed: Installed, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(installed.python), "-c", code, *args],
        cwd=installed.work / "run",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_wheels_carry_the_package_its_marker_and_the_exact_requirement(installed: Installed) -> None:
    code = (
        "import importlib.metadata as m, pathlib, weather_client, weather_server\n"
        "print(pathlib.Path(weather_client.__file__).parent.joinpath('py.typed').is_file())\n"
        "print('site-packages' in weather_client.__file__)\n"
        "print(m.requires('weather-client'))\nprint(m.requires('weather-server'))\n"
        "print(pathlib.Path(weather_server.__file__).parent.joinpath('test_weather_server_contract.py').exists())"
    )
    result = _run(installed, code)
    assert result.returncode == 0, result.stderr
    marker, installed_from, client, server, contract = result.stdout.splitlines()
    assert (marker, installed_from, contract) == ("True", "True", "False")  # no contract test in the wheel
    assert [_requirement(r) for r in ast.literal_eval(client)] == [("mcpgen-runtime", _bounds(runtime_requires()))]
    assert [_requirement(r) for r in ast.literal_eval(server)] == [
        ("mcpgen-runtime[http]", _bounds(runtime_requires()))
    ]


def _bounds(specifier: str) -> set[str]:
    return set(specifier.split(","))


def _requirement(text: str) -> tuple[str, set[str]]:
    """(name with extras, its specifier's clauses): metadata may list the clauses in any order."""
    cut = min(i for i, c in enumerate(text) if c in "<>=!~")
    return text[:cut], _bounds(text[cut:])


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_installed_client_calls_the_installed_server(installed: Installed, transport: str) -> None:
    connect = {
        "stdio": "Client.connect_stdio(sys.executable, ['-m', 'weather_server'])",
        "http": "Client.connect_http(sys.argv[1])",
    }[transport]
    code = (
        f"import sys\nfrom weather_client import Client\nwith {connect} as c:\n"
        "    print(c.get_forecast(city='Oslo', days=2).city, c.session.server_info['version'])"
    )
    argv = [str(installed.python), "-m", "weather_server", "--http", "--port", "{port}"]
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(serving(argv, cwd=installed.work / "run")) if transport == "http" else ""
        result = _run(installed, code, url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Oslo", "0.1.0"]  # the scaffold reports the project's version


def test_both_projects_pass_mypy_and_pyright_strict_against_the_venv(installed: Installed) -> None:
    # What the wheels hold: the scaffold's contract test is not in it (it runs on the generator's
    # testing kit, where mcpgen is installed, and is checked there: tests/functional).
    (installed.work / "weather-server" / "weather_server" / "test_weather_server_contract.py").unlink(missing_ok=True)
    for project, package in (("weather-client", "weather_client"), ("weather-server", "weather_server")):
        done = mypy(installed.work / project, "--strict", "--python-executable", str(installed.python), package)
        assert done.returncode == 0, done.stdout[-3000:]
    # The server's generated files; its handlers.py here is the example's, the user's own code.
    server = [f"weather-server/weather_server/{f}" for f in ("_generated", "__init__.py", "__main__.py")]
    folders = ["weather-client/weather_client", *server]
    report = pyright_strict(installed.work, folders, str(installed.python))
    summary, errors = report["summary"], errors_of(report)
    assert summary["filesAnalyzed"] > 10 and errors == [], errors[:5]
