"""The Streamable HTTP server, the server role's transport (as the official python-sdk keeps its
server transports under `server/`): `app` (the ASGI app: checks, then the era), `stateless`
(2026-07-28 requests, each on its own) and `mirrored_headers` (their header checks),
`handshake` (sessions' POSTs and DELETE), `sessions` (this worker's sessions and the store),
`session_streams` (their responses and GET streams), `streams` (where a connection's messages
go), `resumption` (stream logs), `routing` (what workers tell each other), `asgi` (plumbing),
`request_body` (one parse per request), `security` (Host/Origin), `limits` (HttpLimits and
their flags), `protocol` (uvicorn's, guarded), `serving` (serve_http), `workers`
(serve_http_workers), `logs`.

Nothing is imported here: a server started over stdio imports `limits` and `security` (for its
command line) without the app.
"""
