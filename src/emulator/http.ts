// The HTTP layer: routes every request by the spec's operation table (method, path template, host), checks the
// key and the role, validates parameters and body against the spec's bounds, and writes JSON. The handlers
// (handlers.ts) only see validated input; this file knows no path or bound of its own.
import type { IncomingMessage, ServerResponse } from "node:http";
import { operations, type HostName, type OperationId } from "../../generated/spec-tables.js";
import { ValidationError } from "../core/errors.js";
import { validateCall } from "../core/validate.js";
import type { RateVerdict } from "./network.js";

export type Role = "owner" | "manager" | "member" | "guest";

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
  /** Headers of the answer beyond Content-Type, Content-Length and X-Request-Id. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body: a value to serialize, or JsonPieces already serialized. */
  readonly body: unknown;
}

/** A body already serialized as JSON, in pieces written one after another (the analytics answers, day by day). */
export class JsonPieces {
  constructor(readonly pieces: readonly Buffer[]) {}
}

export interface Operation {
  /** Roles allowed to call the operation; others get 403. */
  readonly roles: readonly Role[];
  /** Checks done before the spec's own bounds (so they can answer with a more specific detail). */
  readonly precheck?: (ctx: RequestContext) => void;
  readonly handle: (ctx: RequestContext) => Reply | Promise<Reply>;
}

/** The behaviour of every operation of the spec (hand-written in handlers.ts, else from its example: examples.ts). */
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
  501: "Not Implemented",
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
  return { id: id as OperationId, method: op.method, host: op.host, pattern: new RegExp(`^${source}$`), names };
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
    const reply = (status: number, body: unknown, headers?: Readonly<Record<string, string>>) =>
      after(latency / 2, () => send(res, status, body, requestId, headers));
    after(latency / 2, () =>
      serve(req, options)
        .then((answer) => reply(answer.status ?? 200, answer.body, answer.headers))
        .catch((error: unknown) => {
          // A client that hangs up while sending its body is not the emulator's failure: one line, no answer.
          if (!(error instanceof HttpProblem) && req.destroyed && !req.complete) {
            console.error(
              `[orgagent emulator] ${req.method} ${requestPath(req)}: the client closed the connection before sending its whole request.`,
            );
            return;
          }
          const problem = error instanceof HttpProblem ? error : new HttpProblem(500, "The emulator failed to answer this request.");
          if (!(error instanceof HttpProblem)) console.error("[orgagent emulator]", error);
          const status = problem.status;
          reply(status, { title: TITLES[status] ?? "Error", detail: problem.detail, status, requestId }, problem.headers);
        }),
    );
  };
}

/** The request's path, without its query (which may carry anything), for a log line. */
function requestPath(req: IncomingMessage): string {
  return JSON.stringify((req.url ?? "/").split("?")[0]!.slice(0, 200));
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
  if (!matches.length) {
    // As in the spec (and Prism), a path with a trailing slash is another path: say which one is served.
    const without = url.pathname.replace(/\/+$/, "");
    const served = without !== url.pathname && routes.some((route) => route.pattern.test(without));
    throw new HttpProblem(
      404,
      `No operation is served at ${url.pathname}.${served ? ` Did you mean ${without}, without the trailing slash?` : ""}`,
    );
  }
  const onHost = matches.filter((m) => m.route.host === options.host);
  if (!onHost.length) {
    const where = matches[0]!.route.host === "app_url" ? "app host (appUrl)" : "API host (baseUrl)";
    throw new HttpProblem(404, `${url.pathname} is served by the ${where}, not by this host.`);
  }
  // HEAD is answered as GET is, without the body (RFC 9110, 9.3.2; node:http leaves the body out).
  const found = onHost.find((m) => m.route.method === (method === "HEAD" ? "GET" : method));
  if (!found) {
    const methods = new Set(onHost.map((m) => m.route.method));
    if (methods.has("GET")) methods.add("HEAD");
    const allowed = [...methods].join(", ");
    throw new HttpProblem(405, `${method} is not allowed on ${url.pathname}; use ${allowed}.`, { Allow: allowed });
  }
  const { route, match } = found;
  const spec = operations[route.id];
  const operation = options.operations[route.id];

  // 401 before anything else about the request is looked at: an unauthenticated caller learns nothing more. The
  // scheme's name is case-insensitive (RFC 9110, 11.1): `bearer` and `BEARER` are Bearer.
  const auth = /^Bearer +(.+)$/i.exec(req.headers.authorization ?? "");
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
    throw new HttpProblem(
      403,
      `This operation needs the ${operation.roles.map(capitalize).join(" or ")} role; the key's role is ${capitalize(role)}.`,
    );
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
    const values = url.searchParams.getAll(name);
    // Every query parameter of the API takes one value: a repeated one is ambiguous, not "the first one wins".
    if (values.length > 1) throw new HttpProblem(400, `query.${name}: given ${values.length} times; it takes one value.`);
    if (values.length) query[name] = coerce(values[0]!, param.schema.type);
  }
  const body = "body" in spec ? await readJson(req) : await refuseBody(req, method);
  const now = options.now();
  const ctx: RequestContext = { path, query, body, role, now };
  operation.precheck?.(ctx);
  try {
    validateCall(spec, { path, query, body }, new Date(now));
  } catch (error) {
    if (error instanceof ValidationError) throw new HttpProblem(400, error.message);
    throw error;
  }
  const answer = await operation.handle(ctx);
  return { status: spec.successStatus, ...answer, headers: { ...limit?.headers, ...answer.headers } };
}

/**
 * Query values arrive as text: a number parameter's value is read as a JSON number (`5`, `5.0`, `1e2`), which the
 * spec's bounds then check (an integer parameter takes 5.0, as JSON Schema does). Any other text (`+5`, `05`,
 * ` 5`, `0x10`, an empty value) stays text, and fails the parameter's type with a 400.
 */
function coerce(value: string, type: string | undefined): unknown {
  return (type === "integer" || type === "number") && JSON_NUMBER.test(value) ? Number(value) : value;
}
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * An operation that takes no body (install-deps) refuses one, rather than ignoring what the caller meant to send;
 * an empty body is no body. A GET's body has no meaning in HTTP and is not read.
 */
async function refuseBody(req: IncomingMessage, method: string): Promise<undefined> {
  if (method === "GET" || method === "HEAD") return undefined;
  const refused = () => new HttpProblem(400, "This operation takes no request body.", { Connection: "close" });
  if (Number(req.headers["content-length"] ?? 0) > 0) throw refused();
  if (req.headers["transfer-encoding"] === undefined) return undefined;
  // A chunked body may still be empty: its first byte decides.
  return new Promise((resolve, reject) => {
    req.on("data", (chunk: Buffer) => chunk.length && reject(refused()));
    req.on("end", () => resolve(undefined));
    req.on("error", reject);
  });
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
  // A body announced larger than the limit is refused from its header, at once: nothing of it is read, and the
  // connection is closed after the answer rather than read to its end.
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    throw new HttpProblem(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { Connection: "close" });
  }
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
    if (size > MAX_BODY_BYTES)
      throw new HttpProblem(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { Connection: "close" });
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
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

function send(res: ServerResponse, status: number, body: unknown, requestId: string, headers: Readonly<Record<string, string>> = {}) {
  if (res.destroyed) return; // the client left, or the emulator closed, during the latency
  const pieces = body instanceof JsonPieces ? body.pieces : [Buffer.from(JSON.stringify(body))];
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": pieces.reduce((total, piece) => total + piece.length, 0),
    "X-Request-Id": requestId,
    ...headers,
  });
  // Corked, the pieces go out together (writev), as one body would.
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
  res.uncork();
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
