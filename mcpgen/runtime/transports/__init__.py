"""Transports: the Transport interface (`base.py`), stdio, Streamable HTTP client and ASGI server,
the legacy HTTP+SSE client, SSE parsing, the wire log."""
