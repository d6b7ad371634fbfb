// The fetch openapi-fetch calls for every attempt, resource methods and `client.raw` alike: it adds the key (asked
// per attempt), sends the request with the attempt's signal, follows redirects (redirects.ts) and reads an error body
// as far as it is kept. A failure of the caller's fetch becomes an APIConnectionError; the SDK's own errors (a
// refused redirect, a bad key) pass as they are. Middleware sees the request before the key is added, so no
// middleware can log it.
// Between the key and the first byte sent, the request waits for its turn from the rate controller of its key and
// host (rate-controller.ts), which hears the status and headers of the host's answer as soon as they arrive (before
// any body is read), or that none came. A redirect to another origin is not paced: its answer says nothing of the
// host's limit.
import { INTERRUPTED, cancelBody, type Attempt } from "./attempt.js";
import { IncompleteBody, decode } from "./body.js";
import type { ApiKey } from "./credentials.js";
import { redactHeaders, type Log } from "./log.js";
import { connectionError } from "./network-errors.js";
import { ERROR_BODY_LIMIT } from "./options.js";
import type { RatePermit } from "./rate-controller.js";
import type { RateControllers } from "./rate-registry.js";
import { FOLLOW_REDIRECTS, isRedirect, nextHop, type Hop } from "./redirects.js";

export interface TransportConfig {
  /** The caller's fetch, or the global one, read at call time. */
  readonly fetch: () => typeof fetch;
  readonly key: ApiKey;
  readonly log: Log;
  /** The rate controllers of the client's keys and hosts; undefined with `rateLimiting: false`. */
  readonly rate?: RateControllers | undefined;
}

const releaseLate = (permit: RatePermit) => permit.release();

/** The headers a plain request goes with, built once for the common case: the client's headers and the same key. */
const shared = new WeakMap<object, { key: string; headers: Readonly<Record<string, string>> }>();

/**
 * A request no middleware sees: its URL, method and JSON body, the transport adding the call's headers. A fetch Request
 * is built once, by fetch itself, instead of once by openapi-fetch and again by fetch (which copies the first).
 */
export class PlainRequest {
  readonly redirect: RequestRedirect = "follow";
  constructor(
    readonly url: string,
    readonly method: string,
    readonly body: string | undefined,
  ) {}
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
  const headers = plain
    ? plainHeaders(attempt.call.headers ?? {}, key, request.body)
    : { ...Object.fromEntries(request.headers), Authorization: BEARER + key };
  // The guard spares building the details at the default level. write() checks the level itself, so the guard made
  // true (`enabled("")` is, at every level) builds them for nothing and logs the same: equivalent mutants, the
  // ConditionalExpression one unmarked, as a marker would hide its killable `false`.
  // Stryker disable next-line StringLiteral: see above
  if (config.log.enabled("debug")) {
    const details = { attempt: attempt.number, params: attempt.call.params, headers: redactHeaders(headers) };
    config.log.write("debug", `→ ${attempt.call.method} ${attempt.call.path}`, details, attempt.allSecrets());
  }
  const body = plain ? request.body : request.body ? await attempt.race(request.arrayBuffer()) : undefined;
  const fetchImpl = config.fetch();
  const follow = FOLLOW_REDIRECTS && request.redirect === "follow";
  let hop: Hop = { url: request.url, method: request.method, headers, body };
  let permit: RatePermit | undefined;
  if (config.rate) {
    const turn = config.rate.turn(key, attempt.baseUrl ?? new URL(request.url).origin, attempt.number > 1, attempt.abortSignal);
    permit = turn instanceof Promise ? await attempt.awaitTurn(turn, releaseLate) : turn;
  }
  // Told of the host's answer once, as soon as its status line is in; of no answer (an error, the attempt's end) else.
  const observe = (answer: Response) => {
    attempt.throttle = permit?.observe(answer.status, answer.headers);
    permit = undefined;
  };
  try {
    attempt.onSend?.();
    // The Request openapi-fetch built goes on to the caller's fetch, with the fields it set on it from the call's
    // options (Next.js's `next`, say); later hops, and a plain request, go as a URL and an init.
    let response = await fetchHop(fetchImpl, attempt, plain ? hop.url : request, hop, follow);
    if (follow && isRedirect(response)) {
      const visited = [hop.url];
      while (isRedirect(response)) {
        hop = nextHop(response, hop, visited, () => attempt.where());
        // The host's last answer is the redirect away from it.
        if (hop.crossOrigin) observe(response);
        // Drained, so its connection can serve the next hop (or closed, if the body is over the limit).
        await readKept(attempt, response);
        response = await fetchHop(fetchImpl, attempt, hop.url, hop, follow);
      }
    }
    if (permit) observe(response);
    return await keptError(attempt, response);
  } finally {
    permit?.release();
  }
}

/** A success as it is; an error's body cut to ERROR_BODY_LIMIT. */
async function keptError(attempt: Attempt, response: Response): Promise<Response> {
  if (response.ok) return response;
  // An error body is read as far as ERROR_BODY_LIMIT: enough for any problem document, and a huge or endless one
  // costs no more. It comes back as a response of that text, which openapi-fetch parses as JSON when it can.
  // No body is null: a Response of a status that never has one (a 304; 204 and 205 are successes, returned above)
  // has none to read, and cannot be given one.
  const text = decode(await readKept(attempt, response));
  return new Response(text || null, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * A plain request's headers: the call's, the key, and with a body `Content-Type: application/json` unless the call
 * names its own (as openapi-fetch does: its default goes first, the call's headers over it).
 */
function plainHeaders(base: Readonly<Record<string, string>>, key: string, body: string | undefined): Readonly<Record<string, string>> {
  if (body === undefined) {
    const known = shared.get(base);
    // Stryker disable next-line ConditionalExpression: a cache; the headers built again are the same headers
    if (known?.key === key) return known.headers;
    const headers = Object.freeze({ ...base, Authorization: BEARER + key });
    // Stryker disable next-line ObjectLiteral: a cache; an entry without the key is never used, and the headers are built again, the same
    shared.set(base, { key, headers });
    return headers;
  }
  for (const name in base) if (name.toLowerCase() === "content-type") return { ...base, Authorization: BEARER + key };
  return { "Content-Type": "application/json", ...base, Authorization: BEARER + key };
}

/**
 * Sends one hop with the attempt's signal, raced against the attempt's end. A failure of the caller's fetch is an
 * APIConnectionError, and so is anything it resolves to that is not a response (null, say); another fetch's Response
 * (undici's) is one too: it is told by its shape, not its class.
 */
async function fetchHop(fetchImpl: typeof fetch, attempt: Attempt, input: Request | string, hop: Hop, follow: boolean): Promise<Response> {
  // Nothing more is sent for an attempt that has ended (a late key, or a caller's fetch that ignored its signal).
  if (attempt.ended) throw INTERRUPTED;
  attempt.url = hop.url;
  const init: RequestInit = { method: hop.method, headers: hop.headers, signal: attempt.abortSignal };
  if (hop.body !== undefined) init.body = hop.body;
  if (follow) init.redirect = "manual";
  let response: Response;
  try {
    response = await attempt.race(fetchImpl(input, init), cancelBody);
    if (typeof response?.status !== "number" || typeof response.headers?.get !== "function")
      throw new TypeError("fetch did not resolve to a Response");
  } catch (cause) {
    // A middleware's onError is told why the attempt ended (its timeout, the caller's abort), not the race's token.
    throw cause === INTERRUPTED ? (attempt.interrupted() ?? cause) : connectionError(cause, attempt.where());
  }
  attempt.received();
  return response;
}

/** The body's first ERROR_BODY_LIMIT bytes; a body cut off in transfer is a connection error, as a failed fetch is. */
async function readKept(attempt: Attempt, response: Response) {
  try {
    return await attempt.race(attempt.read(response, ERROR_BODY_LIMIT));
  } catch (error) {
    throw error instanceof IncompleteBody ? connectionError(error.cause, attempt.where()) : error;
  }
}
