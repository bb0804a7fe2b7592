"""Transports: byte pipes under a session (the Transport port is `core/transport.py`): stdio, the
Streamable HTTP client (`http_client`, `http_lean`), the legacy HTTP+SSE client, SSE parsing,
memory, the client guard, the wire log. They import `core` only; the Streamable HTTP server is
the server role's (`server/http/`)."""
