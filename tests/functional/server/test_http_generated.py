"""Generated code over Streamable HTTP against real peers, both protocol eras:
generated client <-> official SDK server (and its legacy HTTP+SSE transport),
official SDK client <-> generated server, generated client <-> generated server,
generated client <-> npm server-everything."""

from __future__ import annotations

import asyncio
import importlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from generation import forget
from serving import serving

REPO = Path(__file__).resolve().parents[3]
WEATHER = REPO / "examples/weather"
SDK_SERVER = REPO / "tests/peers/sdk_server.py"
EVERYTHING = REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
LOOPBACK_MJS = REPO / "tests/peers/loopback_only.mjs"
ERAS = ["legacy", "2026-07-28"]


def generate_client(args: list[str], out: Path, name: str) -> ModuleType:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", *args, "-o", str(out / name)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=out,
    )
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out))


@pytest.fixture
def unload() -> Iterator[None]:
    yield
    forget("sdk_http_client", "weather_http_client", "everything_http_client")


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[str]:
    with serving([sys.executable, str(SDK_SERVER), "--http", "--port", "{port}"], timeout=60) as url:
        yield url


@pytest.fixture(scope="module")
def weather_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The bundled example server, scaffolded by mcpgen and filled in, served with --http.
    with serving(
        [sys.executable, "-m", "weather_server", "--http", "--port", "{port}"], cwd=WEATHER, timeout=60
    ) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("era", ERAS)
def test_generated_client_with_official_sdk_server(sdk_http: str, era: str, tmp_path: Path, unload: None) -> None:
    pkg = generate_client(["--url", sdk_http], tmp_path, "sdk_http_client")

    async def main() -> None:
        async with pkg.AsyncClient.connect_http(sdk_http, protocol=era) as c:
            assert c.session.era == ("legacy" if era == "legacy" else "modern")
            assert await c.add(a=20, b=22) == 42  # SDK's {"result": n} wrapper unwrapped
            assert await c.echo(text="héllo") == "héllo"  # a str return: outputSchema {"result": str}
            weather = await c.weather(city="Paris")
            assert weather.city == "Paris"
            seen: list[float] = []
            await c.with_options(progress=lambda p, t, m: seen.append(p)).progress(steps=3)
            assert seen == [1, 2, 3]

    asyncio.run(main())


@pytest.mark.slow
def test_generated_client_falls_back_to_legacy_sse(tmp_path: Path, unload: None) -> None:
    with serving([sys.executable, str(SDK_SERVER), "--sse", "--port", "{port}"], path="/sse", timeout=60) as url:
        pkg = generate_client(["--url", url], tmp_path, "sdk_http_client")

        async def main() -> None:
            async with pkg.AsyncClient.connect() as c:  # the URL it was generated from
                assert type(c.session.transport).__name__ == "LegacySseTransport"
                assert await c.add(a=1, b=2) == 3

        asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
def test_official_sdk_client_with_generated_server(weather_http: str, mode: str) -> None:
    from mcp.client import Client

    async def main() -> None:
        async with Client(weather_http, mode=mode) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == {"get-forecast", "list_cities", "weather.alert"}
            forecast = await c.call_tool("get-forecast", {"city": "Oslo", "days": 2})
            assert forecast.is_error is False and len(forecast.structured_content["days"]) == 2  # type: ignore[index]
            cities = await c.call_tool("list_cities", {"country": "JP"})
            structured: Any = cities.structured_content
            assert structured == {"result": ["Kyoto", "Tokyo"]}
            bad = await c.call_tool("get-forecast", {"city": "Oslo", "units": "kelvin"})
            assert bad.is_error is True and "units" in bad.content[0].text  # type: ignore[union-attr]

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("era", ERAS)
def test_generated_client_with_generated_server(weather_http: str, era: str, tmp_path: Path, unload: None) -> None:
    shutil.copytree(WEATHER / "schemas", tmp_path / "schemas")
    pkg = generate_client([str(tmp_path / "schemas" / "get_forecast.yaml")], tmp_path, "weather_http_client")

    async def main() -> None:
        async with pkg.AsyncClient.connect_http(weather_http, protocol=era) as c:
            forecast = await c.get_forecast(city="Lyon", days=1, units="fahrenheit")
            assert isinstance(forecast, pkg.models.GetForecastResult)
            assert forecast.units == "fahrenheit" and [d.day for d in forecast.days] == [1]

    # The client knows one of the server's three tools: connecting says so, and calls go on.
    with pytest.warns(pkg.SchemaDriftWarning, match=r"added: list_cities, weather\.alert"):
        asyncio.run(main())


@pytest.mark.slow
def test_generated_client_with_server_everything_over_http(tmp_path: Path, unload: None) -> None:
    node = shutil.which("node")
    assert node is not None
    argv = [node, "--import", str(LOOPBACK_MJS), str(EVERYTHING), "streamableHttp"]
    with serving(argv, env={"PORT": "{port}"}, timeout=60) as url:
        pkg = generate_client(["--url", url], tmp_path, "everything_http_client")

        async def main() -> None:
            async with pkg.AsyncClient.connect() as c:
                assert (await c.echo(message="over http")).text == "Echo: over http"
                total = await c.get_sum(a=2, b=3)
                assert "5" in total.text

        asyncio.run(main())
