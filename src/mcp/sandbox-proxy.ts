// The one address a sandboxed program may connect to: a loopback HTTP server that forwards the API's operations to
// the configured hosts with the real key. The program's SDK holds only a token for one run, so the key never enters
// the sandbox; the proxy forwards only operations the server allows (writes only when enabled), and takes the key
// out of every answer, even one that echoes it.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { operations } from "../../generated/spec-tables.js";
import { scrubSecret } from "./sdk-adapter.js";

export interface ProxyOptions {
  /** The key sent upstream (a function is asked for each request). */
  readonly apiKey: () => string | Promise<string>;
  /** The URL of each host by name (`base_url`, `app_url`); a missing one answers 503. */
  readonly hosts: Readonly<Record<string, string | undefined>>;
  /** Operations a program may call. */
  readonly allowed: ReadonlySet<string>;
  /** Why an operation that is not allowed is refused, for the program's error. */
  readonly refusal: (operationId: string) => string;
  readonly fetch?: typeof fetch | undefined;
}

const MAX_BODY = 16 * 1024 * 1024;
const MAX_ANSWER = 64 * 1024 * 1024;
const PASSED_HEADERS = ["content-type", "retry-after", "retry-after-ms", "x-request-id"];

interface Route {
  readonly operationId: string;
  readonly method: string;
  readonly pattern: RegExp;
  readonly host: string;
}

// Each operation's path template as a pattern: a parameter is one segment.
const ROUTES: Route[] = Object.values(
  operations as Record<string, { operationId: string; method: string; path: string; host: string }>,
).map((op) => ({
  operationId: op.operationId,
  method: op.method,
  pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^{}]+\}/g, "[^/]+")}$`),
  host: op.host,
}));

export class SandboxProxy {
  readonly #server: Server;
  readonly #tokens = new Set<string>();
  readonly #options: ProxyOptions;
  /** Keys sent upstream so far: taken out of every answer. */
  readonly #keys = new Set<string>();

  private constructor(server: Server, options: ProxyOptions) {
    this.#server = server;
    this.#options = options;
  }

  static async start(options: ProxyOptions): Promise<SandboxProxy> {
    let proxy!: SandboxProxy;
    const server = createServer((request, response) => void proxy.#handle(request, response));
    proxy = new SandboxProxy(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  /** `127.0.0.1:PORT`, as Deno's --allow-net takes it. */
  get address(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get origin(): string {
    return `http://${this.address}`;
  }

  /** A token for one run; revoke it when the run ends. */
  grant(): string {
    const token = `oa-sandbox-${randomBytes(24).toString("hex")}`;
    this.#tokens.add(token);
    return token;
  }

  revoke(token: string): void {
    this.#tokens.delete(token);
  }

  /** `text` without any key sent upstream. */
  scrub(text: string): string {
    for (const key of this.#keys) text = scrubSecret(text, key);
    return text;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const problem = (status: number, title: string, detail: string) => {
      const body = JSON.stringify({ title, status, detail });
      response.writeHead(status, { "content-type": "application/problem+json", "content-length": Buffer.byteLength(body) }).end(body);
    };
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !this.#tokens.has(token)) return problem(401, "Unauthorized", "This address serves the MCP server's code sandbox only.");
    const url = new URL(request.url ?? "/", "http://sandbox");
    const route = ROUTES.find((r) => r.method === request.method && r.pattern.test(url.pathname));
    if (!route) return problem(404, "Not Found", `${request.method} ${url.pathname} is not an operation of the API.`);
    if (!this.#options.allowed.has(route.operationId)) return problem(403, "Forbidden", this.#options.refusal(route.operationId));
    const host = this.#options.hosts[route.host];
    if (!host)
      return problem(
        503,
        "Service Unavailable",
        `No URL is configured for the host ${route.host} (ORGAGENT_APP_URL for readiness reports).`,
      );

    const upstream = new AbortController();
    response.on("close", () => upstream.abort());
    try {
      const body = await readAll(request, MAX_BODY);
      if (body === undefined) return problem(413, "Content Too Large", `A request body may have at most ${MAX_BODY} bytes.`);
      const key = await this.#options.apiKey();
      this.#keys.add(key);
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: request.headers.accept ?? "application/json" };
      if (request.headers["content-type"]) headers["content-type"] = request.headers["content-type"];
      const answer = await (this.#options.fetch ?? fetch)(`${host}${url.pathname}${url.search}`, {
        method: route.method,
        headers,
        ...(body.length ? { body: new Uint8Array(body) } : {}),
        redirect: "manual",
        signal: upstream.signal,
      });
      const bytes = await readAnswer(answer, MAX_ANSWER);
      if (bytes === undefined) return problem(502, "Bad Gateway", `The API's answer was larger than ${MAX_ANSWER} bytes.`);
      const passed: Record<string, string> = {};
      for (const name of PASSED_HEADERS) {
        const value = answer.headers.get(name);
        if (value !== null) passed[name] = this.scrub(value);
      }
      const scrubbed = Buffer.from(this.scrub(bytes.toString("utf8")));
      response.writeHead(answer.status, { ...passed, "content-length": scrubbed.length }).end(scrubbed);
    } catch (error) {
      if (response.headersSent || upstream.signal.aborted) return void response.destroy();
      problem(
        502,
        "Bad Gateway",
        this.scrub(`The MCP server could not reach the API: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }
}

async function readAll(request: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readAnswer(answer: Response, max: number): Promise<Buffer | undefined> {
  if (!answer.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > max) {
      await answer.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
