"""mcpgen's testing kit: fake servers from a catalog (`mock_server`), schema-driven instances,
record and replay (`cassette`), and the pytest plugin (`pytest_plugin`, loaded by pytest)."""
