// The fetch openapi-fetch calls for every attempt, resource methods and `client.raw` alike: it adds the key (asked
// per attempt), sends the request with the attempt's signal, follows redirects (redirects.ts) and reads an error body
// as far as it is kept. A failure of the caller's fetch becomes an APIConnectionError; the SDK's own errors (a
// refused redirect, a bad key) pass as they are. Middleware sees the request before the key is added, so no
// middleware can log it.
import { INTERRUPTED, cancelBody, type Attempt } from "./attempt.js";
import { IncompleteBody, decode } from "./body.js";
import type { ApiKey } from "./credentials.js";
import { redactHeaders, type Log } from "./log.js";
import { connectionError } from "./network-errors.js";
import { ERROR_BODY_LIMIT } from "./options.js";
import { FOLLOW_REDIRECTS, isRedirect, nextHop, type Hop } from "./redirects.js";

export interface TransportConfig {
  /** The caller's fetch, or the global one, read at call time. */
  readonly fetch: () => typeof fetch;
  readonly key: ApiKey;
  readonly log: Log;
}

/** The headers a plain request goes with, built once for the common case: the client's headers and the same key. */
const shared = new WeakMap<object, { key: string; headers: Readonly<Record<string, string>> }>();

/**
 * The request openapi-fetch builds when no middleware is registered: the URL and init it was given, kept as they are.
 * A fetch Request is built once, by fetch itself, instead of once by openapi-fetch and again by fetch (which copies
 * the first); nothing but the transport ever sees this one.
 */
export class PlainRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  readonly redirect: RequestRedirect;
  constructor(url: string, init: { method?: string; headers?: Headers; body?: string | null; redirect?: RequestRedirect }) {
    this.url = url;
    this.method = init.method ?? "GET";
    this.headers = init.headers ?? new Headers();
    this.body = init.body ?? undefined;
    this.redirect = init.redirect ?? "follow";
  }
}

const BEARER = "Bearer ";

/** Sends `request` for `attempt` and resolves to the final response (an error's body cut to ERROR_BODY_LIMIT). */
export async function send(config: TransportConfig, attempt: Attempt, request: Request | PlainRequest): Promise<Response> {
  const pending = config.key.get();
  const key = typeof pending === "string" ? pending : await attempt.race(pending);
  attempt.key = key;
  const plain = request instanceof PlainRequest;
  // A plain request goes with the call's headers as a plain object (fetch copies one faster than a Headers); a Request
  // that middleware saw keeps its headers, and the key goes on a copy.
  const headers = plain ? plainHeaders(attempt.call.headers ?? {}, key, request) : { ...Object.fromEntries(request.headers), Authorization: BEARER + key };
  if (config.log.enabled("debug")) {
    const details = { attempt: attempt.number, params: attempt.call.params, headers: redactHeaders(headers) };
    config.log.write("debug", `→ ${attempt.call.method} ${attempt.call.path}`, details, attempt.allSecrets());
  }
  const body = plain ? request.body : request.body ? await attempt.race(request.arrayBuffer()) : undefined;
  const fetchImpl = config.fetch();
  const signal = attempt.abortSignal;
  const follow = FOLLOW_REDIRECTS && request.redirect === "follow";
  const fetchOnce = (hop: Hop, first: boolean): Promise<Response> => {
    // Nothing more is sent for an attempt that has ended (a late key, or a caller's fetch that ignored its signal).
    if (attempt.ended) return Promise.reject(INTERRUPTED);
    attempt.url = hop.url;
    const init: RequestInit = { method: hop.method, headers: hop.headers, signal };
    if (hop.body !== undefined) init.body = hop.body;
    if (follow) init.redirect = "manual";
    // The Request openapi-fetch built goes on to the caller's fetch, with the fields it set on it from the call's
    // options (Next.js's `next`, say); later hops, and a plain request, go as a URL and an init.
    return attempt.race(fetchChecked(fetchImpl, first && !plain ? request : hop.url, init, attempt), cancelBody);
  };

  let hop: Hop = { url: request.url, method: request.method, headers, body };
  let response = await fetchOnce(hop, true);
  attempt.received();
  if (follow) {
    const visited = [hop.url];
    while (isRedirect(response)) {
      hop = nextHop(response, hop, visited, () => attempt.where());
      // Drained, so its connection can serve the next hop (or closed, if the body is over the limit).
      await readKept(attempt, response);
      response = await fetchOnce(hop, false);
      attempt.received();
    }
  }
  if (response.ok) return response;
  // An error body is read as far as ERROR_BODY_LIMIT: enough for any problem document, and a huge or endless one
  // costs no more. It comes back as a response of that text, which openapi-fetch parses as JSON when it can.
  const text = decode(await readKept(attempt, response));
  const nullBody = response.status === 204 || response.status === 205 || response.status === 304;
  return new Response(nullBody || !text ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** A plain request's headers: the call's, the key, and `Content-Type: application/json` with a body (unless set). */
function plainHeaders(base: Readonly<Record<string, string>>, key: string, request: PlainRequest): Readonly<Record<string, string>> {
  if (request.body === undefined) {
    const known = shared.get(base);
    if (known?.key === key) return known.headers;
    const headers = Object.freeze({ ...base, Authorization: BEARER + key });
    shared.set(base, { key, headers });
    return headers;
  }
  const type = request.headers.get("content-type");
  for (const name in base) if (name.toLowerCase() === "content-type") return { ...base, Authorization: BEARER + key };
  return { ...base, ...(type ? { "Content-Type": type } : {}), Authorization: BEARER + key };
}

/** The caller's fetch, its failure an APIConnectionError; anything but a response (null, say) is a failure too. */
async function fetchChecked(fetchImpl: typeof fetch, input: Request | string, init: RequestInit, attempt: Attempt): Promise<Response> {
  try {
    const response = await fetchImpl(input, init);
    // Another fetch's Response (undici's, say) is one too: it is told by its shape, not its class.
    if (typeof response?.status !== "number" || typeof response.headers?.get !== "function") throw new TypeError("fetch did not resolve to a Response");
    return response;
  } catch (cause) {
    throw connectionError(cause, attempt.where());
  }
}

/** The body's first ERROR_BODY_LIMIT bytes; a body cut off in transfer is a connection error, as a failed fetch is. */
async function readKept(attempt: Attempt, response: Response) {
  try {
    return await attempt.race(attempt.read(response, ERROR_BODY_LIMIT));
  } catch (error) {
    throw error instanceof IncompleteBody ? connectionError(error.cause, attempt.where()) : error;
  }
}
