// Benchmark peer: the official TypeScript SDK's server (npm @modelcontextprotocol/sdk, McpServer
// with StreamableHTTPServerTransport on node:http) serving the echo tool of bench/echo_tool.json
// at http://127.0.0.1:PORT/mcp. One McpServer and transport per session, as the SDK's own
// stateful example does. The SDK speaks the handshake era (2025-11-25 and older) only.
//
//     node tests/peers/ts_echo_server.mjs --port N
import { randomUUID } from "node:crypto";
import http from "node:http";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const portAt = process.argv.indexOf("--port");
const port = portAt > 0 ? Number(process.argv[portAt + 1]) : 8000;
const transports = new Map(); // session id -> transport

function newServer() {
  const server = new McpServer({ name: "ts-echo-server", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Return the text unchanged.",
      inputSchema: { text: z.string() },
      outputSchema: { result: z.string() },
    },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { result: text } }),
  );
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined));
    req.on("error", reject);
  });
}

function refuse(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

const httpServer = http.createServer(async (req, res) => {
  if (!req.url.startsWith("/mcp")) return refuse(res, 404, "not found");
  const sessionId = req.headers["mcp-session-id"];
  const body = req.method === "POST" ? await readBody(req) : undefined;
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId || req.method !== "POST" || !isInitializeRequest(body)) {
      return refuse(res, sessionId ? 404 : 400, "no session");
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});

httpServer.keepAliveTimeout = 60_000;
httpServer.listen(port, "127.0.0.1");
