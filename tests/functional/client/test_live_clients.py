"""Generated clients calling real servers over stdio (process-heavy: marked slow)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from generation import EVERYTHING, SDK_SERVER, TIME_SERVER, GenerateFn

pytestmark = pytest.mark.slow
GOLDEN_INPUTS = Path(__file__).resolve().parents[2] / "golden" / "inputs"


def _live_pkg(generate: GenerateFn, command: list[str]) -> Any:
    from mcpgen.sources.live import load_live

    cat, problems = load_live(command[0], command[1:])
    assert cat is not None, problems
    doc = {
        "initialize": {"serverInfo": cat.server_info},
        "tools": {"tools": [t.raw for t in cat.tools]},
        "source_command": list(cat.source_command or ()),
    }
    return generate(doc)


@pytest.mark.parametrize("origin", ["live", "file"])
def test_time_server(origin: str, generate: GenerateFn) -> None:
    if origin == "live":
        pkg = _live_pkg(generate, TIME_SERVER)
    else:
        pkg = generate(json.loads((GOLDEN_INPUTS / "time.raw.json").read_text()), source_command=TIME_SERVER)

    async def go() -> None:
        async with pkg.AsyncClient.connect() as c:
            r = await c.get_current_time(timezone="Europe/Paris")
            assert isinstance(r, pkg.models.GetCurrentTimeResult) and r.timezone == "Europe/Paris"
            conv = await c.convert_time(source_timezone="UTC", time="12:00", target_timezone="Asia/Tokyo")
            # 12:00 UTC is 21:00 the same day in Tokyo (no DST there): nine hours ahead.
            day = conv.source.datetime[:10]
            assert conv.source.datetime.startswith(f"{day}T12:00") and conv.source.timezone == "UTC"
            assert conv.target.datetime.startswith(f"{day}T21:00") and conv.time_difference == "+9.0h"
            with pytest.raises(
                pkg.ToolError,
                match=(
                    r"^tool 'get_current_time' failed: Error executing tool get_current_time: Invalid "
                    r"timezone: 'No time zone found with key Nowhere/Never'$"
                ),
            ):
                await c.get_current_time(timezone="Nowhere/Never")
            bad = await c.dispatch("get_current_time", {"timezone": 3})
            assert bad.is_error and "timezone" in bad.text

    asyncio.run(go())
    with pkg.Client.connect_stdio(TIME_SERVER[0], TIME_SERVER[1:]) as sc:  # the sync twin
        assert sc.get_current_time(timezone="UTC").timezone == "UTC"


@pytest.mark.parametrize("origin", ["live", "file"])
def test_everything_server(origin: str, generate: GenerateFn) -> None:
    if origin == "live":
        pkg = _live_pkg(generate, EVERYTHING)
    else:
        pkg = generate(json.loads((GOLDEN_INPUTS / "everything.raw.json").read_text()), source_command=EVERYTHING)
    seen: list[float] = []

    async def go() -> None:
        async with pkg.AsyncClient.connect_stdio(EVERYTHING[0], EVERYTHING[1:]) as c:
            assert (await c.echo(message="héllo")).text == "Echo: héllo"
            assert "3" in (await c.get_sum(a=1, b=2)).text
            sc = await c.get_structured_content(location="Chicago")
            assert isinstance(sc, pkg.models.GetStructuredContentResult) and type(sc.temperature) in (
                int,
                float,
            )  # a "number": the server's 36 stays 36
            img = await c.get_tiny_image()
            assert any(isinstance(b, pkg.ImageContent) and b.mime_type == "image/png" for b in img.content)
            links = await c.get_resource_links(count=2)
            assert sum(isinstance(b, pkg.ResourceLink) for b in links.content) == 2
            ref = await c.get_resource_reference()
            assert any(isinstance(b, pkg.EmbeddedResource) for b in ref.content)
            r = await c.with_options(
                progress=lambda p, t, m: seen.append(p), timeout=30
            ).trigger_long_running_operation(duration=0.3, steps=3)
            assert "completed" in r.text
            raw = await c.call_tool("get-sum", {"a": 2, "b": 2})
            assert "4" in raw["content"][0]["text"]
            assert {d["name"] for d in c.tool_definitions()} >= {"echo", "get-sum"}
            assert "Echo: x" == (await c.dispatch("echo", {"message": "x"})).text

    asyncio.run(go())
    assert seen == [1, 2, 3]


def test_sdk_server_structured_outputs(generate: GenerateFn) -> None:
    pkg = _live_pkg(generate, SDK_SERVER)

    async def go() -> None:
        async with pkg.AsyncClient.connect() as c:
            w = await c.get_weather(city="Oslo")
            assert isinstance(w, pkg.models.GetWeatherResult) and w.temperature == 21.5 and w.tags == ["c"]
            assert await c.list_squares(n=4) == [0, 1, 4, 9]
            assert await c.add(a=2) == 3  # omitted `b` not sent: the server default applies
            assert await c.add(a=2, b=5) == 7
            assert await c.echo_args(required="r") == {"received": "required", "count": "3"}
            assert await c.echo_args(required="r", optional="o", count=1) == {
                "received": "optional,required",
                "count": "1",
            }
            with pytest.raises(pkg.ToolError, match=r"^tool 'fail' failed: Error executing tool fail") as ei:
                await c.fail(reason="no luck")
            assert ei.value.tool == "fail" and "fail" in ei.value.text  # the SDK hides the exception text

    asyncio.run(go())
