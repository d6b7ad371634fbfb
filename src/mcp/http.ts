// Streamable HTTP: `POST/GET/DELETE /mcp` on one address, a session (and its own protocol Server) per client that
// initializes. Bound to loopback by default; there, a request whose Host or Origin names another site is refused, so
// a web page cannot reach the server through DNS rebinding.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isInitializeRequest, StreamableHTTPServerTransport } from "./protocol.js";

export interface HttpListener {
  readonly url: string;
  close(): Promise<void>;
}

const PATH = "/mcp";
const MAX_BODY = 4 * 1024 * 1024;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** What the listener needs of the MCP server (server.ts): one connection served per session. */
export interface ConnectsTransports {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
}

export async function listenHttp(mcp: ConnectsTransports, { port, host }: { port: number; host: string }): Promise<HttpListener> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const loopback = LOOPBACK.has(host);

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, -32603, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== PATH) return reply(response, 404, -32000, `Not found: the MCP endpoint is ${PATH}.`);
    if (loopback && !fromLoopback(request)) return reply(response, 403, -32000, "Forbidden: this server answers local clients only.");
    const sessionId = request.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && !existing) return reply(response, 404, -32001, "Session not found: initialize a new session.");
    if (request.method !== "POST") {
      if (!existing) return reply(response, 400, -32000, "Bad request: no session; POST an initialize request first.");
      return existing.handleRequest(request, response);
    }
    const body = await readJson(request);
    if (body === TOO_LARGE) return reply(response, 413, -32000, `Request body over ${MAX_BODY} bytes.`);
    if (body === NOT_JSON) return reply(response, 400, -32700, "Parse error: the body is not JSON.");
    if (existing) return existing.handleRequest(request, response, body);
    if (!isInitializeRequest(body)) return reply(response, 400, -32000, "Bad request: no session; the first request must be initialize.");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${PATH}`,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Host (and Origin, when a browser sends one) name this machine. */
function fromLoopback(request: IncomingMessage): boolean {
  const names = [request.headers.host, request.headers.origin].filter((value): value is string => typeof value === "string");
  if (!request.headers.host) return false;
  return names.every((value) => {
    try {
      return LOOPBACK.has(new URL(value.includes("://") ? value : `http://${value}`).hostname);
    } catch {
      return false;
    }
  });
}

function reply(response: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

const TOO_LARGE = Symbol("too large");
const NOT_JSON = Symbol("not JSON");

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return TOO_LARGE;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return NOT_JSON;
  }
}
