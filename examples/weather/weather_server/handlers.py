"""Your tool implementations. mcpgen wrote this file once and will never overwrite it.

Fill in each method; a method you delete or leave raising NotImplementedError answers
"not implemented" to clients. After regenerating with new tools, `mcpgen server ...
--add-missing` appends stubs for them here.
"""

from __future__ import annotations

import hashlib

from ._generated import Context, ToolError, ToolOutput, ToolResult, ToolsBase, models

__all__ = ["Handlers", "ToolError", "ToolOutput", "ToolResult"]


CITIES = {"FR": ["Lyon", "Paris"], "NO": ["Bergen", "Oslo"], "JP": ["Kyoto", "Tokyo"]}


def _seeded(city: str, day: int) -> float:
    # Deterministic fake weather: the same city and day always give the same numbers.
    digest = hashlib.sha256(f"{city}:{day}".encode()).digest()
    return digest[0] / 255


class Handlers(ToolsBase):
    async def get_forecast(self, args: models.GetForecastArgs, ctx: Context) -> models.GetForecastResult:
        """Weather forecast

        Daily forecast for a city, up to two weeks ahead.

        MCP tool: 'get-forecast'
        """
        days = args.days
        fahrenheit = args.units == "fahrenheit"
        out = []
        for day in range(1, days + 1):
            await ctx.report_progress(day, days, f"day {day}")
            high = 12 + 14 * _seeded(args.city, day)
            low = high - 4 - 6 * _seeded(args.city, -day)
            if fahrenheit:
                high, low = high * 9 / 5 + 32, low * 9 / 5 + 32
            summary = "sunny" if high > 20 else "cloudy" if high > 15 else "rain"
            out.append({"day": day, "high": round(high, 1), "low": round(low, 1), "summary": summary})
        await ctx.log("info", f"forecast for {args.city}: {days} days")
        return models.GetForecastResult.model_validate(
            {"city": args.city, "units": "fahrenheit" if fahrenheit else "celsius", "days": out}
        )

    async def list_cities(self, args: models.ListCitiesArgs, ctx: Context) -> list[str]:
        """Cities the service knows about.

        MCP tool: 'list_cities'
        """
        if args.country is not None:
            return CITIES.get(args.country.upper(), [])
        return sorted(city for cities in CITIES.values() for city in cities)

    async def weather_alert(self, args: models.WeatherAlertArgs, ctx: Context) -> ToolOutput:
        """Raise a weather alert for a region (returns a human-readable confirmation).

        MCP tool: 'weather.alert'
        """
        if args.region.strip() == "":
            raise ToolError("region must not be blank")
        return f"{args.level.upper()} alert raised for {args.region}: {args.message or '(no message)'}"
