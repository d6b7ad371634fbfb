// The HTTP layer: routes every request by the spec's operation table (method, path template, host), checks the
// key and the role, validates parameters and body against the spec's bounds, and writes JSON. The handlers
// (handlers.ts) only see validated input; this file knows no path or bound of its own.
import type { IncomingMessage, ServerResponse } from "node:http";
import { operations, type HostName, type OperationId } from "../../generated/spec-tables.js";
import { ValidationError } from "../core/errors.js";
import { validateCall } from "../core/validate.js";
import type { RateVerdict } from "./network.js";

export type Role = "owner" | "manager" | "member";

/** An error the emulator answers with; its body has `title`, `detail`, `status` and `requestId`. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export interface RequestContext {
  readonly path: Record<string, string>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly role: Role;
  /** The emulator clock, read once per request. */
  readonly now: number;
}

export interface Reply {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Record<string, string> | undefined;
}

export interface Operation {
  /** Roles allowed to call the operation; others get 403. */
  readonly roles: readonly Role[];
  /** Checks done before the spec's own bounds (so they can answer with a more specific detail). */
  readonly precheck?: (ctx: RequestContext) => void;
  readonly handle: (ctx: RequestContext) => Reply;
}

export type Operations = { readonly [Id in OperationId]: Operation };

interface Route {
  readonly id: OperationId;
  readonly method: string;
  readonly host: HostName;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Deepest nesting of objects and arrays a JSON body may have: far more than any request of the API needs. */
export const MAX_JSON_DEPTH = 64;

/** One route per operation of the spec: its path template becomes a pattern with one group per path parameter. */
export const routes: readonly Route[] = Object.entries(operations).map(([id, op]) => {
  const names: string[] = [];
  const source = op.path
    .split(/(\{[^{}]+\})/)
    .map((part) => {
      const param = /^\{([^{}]+)\}$/.exec(part);
      if (param) {
        names.push(param[1]!);
        return "([^/]+)";
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return { id: id as OperationId, method: op.method, host: op.host, pattern: new RegExp(`^${source}/?$`), names };
});

export interface HttpOptions {
  readonly host: HostName;
  readonly keys: ReadonlyMap<string, Role>;
  readonly operations: Operations;
  readonly now: () => number;
  readonly requestId: () => string;
  /** The network latency of the next request, in ms (network.ts); none when absent. */
  readonly latency?: (() => number) | undefined;
  /** Counts a request of the key against its rate limit: the headers of its answer, and whether it is refused (network.ts). */
  readonly rateLimit?: ((key: string) => RateVerdict) | undefined;
}

/** A node:http request listener serving the operations of one host. */
export function listener(options: HttpOptions) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = options.requestId();
    // Half of the latency on the way in (before the request is handled: the rate limit sees it then), half on the way out.
    const latency = options.latency?.() ?? 0;
    const reply = (status: number, body: unknown, headers?: Record<string, string>) =>
      after(latency / 2, () => send(res, status, body, requestId, headers));
    after(latency / 2, () =>
      serve(req, options)
        .then((answer) => reply(answer.status ?? 200, answer.body, answer.headers))
        .catch((error: unknown) => {
          const problem = error instanceof HttpProblem ? error : new HttpProblem(500, "The emulator failed to answer this request.");
          if (!(error instanceof HttpProblem)) console.error("[orgagent emulator]", error);
          const status = problem.status;
          reply(status, { title: TITLES[status] ?? "Error", detail: problem.detail, status, requestId }, problem.headers);
        }),
    );
  };
}

/** Runs `then` after `ms` (at once for 0, without a timer). */
function after(ms: number, then: () => unknown): void {
  if (ms > 0) setTimeout(then, ms);
  else void then();
}

async function serve(req: IncomingMessage, options: HttpOptions): Promise<Reply> {
  const url = requestUrl(req.url ?? "/");
  const method = (req.method ?? "GET").toUpperCase();
  const matches = routes
    .map((route) => ({ route, match: route.pattern.exec(url.pathname) }))
    .filter((m): m is { route: Route; match: RegExpExecArray } => m.match !== null);
  if (!matches.length) throw new HttpProblem(404, `No operation is served at ${url.pathname}.`);
  const onHost = matches.filter((m) => m.route.host === options.host);
  if (!onHost.length) {
    const where = matches[0]!.route.host === "app_url" ? "app host (appUrl)" : "API host (baseUrl)";
    throw new HttpProblem(404, `${url.pathname} is served by the ${where}, not by this host.`);
  }
  const found = onHost.find((m) => m.route.method === method);
  if (!found) {
    const allowed = [...new Set(onHost.map((m) => m.route.method))].join(", ");
    throw new HttpProblem(405, `${method} is not allowed on ${url.pathname}; use ${allowed}.`, { Allow: allowed });
  }
  const { route, match } = found;
  const spec = operations[route.id];
  const operation = options.operations[route.id];

  // 401 before anything else about the request is looked at: an unauthenticated caller learns nothing more.
  const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  const role = auth ? options.keys.get(auth[1]!.trim()) : undefined;
  if (!role) {
    throw new HttpProblem(401, auth ? "The API key is not valid." : "Send the API key as `Authorization: Bearer <API_KEY>`.");
  }
  const limit = options.rateLimit?.(auth![1]!.trim());
  if (limit?.refused) {
    req.resume(); // not read: let it drain so the connection can answer
    const { status, wait } = limit.refused;
    const why = status === 429 ? "This API key is over its rate limit" : "The service is overloaded";
    throw new HttpProblem(status, `${why}; retry in ${Math.ceil(wait)} ms.`, limit.headers);
  }
  if (!operation.roles.includes(role)) {
    throw new HttpProblem(403, `This operation needs the ${operation.roles.map(capitalize).join(" or ")} role; the key's role is ${capitalize(role)}.`);
  }

  const path: Record<string, string> = {};
  route.names.forEach((name, i) => {
    try {
      path[name] = decodeURIComponent(match[i + 1]!);
    } catch {
      throw new HttpProblem(400, `Path parameter ${name} is not valid percent-encoding.`);
    }
  });
  const query: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(spec.params) as Array<[string, { in: string; schema: { type?: string } }]>) {
    if (param.in !== "query") continue;
    const value = url.searchParams.get(name);
    if (value !== null) query[name] = coerce(value, param.schema.type);
  }
  const body = "body" in spec ? await readJson(req) : undefined;
  const now = options.now();
  const ctx: RequestContext = { path, query, body, role, now };
  operation.precheck?.(ctx);
  try {
    validateCall(spec, { path, query, body }, new Date(now));
  } catch (error) {
    if (error instanceof ValidationError) throw new HttpProblem(400, error.message);
    throw error;
  }
  return { status: spec.successStatus, ...operation.handle(ctx), headers: limit?.headers };
}

/** Query values arrive as text: an integer parameter is turned into a number when it is one. */
function coerce(value: string, type: string | undefined): unknown {
  if ((type === "integer" || type === "number") && /^[+-]?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return value;
}

/** The request target as a URL: a path (origin form, even `//x`) or an absolute URL; anything else is 400. */
function requestUrl(target: string): URL {
  try {
    return target.startsWith("/") ? new URL(`http://emulator.invalid${target}`) : new URL(target);
  } catch {
    throw new HttpProblem(400, `The request target ${JSON.stringify(target.slice(0, 200))} is not a valid path.`);
  }
}

/** The JSON body of a request: only `application/json` (or `+json`) is read, and never nested too deep. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers["content-type"];
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !/^application\/(.+\+)?json\s*(;|$)/i.test(type ?? "")) {
    req.resume(); // not read: let it drain so the connection can answer
    throw new HttpProblem(415, `The request body must be JSON, sent as Content-Type: application/json${type ? `, not ${type}` : ""}.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return undefined;
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new HttpProblem(400, `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpProblem(400, "The request body is not valid JSON.");
  }
}

/** How deeply objects and arrays nest in JSON text, counted in one pass (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

function send(res: ServerResponse, status: number, body: unknown, requestId: string, headers: Record<string, string> = {}) {
  if (res.destroyed) return; // the client left, or the emulator closed, during the latency
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    "X-Request-Id": requestId,
    ...headers,
  });
  res.end(text);
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
