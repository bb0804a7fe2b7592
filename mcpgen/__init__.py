"""mcpgen: typed Python code from MCP tool definitions."""

__version__ = "0.2.0"
