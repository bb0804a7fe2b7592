"""The server role: Server and its connections (`server.py`), prompts/resources/templates tables
(`features.py`), signed MRTR request state (`request_state.py`), change notifications
(`subscriptions.py`)."""
