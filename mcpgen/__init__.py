"""mcpgen: typed Python code from MCP tool definitions."""

__version__ = "0.1.0"
