"""A stdio MCP server built with the official SDK, for outputSchema/structuredContent cases."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("sdk-structured")


class Weather(BaseModel):
    city: str
    temperature: float
    tags: list[str]


@server.tool(name="get-weather")
def get_weather(city: str, unit: str = "c") -> Weather:
    """Weather for a city (a pydantic return type: not wrapped)."""
    return Weather(city=city, temperature=21.5 if unit == "c" else 70.7, tags=[unit])


@server.tool(name="list_squares")
def list_squares(n: int) -> list[int]:
    """A list return: the SDK wraps it as {"result": [...]}."""
    return [i * i for i in range(n)]


@server.tool(name="add")
def add(a: int, b: int = 1) -> int:
    """An int return: wrapped as {"result": N}."""
    return a + b


@server.tool(name="echo-args")
def echo_args(required: str, optional: str | None = None, count: int = 3) -> dict[str, str]:
    """Echo back which arguments arrived (to prove omitted optionals are not sent)."""
    return {
        "received": ",".join(sorted(k for k, v in (("required", required), ("optional", optional)) if v is not None)),
        "count": str(count),
    }


@server.tool(name="fail")
def fail(reason: str) -> str:
    """Always raises: the client must see a ToolError."""
    raise ValueError(reason)


if __name__ == "__main__":
    server.run("stdio")
