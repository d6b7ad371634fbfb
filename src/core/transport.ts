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
  attempt.secrets = [...attempt.secrets, key];
  const plain = request instanceof PlainRequest;
  // A Request that middleware saw keeps its headers; the key goes on a copy.
  const headers = plain ? request.headers : new Headers(request.headers);
  headers.set("Authorization", BEARER + key);
  config.log.write("debug", `→ ${attempt.call.method} ${attempt.call.path}`, { attempt: attempt.number, params: attempt.call.params, headers: redactHeaders(headers) }, attempt.secrets);
  const body = plain ? request.body : request.body ? await attempt.race(request.arrayBuffer()) : undefined;
  const fetchImpl = config.fetch();
  const signal = attempt.abortSignal;
  const follow = FOLLOW_REDIRECTS && request.redirect === "follow";
  const fetchOnce = (hop: Hop, first: boolean): Promise<Response> => {
    // Nothing more is sent for an attempt that has ended (a late key, or a caller's fetch that ignored its signal).
    if (attempt.ended) return Promise.reject(INTERRUPTED);
    attempt.url = hop.url;
    let pendingResponse: Promise<Response>;
    try {
      const init: RequestInit = { method: hop.method, headers: hop.headers, signal };
      if (hop.body !== undefined) init.body = hop.body;
      if (follow) init.redirect = "manual";
      // The Request openapi-fetch built goes on to the caller's fetch, with the fields it set on it from the call's
      // options (Next.js's `next`, say); later hops, and a plain request, go as a URL and an init.
      pendingResponse = first && !plain ? fetchImpl(request, init) : fetchImpl(hop.url, init);
    } catch (error) {
      pendingResponse = Promise.reject(error);
    }
    const checked = pendingResponse.then((response) => {
      // Anything but a response (a caller's fetch resolving to null, say) is a failed fetch.
      // (Another fetch's Response, undici's say, is one too: it is told by its shape, not its class.)
      if (typeof response?.status !== "number" || typeof response.headers?.get !== "function") throw new TypeError("fetch did not resolve to a Response");
      return response;
    });
    return attempt.race(
      checked.catch((cause: unknown) => Promise.reject(connectionError(cause, attempt.where()))),
      cancelBody,
    );
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

/** The body's first ERROR_BODY_LIMIT bytes; a body cut off in transfer is a connection error, as a failed fetch is. */
async function readKept(attempt: Attempt, response: Response) {
  try {
    return await attempt.race(attempt.read(response, ERROR_BODY_LIMIT));
  } catch (error) {
    throw error instanceof IncompleteBody ? connectionError(error.cause, attempt.where()) : error;
  }
}
