// `client.raw`: openapi-fetch's own client, typed by the spec's paths, through the SDK's pipeline. Each path goes to
// the host that serves it; the client's middleware, its transport (the key, redirects, the error-body limit) and an
// attempt's timeout and size limit apply, as to the resource methods. openapi-fetch never retries, and neither does
// `raw`: its answers come back as openapi-fetch gives them (`{ data, error, response }`).
import type { Client, Middleware } from "openapi-fetch";
import type { paths } from "../../generated/openapi.js";
import { operations, type HostName } from "../../generated/spec-tables.js";
import { Attempt, cancelBody, type CallInfo } from "./attempt.js";
import { IncompleteBody, concat } from "./body.js";
import { ResponseTooLargeError } from "./errors.js";
import type { CoreClient } from "./exchange.js";
import { connectionError } from "./network-errors.js";
import { checkHeaders, mergeHeaders } from "./options.js";
import { credentialValues, scrubError } from "./scrub.js";
import { send, type TransportConfig } from "./transport.js";

export interface RawConfig {
  readonly core: CoreClient;
  readonly transport: TransportConfig;
  readonly middleware: readonly Middleware[];
  hostUrl(host: HostName): string;
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
  readonly timeout: number;
  readonly maxResponseSize: number;
  /** The client's headers (`Accept`, and its `headers` option). */
  readonly headers: Readonly<Record<string, string>>;
  /** The values of the client's credential headers. */
  readonly secrets: readonly string[];
}

const METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];
const NULL_BODY = new Set([101, 204, 205, 304]);
// The operation of each method and path (for the request context of an error), and the host of each path.
const operationOf = new Map<string, string>();
const hostOf = new Map<string, HostName>();
for (const op of Object.values(operations)) {
  operationOf.set(`${op.method} ${op.path}`, op.operationId);
  hostOf.set(op.path, op.host);
}
type RawInit = Record<string, unknown> & { headers?: unknown; middleware?: Middleware[]; fetch?: typeof fetch; params?: unknown };

export function rawClient(config: RawConfig): Client<paths> {
  const request = (method: string, path: string, init: RawInit = {}) => {
    // Headers in any form fetch takes (an object, a Headers, or name-value pairs), as one object: checked as the
    // client's are, then merged by name.
    const given = init.headers;
    const headers = given instanceof Headers || Array.isArray(given) ? Object.fromEntries(given as Iterable<[string, string]>) : given;
    try {
      if (headers != null) checkHeaders(headers, "headers");
      const host = hostOf.get(path);
      const call: CallInfo = {
        operationId: operationOf.get(`${method.toUpperCase()} ${path}`),
        method: method.toUpperCase(),
        path,
        params: init.params,
      };
      const secrets = headers ? [...config.secrets, ...credentialValues(headers as Record<string, string>)] : config.secrets;
      const transport = init.fetch ? { ...config.transport, fetch: () => init.fetch! } : config.transport;
      return config.core.request(method, path, {
        ...init,
        headers: mergeHeaders(config.headers, (headers ?? undefined) as Record<string, string> | undefined),
        ...(host ? { baseUrl: config.hostUrl(host) } : {}),
        fetch: (built: Request) => sendRaw(config, transport, built, call, secrets),
        // Stryker disable next-line ArrayDeclaration: openapi-fetch skips a middleware that is not an object, so a made-up item in the fallback changes nothing
        middleware: [...config.middleware, ...(init.middleware ?? [])],
      });
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const raw: Record<string, unknown> = { request, use: config.use, eject: config.eject };
  for (const method of METHODS) raw[method] = (path: string, init?: RawInit) => request(method, path, init);
  // Every method forwards to the one openapi-fetch client: its own Client type describes them.
  return raw as unknown as Client<paths>;
}

/** One raw request: one attempt, its success body read within maxResponseSize before openapi-fetch parses it. */
async function sendRaw(
  config: RawConfig,
  transport: TransportConfig,
  request: Request,
  call: CallInfo,
  secrets: readonly string[],
): Promise<Response> {
  const { timeout, maxResponseSize } = config;
  const attempt = new Attempt(call, 1, () => request.url, { timeout }, request.signal);
  attempt.secrets = secrets;
  try {
    const response = await attempt.race(send(transport, attempt, request), cancelBody);
    if (!response.ok) return response;
    const announced = Number(response.headers.get("content-length"));
    if (announced > maxResponseSize)
      throw new ResponseTooLargeError(response.status, response.headers, maxResponseSize, announced, attempt.where());
    // An interruption during the read rejects the race (the attempt's end stops each of its waits at once, before
    // the read can settle), so bytes that come back were read in time.
    const bytes = await attempt.race(attempt.read(response, maxResponseSize));
    if (bytes.more) throw new ResponseTooLargeError(response.status, response.headers, maxResponseSize, undefined, attempt.where());
    // The bytes read from a fetch body (never a SharedArrayBuffer's), as a body again.
    const copy = new Response(NULL_BODY.has(response.status) ? null : (concat(bytes) as BodyInit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperties(copy, { url: { value: response.url }, redirected: { value: response.redirected } });
    return copy;
  } catch (error) {
    const failure = attempt.interrupted() ?? (error instanceof IncompleteBody ? connectionError(error.cause, attempt.where()) : error);
    throw failure instanceof Error ? scrubError(failure, attempt.allSecrets()) : failure;
  } finally {
    attempt.end();
  }
}
