"""Use the typed client that `make demo` generated from the live weather server.

Run from examples/weather with build/demo on sys.path (examples/demo.py does both).
"""

from __future__ import annotations

import asyncio

from weather_client import AsyncClient, Client, ToolError, models


async def main() -> None:
    progress: list[float] = []
    logs: list[str] = []
    # connect() starts the same stdio command the client was generated from.
    async with AsyncClient.connect(on_log=lambda p: logs.append(str(p.get("data"))), log_level="info") as weather:
        forecast: models.GetForecastResult = await weather.with_options(
            progress=lambda done, total, message: progress.append(done)
        ).get_forecast(city="Paris", days=3)
        print(f"forecast for {forecast.city} ({forecast.units}):")
        for day in forecast.days:
            print(f"  day {day.day}: {day.low:.1f}..{day.high:.1f} {day.summary}")
        print(f"  progress reports: {progress}; server log: {logs}")

        cities = await weather.list_cities(country="NO")  # {"result": [...]} unwrapped to list[str]
        print(f"cities in NO: {cities}")

        alert = await weather.weather_alert(region="Bergen", level="orange", message="Strong wind")
        print(f"alert: {alert.text}")

        try:
            await weather.weather_alert(region=" ", level="red")
        except ToolError as exc:
            print(f"tool error, as the server raised it: {exc}")

        # The agent loop: hand tool_definitions() to an LLM, route its calls through dispatch().
        # Each API gets names it accepts ("weather.alert" becomes "weather_alert"): dispatch maps them back.
        for api, definitions in (
            ("anthropic", weather.tool_definitions("anthropic")),
            ("openai", [d["function"] for d in weather.tool_definitions("openai")]),
            ("openai-responses", weather.tool_definitions("openai-responses")),
            ("gemini", weather.tool_definitions("gemini")),
        ):
            print(f"tools for {api}: {[d['name'] for d in definitions]}; refused: {weather.refused_tools(api)}")
        print(
            "LLM-style call with a bad argument:", await weather.dispatch("get-forecast", {"city": "Oslo", "days": 99})
        )
        print(
            "the model calls weather_alert:",
            await weather.dispatch("weather_alert", {"region": "Oslo", "level": "orange"}),
        )

    # The sync twin, for scripts and notebooks.
    with Client.connect() as weather_sync:
        print("sync:", weather_sync.get_forecast(city="Tokyo", days=1, units="fahrenheit").days[0])


if __name__ == "__main__":
    asyncio.run(main())
