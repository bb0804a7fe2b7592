"""A vendored client and a vendored server (`--runtime vendor`, only the part of the runtime each
uses) pass `mypy --strict` and `pyright --strict`, run with no mcpgen importable, talk over
Streamable HTTP when httpx is installed, and say exactly what to install when it is not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from checkers import errors_of, mypy, pyright_strict
from serving import serving

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
PACKAGES = ("vendored_client", "vendored_server")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The weather example server, a vendored client and a vendored scaffold generated from it,
    and a `mcpgen` that refuses to load in front of the installed one (`shadow/`)."""
    root = tmp_path_factory.mktemp("vendored")
    shutil.copytree(REPO / "examples" / "weather" / "weather_server", root / "weather_server")
    for kind, name in zip(("client", "server"), PACKAGES, strict=True):
        done = subprocess.run(
            [sys.executable, "-m", "mcpgen.cli", kind, "-q", "-o", name, "--runtime", "vendor"]
            + ["--", sys.executable, "-m", "weather_server"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    (root / "shadow" / "mcpgen").mkdir(parents=True)
    (root / "shadow" / "mcpgen" / "__init__.py").write_text("raise ImportError('mcpgen must not be imported')\n")
    yield root


def _without_mcpgen(work: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(work / "shadow"), str(work)])}


def _run(work: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", code, *args]
    return subprocess.run(argv, cwd=work, env=_without_mcpgen(work), capture_output=True, text=True, timeout=120)


def test_both_pass_mypy_strict(work: Path) -> None:
    done = mypy(work, "--strict", "--python-version", "3.11", *PACKAGES)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Success: no issues found" in done.stdout


def test_both_pass_pyright_strict(work: Path) -> None:
    report = pyright_strict(work, list(PACKAGES))
    summary, errors = report["summary"], errors_of(report)
    assert summary["filesAnalyzed"] > 40, summary
    assert errors == [], json.dumps(errors[:10], indent=1)


def test_the_vendored_client_calls_a_server_over_http(work: Path) -> None:
    with serving([sys.executable, "-m", "weather_server", "--http", "--port", "{port}"], cwd=work) as url:
        call = (
            "import sys\nfrom vendored_client import Client\n"
            "with Client.connect_http(sys.argv[1]) as c:\n"
            "    print(c.get_forecast(city='Oslo', days=2).city, type(c).__module__)"
        )
        result = _run(work, call, url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Oslo", "vendored_client.client"]


def test_the_vendored_server_serves_http_to_the_vendored_client(work: Path) -> None:
    argv = [sys.executable, "-m", "vendored_server", "--http", "--port", "{port}"]
    with serving(argv, cwd=work, env=_without_mcpgen(work)) as url:
        call = (
            "import sys\nfrom vendored_client import Client\n"
            "with Client.connect_http(sys.argv[1]) as c:\n    print(c.session.server_info['name'])"
        )
        result = _run(work, call, url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "weather_server"


def test_without_httpx_the_vendored_client_says_what_to_install(work: Path) -> None:
    # httpx made unimportable in the client's interpreter (a None entry in sys.modules).
    call = (
        "import sys\nsys.modules['httpx'] = None\nfrom vendored_client import Client\n"
        "with Client.connect_http('http://127.0.0.1:9/mcp') as c:\n    pass"
    )
    result = _run(work, call)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: connect_http needs httpx, which is not installed: pip install httpx "
        "(every run-time requirement of vendored_client: vendored_client/_runtime/__init__.py)"
    )
