// One call = one or more attempts, each a plain `fetch(url, init)`. This file owns the policy between attempts
// (per-attempt timeout, overall deadline, abort, which failures are retried, backoff and Retry-After) and what one
// attempt may cost: its connection is released the moment it ends, its body is bounded, its redirects are checked.
// The URL is built with openapi-fetch's own serializers; every attempt hands fetch a fresh init (the body is a
// string), so a consumed Request is never re-sent.
import { createFinalURL, createQuerySerializer } from "openapi-fetch";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OrgAgentError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  isRecord,
  parseRetryAfter,
  snippet,
  withoutUserinfo,
  type RequestContext,
} from "./errors.js";
import { redactHeaders, type Log } from "./log.js";
import { ERROR_BODY_LIMIT, MAX_REDIRECTS, checkRequestOptions, type RequestOptions } from "./options.js";
import type { ResponseSink } from "./response.js";

export type { RequestOptions } from "./options.js";

/** Told of each 429 answer: the wait it asked for (ms, if any) and the longest the client honours (`maxRetryAfter`). */
export type RateLimitHook = (retryAfter: number | undefined, maxRetryAfter: number) => void;

/** The request options of a bulk job's calls: not public; how its concurrency limiter (concurrency.ts) hears of 429s. */
export interface JobRequestOptions extends RequestOptions {
  onRateLimit?: RateLimitHook | undefined;
}

export interface RetryPolicy {
  maxRetries: number;
  timeout: number;
  deadline: number | undefined;
  /** Longest Retry-After honoured, in ms; a longer one gives up at once. */
  maxRetryAfter: number;
  /** Exponential backoff: first delay and cap, in ms (jittered down by up to 25%). */
  backoff: { initial: number; max: number };
  /** Largest success body read, in bytes. */
  maxResponseSize: number;
}

/** What an operation looks like to the transport: the generated spec table's entry. */
export interface OperationSpec {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly response?: { readonly type?: string; readonly required?: { readonly [name: string]: string } };
}

export interface Transport {
  /** The user's fetch, called as `fetch(url, init)`; default `globalThis.fetch`, read at call time. */
  readonly fetch: typeof fetch | undefined;
  /** Fills `{name}` path templates (percent-encoded; refuses what cannot be one segment). */
  readonly pathSerializer: (path: string, params: Record<string, unknown>) => string;
  readonly policy: RetryPolicy;
  readonly log: Log;
  baseUrl(host: string): string;
  /** Synchronous for a fixed key, so a call does not pay an extra await for it. */
  headers(extra?: Record<string, string>): Record<string, string> | Promise<Record<string, string>>;
  /** Replaces the key sent with `headers` in server text (a body that echoes it) before it goes into an error. */
  scrub(text: string, headers: Record<string, string>): string;
}

export interface CallParams {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;
// fetch failures that happen before a single byte of the request can have left this machine.
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Everything an attempt needs that stays the same across the attempts of one call. */
interface Call {
  readonly transport: Transport;
  readonly op: OperationSpec;
  readonly label: string;
  readonly method: string;
  readonly url: string;
  /** JSON text: a string can be sent again by every attempt, where a stream could be read only once. */
  readonly body: string | undefined;
  readonly params: CallParams;
  readonly extraHeaders: Record<string, string> | undefined;
  readonly signal: AbortSignal | undefined;
  readonly maxResponseSize: number;
}

/**
 * Sends one call and resolves to its parsed body; `sink.response` is then the final attempt's Response. Every
 * APIError and APIConnectionError it rejects with says which operation and URL it came from.
 */
export async function send(
  transport: Transport,
  op: OperationSpec,
  params: CallParams,
  body: unknown,
  options: JobRequestOptions = {},
  sink?: ResponseSink,
): Promise<unknown> {
  checkRequestOptions(options, "options.");
  const policy = transport.policy;
  const maxRetries = options.maxRetries ?? policy.maxRetries;
  const timeout = options.timeout ?? policy.timeout;
  const deadline = options.deadline ?? policy.deadline;
  const idempotent = options.idempotent ?? (op.method === "GET" || op.method === "PUT");
  const signal = options.signal;
  const deadlineAt = deadline === undefined ? Infinity : performance.now() + deadline;
  const call: Call = {
    transport,
    op,
    label: `${op.method} ${op.path}`,
    method: op.method,
    // Built once per call: a ValidationError from the path serializer is thrown before anything is sent.
    url: createFinalURL(op.path, {
      baseUrl: transport.baseUrl(op.host),
      // Undefined means absent to openapi-fetch, as to the SDK.
      params: params as { path?: Record<string, unknown>; query?: Record<string, unknown> },
      querySerializer,
      pathSerializer: transport.pathSerializer,
    }),
    body: body === undefined ? undefined : JSON.stringify(body),
    params,
    extraHeaders: options.headers,
    signal,
    maxResponseSize: options.maxResponseSize ?? policy.maxResponseSize,
  };
  const { log } = transport;

  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw APIUserAbortError.of(signal);
    const remaining = deadlineAt - performance.now();
    if (remaining <= 0) throw new APIConnectionTimeoutError(`Deadline of ${deadline} ms exceeded`, contextOf(call, call.url));
    const limited = remaining < timeout;
    const started = performance.now();
    const outcome = await attemptOnce(
      call,
      attempt,
      limited ? remaining : timeout,
      limited ? `Deadline of ${deadline} ms exceeded` : `Request timed out after ${timeout} ms`,
    );
    log.write("debug", `← ${call.label}`, {
      status: outcome.status,
      ms: Math.round(performance.now() - started),
      ...(outcome.error ? { error: outcome.error.name } : {}),
      ...(outcome.headers ? { headers: redactHeaders(outcome.headers) } : {}),
    });
    if (!outcome.error) {
      if (sink) sink.response = outcome.response;
      return outcome.data;
    }

    const error = outcome.error;
    if (error instanceof RateLimitError) options.onRateLimit?.(error.retryAfter, policy.maxRetryAfter);
    const retryable = isRetryable(outcome, idempotent);
    if (!retryable) throw error;
    if (attempt >= maxRetries) {
      log.write("warn", `${call.label} failed after ${attempt + 1} attempts: ${error.message}`);
      throw error;
    }
    const retryAfter = error instanceof APIError ? parseRetryAfter(error.headers) : undefined;
    // No wait asked for counts as none: maxRetryAfter is 0 or more.
    if ((retryAfter ?? 0) > policy.maxRetryAfter) {
      log.write("warn", `${call.label}: server asked to wait ${retryAfter} ms, over the ${policy.maxRetryAfter} ms cap`);
      throw error;
    }
    const delay = retryAfter ?? backoffDelay(attempt, policy.backoff);
    if (performance.now() + delay >= deadlineAt) throw error;
    log.write("info", `${call.label}: ${error.message}; retrying in ${Math.round(delay)} ms`, {
      attempt: attempt + 2,
      of: maxRetries + 1,
    });
    await sleep(delay, signal);
  }
}

/** Whether a failed attempt may be repeated without risking a second write. */
function isRetryable(outcome: AttemptOutcome, idempotent: boolean): boolean {
  const { error } = outcome;
  // A cut-off body means the server received and answered the request.
  if (outcome.bodyIncomplete) return idempotent;
  // 429 means the server refused the request before acting on it, so even a write may repeat it.
  if (error instanceof APIError) return RETRYABLE_STATUS(error.status) && (idempotent || error.status === 429);
  // Includes per-attempt timeouts: the request may have been received, so only a connection that never
  // carried it lets a write go again.
  if (error instanceof APIConnectionError) return idempotent || error.notSent;
  // Aborts, and our own errors (a bad key from the apiKey function…): repeating cannot help.
  return false;
}

interface AttemptOutcome {
  status?: number | undefined;
  headers?: Headers | undefined;
  data?: unknown;
  /** The Response a success came in, its body read. */
  response?: Response | undefined;
  error?: Error | undefined;
  /** The status line arrived but the body was cut off. */
  bodyIncomplete?: boolean | undefined;
}

// openapi-fetch's own query serializer with its defaults (form, explode), the one its client uses.
const querySerializer = createQuerySerializer();

/**
 * One attempt: ask for the key, send, follow redirects, read the body. It owns an AbortController that fetch
 * follows; the timeout, the deadline, the caller's signal and any early end (an error body read as far as we keep
 * it, a body over maxResponseSize, any error) abort it, which closes the connection at once, and cancel a body
 * being read. Every wait is also raced against that end, so even a fetch (or an apiKey function) that ignores its
 * signal cannot hold the call past its time. Only a body read to its end leaves the connection to the runtime's pool.
 */
async function attemptOnce(call: Call, attempt: number, timeout: number, timeoutMessage: string): Promise<AttemptOutcome> {
  const { transport, signal } = call;
  const controller = new AbortController();
  // Set when the timer fires. The caller's abort is read off `signal.aborted`, which wins over a timeout that fired too.
  let timedOut = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let stopWaiting: ((reason: unknown) => void) | undefined;
  // Whether a response body was read to its end: then its connection is free, and nothing needs closing.
  let complete = false;
  const release = () => {
    controller.abort();
    stopWaiting?.(INTERRUPTED);
    reader?.cancel().catch(ignore);
  };
  signal?.addEventListener("abort", release);
  const timer = setTimeout(() => {
    timedOut = true;
    release();
  }, Math.min(timeout, MAX_TIMER));
  // The URL of the request in flight (a redirect's target once it is followed): where an error says it went.
  let at = call.url;
  const where = () => contextOf(call, at);
  const interrupted = (): AttemptOutcome | undefined =>
    signal?.aborted
      ? { error: APIUserAbortError.of(signal) }
      : timedOut
        ? { error: new APIConnectionTimeoutError(timeoutMessage, where()) }
        : undefined;
  /** `pending`, unless the attempt ends first; a late result is handed to `abandon`. */
  const wait = <T>(pending: Promise<T>, abandon: (late: T) => void = ignore): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      stopWaiting = (reason) => {
        reject(reason);
        // Letting go of a late answer never fails the program, whatever a caller's fetch resolved to.
        pending.then(abandon, ignore).catch(ignore);
      };
      pending.then(resolve, reject);
    });
  /** At most `limit` bytes of the body; `more` says that more was coming. */
  const read = async (response: Response, limit: number) => {
    complete = !response.body;
    if (!response.body) return { text: "", more: false };
    reader = response.body.getReader();
    const result = await readAll(reader, limit);
    complete = !result.more;
    return result;
  };

  let status: number | undefined;
  let answered: Headers | undefined;
  try {
    const pendingHeaders = transport.headers(call.extraHeaders);
    const sent = pendingHeaders instanceof Promise ? await wait(pendingHeaders) : pendingHeaders;
    transport.log.write("debug", `→ ${call.label}`, { attempt: attempt + 1, params: call.params, headers: redactHeaders(sent) });
    const fetchImpl = transport.fetch ?? globalThis.fetch;
    let hop: Hop = { url: call.url, method: call.method, body: call.body, headers: sent };
    let visited: string[] | undefined;
    let response: Response;
    for (;;) {
      const { url, method, body, headers } = hop;
      at = url;
      // URL and init, not a Request: fetch builds the only Request.
      const init: RequestInit =
        body === undefined
          ? { method, headers, signal: controller.signal }
          : { method, headers: withJsonType(headers), body, signal: controller.signal };
      if (FOLLOW_REDIRECTS) init.redirect = "manual";
      response = await wait(fetchImpl(url, init), cancelBody);
      complete = false;
      if (!FOLLOW_REDIRECTS || !REDIRECTS.has(response.status) || !response.headers.has("location")) break;
      hop = redirectOf(response, hop, (visited ??= [call.url]), where());
      // Drained, so its connection can serve the next hop (or closed, if the body is over the limit).
      if ((await read(response, ERROR_BODY_LIMIT)).more) reader!.cancel().catch(ignore);
    }
    status = response.status;
    answered = response.headers;
    if (!response.ok) {
      // An error body is read as far as ERROR_BODY_LIMIT, as text (JSON when it parses): enough for any problem
      // document, and a huge or endless one costs no more.
      let kept: { text: string; more: boolean };
      try {
        kept = await read(response, ERROR_BODY_LIMIT);
      } catch (cut) {
        throw cut instanceof IncompleteBody ? cut.cause : cut;
      }
      const stopped = interrupted();
      if (stopped) return stopped;
      const text = transport.scrub(kept.text, sent);
      let detail: unknown = text || undefined;
      try {
        if (!kept.more) detail = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status, headers: answered, error: APIError.from(status, answered, detail, undefined, where()) };
    }
    const { maxResponseSize } = call;
    const announced = Number(response.headers.get("content-length"));
    let whole: { text: string; more: boolean } | undefined;
    try {
      // Announced over the limit: not read at all.
      if (!(announced > maxResponseSize)) whole = await read(response, maxResponseSize);
    } catch (cause) {
      if (!(cause instanceof IncompleteBody)) throw cause;
      const partial = transport.scrub(cause.partial, sent);
      return (
        interrupted() ?? {
          status,
          headers: answered,
          bodyIncomplete: true,
          error: new APIError(
            status,
            answered,
            partial,
            `${status}: the response body was cut off after ${partial.length} characters${partial ? `: ${snippet(partial)}` : ""}`,
            where(),
          ),
        }
      );
    }
    // A cancelled stream ends quietly (done), so an interruption during the body shows only here.
    const stopped = interrupted();
    if (stopped) return stopped;
    if (!whole || whole.more) {
      const error = new ResponseTooLargeError(status, answered, maxResponseSize, whole ? undefined : announced, where());
      return { status, headers: answered, error };
    }
    return parseBody(call.op, response, whole.text, (raw) => transport.scrub(raw, sent), where);
  } catch (cause) {
    const stopped = interrupted();
    if (stopped) return stopped;
    // Our own errors (a bad key, a refused redirect, or one thrown by a fetch wrapper built on the SDK) are not
    // connection failures.
    if (cause instanceof OrgAgentError) return { status, headers: answered, error: cause };
    return { error: new APIConnectionError(connectionMessage(cause), { cause, notSent: wasNotSent(cause), request: where() }) };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", release);
    // Ended before a body did (an error, an interruption, a refused size): close the connection now.
    if (!complete) release();
  }
}

interface Hop {
  url: string;
  method: string;
  body: string | ArrayBuffer | undefined;
  headers: Record<string, string>;
}

/**
 * The request a redirect (a 301, 302, 303, 307 or 308 with a Location) leads to. On Node, Bun and Deno
 * (`redirect: "manual"`) the SDK follows redirects itself: within the origin with the same headers; to another
 * origin with none of the caller's headers and no key, and never with a body; at most MAX_REDIRECTS, never in a
 * loop (`visited` lists the URLs so far, the call's own first). A browser follows redirects itself, and there the Fetch standard already drops the credential on a
 * cross-origin redirect (and CORS applies).
 */
function redirectOf(response: Response, from: Hop, visited: string[], request: RequestContext | undefined): Hop {
  const location = response.headers.get("location")!;
  const refuse = (why: string) => new RedirectError(response.status, response.headers, undefined, `${response.status}: ${why}`, request);
  let next: URL;
  try {
    next = new URL(location, from.url);
  } catch {
    throw refuse(`redirect to an invalid Location ${JSON.stringify(snippet(withoutUserinfo(location)))}`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") throw refuse(`redirect to a ${next.protocol} URL, not http(s)`);
  // fetch refuses a URL with credentials in it, and its error would quote them.
  if (next.username || next.password) throw refuse(`redirect to a URL with a user name or password in it (${withoutUserinfo(next.href)})`);
  if (visited.includes(next.href)) throw refuse(`redirect loop: ${[...visited, next.href].join(" → ")}`);
  if (visited.length > MAX_REDIRECTS) throw refuse(`more than ${MAX_REDIRECTS} redirects, from ${visited[0]}`);
  visited.push(next.href);
  let { method, body, headers } = from;
  // 303, and 301/302 after a POST, turn into a GET without a body (as fetch does); 307 and 308 keep both.
  if (response.status === 303 ? method !== "HEAD" : response.status <= 302 && method === "POST") {
    method = "GET";
    body = undefined;
    // As fetch does: the headers that described the body go with it.
    headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !BODY_HEADER.test(name)));
  }
  // Only the origin the call was made to gets the key and the caller's headers.
  if (next.origin !== new URL(visited[0]!).origin) {
    if (method !== "GET" && method !== "HEAD") {
      throw refuse(`refused to send the ${method} on to another origin (${next.origin}): it would arrive there without its credential, and must not arrive twice`);
    }
    // The other origin gets nothing of ours: no key, no caller's header.
    headers = CROSS_ORIGIN_HEADERS;
  }
  return { url: next.href, method, body, headers };
}

/**
 * The fetch `client.raw` (openapi-fetch) calls, with a Request. On Node, Bun and Deno it follows redirects itself by
 * the resource methods' rules (redirectOf), unless the caller asked for `redirect: "manual"` or `"error"`: each hop
 * goes to `fetchOf()` (the user's fetch or the global one) with `redirect: "manual"`.
 */
export function followingRedirects(fetchOf: () => typeof fetch): (request: Request) => Promise<Response> {
  // openapi-fetch calls its fetch with the Request it built: that very object goes on to the caller's fetch, with the
  // fields openapi-fetch set on it from the call's options (Next.js's `next`, say).
  return async (request) => {
    if (!FOLLOW_REDIRECTS || request.redirect !== "follow") return fetchOf()(request);
    // Read once, so that a 307 or 308 within the origin can send it again.
    const body = request.body ? await request.arrayBuffer() : undefined;
    let response = await fetchOf()(request, body ? { redirect: "manual", body } : { redirect: "manual" });
    const visited = [request.url];
    let hop: Hop | undefined;
    while (REDIRECTS.has(response.status) && response.headers.has("location")) {
      hop = redirectOf(response, hop ?? { url: request.url, method: request.method, body, headers: Object.fromEntries(request.headers) }, visited, undefined);
      if (response.body) {
        // Drained as far as ERROR_BODY_LIMIT, so its connection can serve the next hop; cancelling the rest closes the
        // connection of a longer body (a body read to its end has nothing left to cancel).
        const reader = response.body.getReader();
        await readAll(reader, ERROR_BODY_LIMIT).catch(ignore);
        reader.cancel().catch(ignore);
      }
      const { url, method, headers } = hop;
      response = await fetchOf()(new Request(url, { method, headers, body: hop.body ?? null, signal: request.signal, redirect: "manual" }));
    }
    return response;
  };
}

/** Releases the connection of an answer nobody waits for any more. */
const cancelBody = (late: Response) => void late.body?.cancel().catch(ignore);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_HEADERS: Record<string, string> = { Accept: "application/json" };
const BODY_HEADER = /^content-(type|length|encoding|language|location)$/i;
// fetch returns redirects as they are (`manual`) on Node, Bun and Deno (all of which set process.versions.node).
// A browser would hand back an opaque response without the Location, so there fetch follows them itself.
const FOLLOW_REDIRECTS =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";
const INTERRUPTED = Symbol("interrupted");
const ignore = () => {};

/** `headers` plus `Content-Type: application/json`, unless the caller set a content type. */
function withJsonType(headers: Record<string, string>): Record<string, string> {
  for (const name in headers) if (name.toLowerCase() === "content-type") return headers;
  return { ...headers, "Content-Type": "application/json" };
}

const JSON_TYPES: Record<string, (value: unknown) => boolean> = {
  array: Array.isArray,
  object: isRecord,
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => typeof value === "number",
  boolean: (value) => typeof value === "boolean",
};

/** Parses a success body; anything but JSON with the spec's required top-level fields is an APIError. */
function parseBody(
  op: OperationSpec,
  response: Response,
  text: string,
  scrub: (text: string) => string,
  where: () => RequestContext,
): AttemptOutcome {
  const { status, headers } = response;
  const malformed = (why: string): AttemptOutcome => {
    const shown = scrub(text);
    const message = `${status}: ${why}${shown ? `: ${snippet(shown)}` : ""}`;
    return { status, headers, error: new APIError(status, headers, shown, message, where()) };
  };
  if (!text.trim()) return malformed("the response body is empty, expected JSON");
  const type = headers.get("content-type");
  // A proxy's or captive portal's page is not the API's answer, even if it happens to parse.
  if (type && !/^application\/(.+\+)?json\s*(;|$)/i.test(type)) return malformed(`expected JSON, got ${type}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return malformed("the response body is not valid JSON");
  }
  const shape = op.response;
  if (shape?.type === "object") {
    if (!isRecord(data)) return malformed("expected a JSON object");
    for (const name in shape.required) {
      const kind = shape.required[name]!;
      if (data[name] === undefined) return malformed(`the required field \`${name}\` is missing`);
      if (!(JSON_TYPES[kind]?.(data[name]) ?? true)) return malformed(`expected \`${name}\` to be ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`);
    }
  }
  return { status, headers, data, response };
}

class IncompleteBody extends Error {
  constructor(readonly partial: string, cause: unknown) {
    super("incomplete body", { cause });
  }
}

// Decoding whole bytes is stateless, so one decoder serves every call (building one per call shows in profiles).
const utf8 = new TextDecoder();

/**
 * Up to `limit` bytes of the body as text, read through our own reader so a timeout can cancel it and a cut-off
 * keeps what arrived. Stops as soon as more than `limit` bytes came (`more: true`); the caller then releases the
 * connection, which ends the download.
 */
async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<{ text: string; more: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        chunks.push(value.subarray(0, value.length - (size - limit)));
        return { text: decode(chunks), more: true };
      }
      chunks.push(value);
    }
  } catch (cause) {
    throw new IncompleteBody(decode(chunks), cause);
  }
  return { text: decode(chunks), more: false };
}

function decode(chunks: Uint8Array[]): string {
  if (chunks.length <= 1) return chunks.length ? utf8.decode(chunks[0]) : "";
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return utf8.decode(bytes);
}

function wasNotSent(error: unknown): boolean {
  for (let e: any = error, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (NOT_SENT_CODES.has(e.code)) return true;
    if (Array.isArray(e.errors) && e.errors.length && e.errors.every((inner: any) => NOT_SENT_CODES.has(inner?.code))) {
      return true;
    }
  }
  return false;
}

function connectionMessage(error: unknown): string {
  const parts: string[] = [];
  for (let e: any = error, depth = 0; e && depth < 4; e = e.cause, depth++) {
    if (e.code || e.message) parts.push(e.code ? `${e.message ?? ""} (${e.code})`.trim() : e.message);
  }
  return withoutUserinfo(`Connection error: ${parts.join(": ") || "fetch failed"}`);
}

/** Where a call's request went, for its error: the operation, and `url` without any user name or password. */
function contextOf(call: Call, url: string): RequestContext {
  return { operationId: call.op.operationId, method: call.method, path: call.op.path, url: withoutUserinfo(url) };
}


// setTimeout fires at once for longer delays (with a warning), so `timeout: Infinity` must be clamped.
const MAX_TIMER = 2 ** 31 - 1;

export function backoffDelay(attempt: number, backoff: { initial: number; max: number }): number {
  const base = Math.min(backoff.max, backoff.initial * 2 ** attempt);
  return base * (1 - 0.25 * Math.random());
}

/** A wait that ends early, with APIUserAbortError, when `signal` aborts; leaves no timer or listener behind. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(APIUserAbortError.of(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(APIUserAbortError.of(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
