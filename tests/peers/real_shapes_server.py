"""Test peer: a raw MCP server (stdlib only) that does what real public servers do.

    python tests/peers/real_shapes_server.py [--fail METHOD=CODE]... [--forever METHOD]...
        [--repeat METHOD]... [--no-instructions] [--http PORT [--path /mcp] [--require-header N:V]]

Over stdio by default; `--http PORT` serves plain-JSON Streamable HTTP on 127.0.0.1 at `--path`
(every other path answers 404; `--require-header` answers 401 to a POST without that header).
What it does, as servers seen in the wild do:

- advertises tools, prompts and resources; `serverInfo` keys come in the server's own order
  (`version` before `name`, `websiteUrl`, `title`, `icons`), and `initialize` carries
  `instructions` (unless `--no-instructions`);
- `--fail resources/templates/list=-32601` answers that request with that JSON-RPC error
  (`server-puppeteer`, `server-postgres`); `-32603` reads "database is down" (postgres);
- `--forever METHOD` pages that list with a new `nextCursor` every time, without end;
- `--repeat METHOD` pages it with the same `nextCursor` every time.

It is a legacy-era server: `server/discover` and unknown methods get -32601.
"""

from __future__ import annotations

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVER_INFO = {
    "version": "1.2.0",
    "name": "real-shapes",
    "websiteUrl": "https://example.invalid/real-shapes",
    "title": "Real Shapes",
    "icons": [{"src": "https://example.invalid/icon.png", "mimeType": "image/png"}],
}
INSTRUCTIONS = "Call add with two integers; read notes://readme first."
TOOLS = [
    {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
            "required": ["a", "b"],
        },
    }
]
LISTS = {
    "tools/list": ("tools", TOOLS),
    "prompts/list": ("prompts", [{"name": "greet", "description": "Say hello."}]),
    "resources/list": ("resources", [{"uri": "notes://readme", "name": "readme", "mimeType": "text/plain"}]),
    "resources/templates/list": ("resourceTemplates", [{"uriTemplate": "notes://{name}", "name": "note"}]),
}
MESSAGES = {-32601: "Method not found", -32603: "database is down"}

_args = argparse.ArgumentParser()
_args.add_argument("--fail", action="append", default=[], metavar="METHOD=CODE")
_args.add_argument("--forever", action="append", default=[], metavar="METHOD")
_args.add_argument("--repeat", action="append", default=[], metavar="METHOD")
_args.add_argument("--no-instructions", action="store_true")
_args.add_argument("--http", type=int, default=None, metavar="PORT")
_args.add_argument("--path", default="/mcp")
_args.add_argument("--require-header", default=None, metavar="NAME:VALUE", help="else 401 (HTTP)")
ARGS = _args.parse_args()
FAIL = {m: int(c) for m, _, c in (f.partition("=") for f in ARGS.fail)}


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def listed(method: str, params: dict[str, Any]) -> dict[str, Any]:
    key, items = LISTS[method]
    page: dict[str, Any] = {key: items}
    cursor = params.get("cursor")
    if method in ARGS.forever:
        page = {key: [], "nextCursor": f"page-{int(cursor.split('-')[1]) + 1 if cursor else 1}"}
    elif method in ARGS.repeat:
        page = {key: items if cursor is None else [], "nextCursor": "again"}
    return page


def answer(msg: dict[str, Any]) -> dict[str, Any] | None:
    method, request_id = msg.get("method"), msg.get("id")
    if request_id is None:
        return None  # a notification
    params = msg.get("params") or {}
    if method in FAIL:
        return error(request_id, FAIL[method], MESSAGES.get(FAIL[method], "failed"))
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "serverInfo": SERVER_INFO,
        }
        if not ARGS.no_instructions:
            result["instructions"] = INSTRUCTIONS
        return {"jsonrpc": "2.0", "id": request_id, "result": result}
    if method in LISTS:
        return {"jsonrpc": "2.0", "id": request_id, "result": listed(method, params)}
    if method == "tools/call":
        args = params.get("arguments") or {}
        total = int(args.get("a", 0)) + int(args.get("b", 0))
        content = [{"type": "text", "text": str(total)}]
        return {"jsonrpc": "2.0", "id": request_id, "result": {"content": content, "isError": False}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    return error(request_id, -32601, "Method not found")


def serve_stdio() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.split("?")[0] != ARGS.path:
            return self._send(404, b"Not Found", "text/plain")
        if ARGS.require_header:
            name, _, value = ARGS.require_header.partition(":")
            if self.headers.get(name) != value:
                return self._send(401, b"Unauthorized", "text/plain")
        reply = answer(json.loads(body))
        if reply is None:
            return self._send(202)
        self._send(200, json.dumps(reply).encode())

    def do_GET(self) -> None:
        self._send(404 if self.path.split("?")[0] != ARGS.path else 405, b"", "text/plain")

    def do_DELETE(self) -> None:
        self._send(200)


if __name__ == "__main__":
    if ARGS.http is None:
        serve_stdio()
    else:
        server = ThreadingHTTPServer(("127.0.0.1", ARGS.http), Handler)
        print(f"listening on {server.server_address[1]}", flush=True)
        server.serve_forever()
