"""Stage 1, sources: schema files (`files.py`), live servers over stdio or HTTP (`live.py`) and
`mcpServers` config files (`servers_config.py`), each read into a Catalog."""
