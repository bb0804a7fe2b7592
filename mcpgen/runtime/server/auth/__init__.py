"""A scaffolded HTTP server as an OAuth 2.1 resource server (the MCP authorization spec).

`info` (what handlers see: AuthInfo, requires_scopes) needs nothing beyond the standard library;
`settings`, `verify`, `jwks` and `resource` are loaded only when a server turns auth on, and the
token checks need the `oauth` extra (joserfc). Nothing is imported here, so that importing
`info` never pulls in the rest.
"""
