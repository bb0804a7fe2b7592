"""The server role: Server and its connections (`server.py`), prompts/resources/templates tables
(`features.py`), signed MRTR request state (`request_state.py`), change notifications
(`subscriptions.py`), the Streamable HTTP server (`http/`), serving options (`options.py`) and
the command line of `python -m PKG` (`command.py`)."""
