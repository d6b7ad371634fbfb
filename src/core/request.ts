// One call = one or more attempts, each a plain `fetch(url, init)`. This file owns the policy between attempts:
// per-attempt timeout, overall deadline, abort, which failures are retried, backoff and Retry-After.
// The URL is built with openapi-fetch's own serializers; every attempt hands fetch a fresh init (the body is a
// string), so a consumed Request is never re-sent.
import { createFinalURL, createQuerySerializer } from "openapi-fetch";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OrgAgentError,
  isRecord,
  parseRetryAfter,
  snippet,
} from "./errors.js";
import { redactHeaders, type Log } from "./log.js";

/** Options every method accepts as its last argument, and the client as defaults. */
export interface RequestOptions {
  /** Aborts the call at once, also during a backoff wait, with APIUserAbortError. */
  signal?: AbortSignal | undefined;
  /** Milliseconds one attempt may take. Default 60,000. */
  timeout?: number | undefined;
  /** Milliseconds the whole call may take across attempts and waits. Default: none. */
  deadline?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** Extra request headers for this call. */
  headers?: Record<string, string> | undefined;
  /**
   * Treat this call as safe to repeat. Writes that are not idempotent (creating a session, sending a message,
   * retrying install-deps) are otherwise retried only when the server surely did not act on them (429, or a
   * connection that failed before the request was sent); set this to accept a possible duplicate.
   */
  idempotent?: boolean | undefined;
}

export interface RetryPolicy {
  maxRetries: number;
  timeout: number;
  deadline: number | undefined;
  /** Longest Retry-After honoured, in ms; a longer one gives up at once. */
  maxRetryAfter: number;
  /** Exponential backoff: first delay and cap, in ms (jittered down by up to 25%). */
  backoff: { initial: number; max: number };
}

/** What an operation looks like to the transport: the generated spec table's entry. */
export interface OperationSpec {
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly response?: { readonly type?: string; readonly envelope?: { readonly [name: string]: string } };
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

export async function send(
  transport: Transport,
  op: OperationSpec,
  params: CallParams,
  body: unknown,
  options: RequestOptions = {},
): Promise<unknown> {
  const policy = transport.policy;
  const maxRetries = options.maxRetries ?? policy.maxRetries;
  const timeout = options.timeout ?? policy.timeout;
  const deadline = options.deadline ?? policy.deadline;
  const idempotent = options.idempotent ?? (op.method === "GET" || op.method === "PUT");
  const signal = options.signal;
  const deadlineAt = deadline === undefined ? Infinity : performance.now() + deadline;
  // Built once per call: a ValidationError from the path serializer is thrown before anything is sent.
  const request: PreparedRequest = {
    method: op.method,
    url: createFinalURL(op.path, {
      baseUrl: transport.baseUrl(op.host),
      params: { path: params.path, query: params.query },
      querySerializer,
      pathSerializer: transport.pathSerializer,
    }),
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  const label = `${op.method} ${op.path}`;
  const { log } = transport;

  for (let attempt = 0; ; attempt++) {
    const pending = transport.headers(options.headers);
    const headers = pending instanceof Promise ? await pending : pending;
    // Checked after the await above: from here to the listener in attemptOnce nothing yields, so no abort is missed.
    if (signal?.aborted) throw new APIUserAbortError();
    const remaining = deadlineAt - performance.now();
    if (remaining <= 0) throw new APIConnectionTimeoutError(`Deadline of ${deadline} ms exceeded.`);
    const attemptTimeout = Math.min(timeout, remaining);
    const started = performance.now();
    if (log.enabled("debug")) {
      log.write("debug", `→ ${label}`, { attempt: attempt + 1, params, headers: redactHeaders(headers) });
    }

    const outcome = await attemptOnce(
      transport.fetch ?? globalThis.fetch,
      (text) => transport.scrub(text, headers),
      op,
      request,
      headers,
      signal,
      attemptTimeout,
      signal !== undefined || attempt > 0 || !SIGNAL_FOR_RETRIES_ONLY,
    );
    if (log.enabled("debug")) {
      log.write("debug", `← ${label}`, {
        status: outcome.status,
        ms: Math.round(performance.now() - started),
        ...(outcome.error ? { error: outcome.error.name } : {}),
        ...(outcome.headers ? { headers: redactHeaders(outcome.headers) } : {}),
      });
    }
    if (!outcome.error) return outcome.data;

    const error = outcome.error;
    if (error instanceof APIUserAbortError) throw error;
    const retryable = isRetryable(outcome, idempotent);
    if (!retryable) throw error;
    if (attempt >= maxRetries) {
      log.write("warn", `${label} failed after ${attempt + 1} attempts: ${error.message}`);
      throw error;
    }
    const retryAfter = error instanceof APIError ? parseRetryAfter(error.headers) : undefined;
    if (retryAfter !== undefined && retryAfter > policy.maxRetryAfter) {
      log.write("warn", `${label}: server asked to wait ${retryAfter} ms, over the ${policy.maxRetryAfter} ms cap`);
      throw error;
    }
    const delay = retryAfter ?? backoffDelay(attempt, policy.backoff);
    if (performance.now() + delay >= deadlineAt) throw error;
    log.write("info", `${label}: ${error.message}; retrying in ${Math.round(delay)} ms`, {
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
  return false;
}

interface AttemptOutcome {
  status?: number;
  headers?: Headers;
  data?: unknown;
  error?: Error;
  /** The status line arrived but the body was cut off. */
  bodyIncomplete?: boolean;
}

// openapi-fetch's own query serializer with its defaults (form, explode), the one its client uses.
const querySerializer = createQuerySerializer();

interface PreparedRequest {
  method: string;
  url: string;
  /** JSON text: a string can be sent again by every attempt, where a stream could be read only once. */
  body: string | undefined;
}

/**
 * One attempt. Its timeout, and the caller's signal, end the wait at once even if `fetch` ignores its signal: the
 * answer is raced against them, and a body being read is cancelled (which closes the connection).
 * Whether fetch also gets an AbortSignal, so that the request itself is aborted:
 * - a retry, a call with a caller's signal, and every attempt in a browser: yes;
 * - a first attempt without a signal elsewhere (Node, Bun, Deno): no. Following an AbortSignal costs Node's fetch
 *   about 7% of its loopback throughput (a listener, a WeakRef and a FinalizationRegistry entry per request). If it
 *   times out before the headers come, the request is abandoned: its connection is closed when the server does
 *   answer, or by the runtime's own header timeout (Node: 300 s). Browsers pay little for a signal but hold few
 *   connections per origin, so there every attempt is aborted.
 */
async function attemptOnce(
  fetchImpl: typeof fetch,
  scrub: (text: string) => string,
  op: OperationSpec,
  request: PreparedRequest,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
  timeout: number,
  abortable: boolean,
): Promise<AttemptOutcome> {
  const controller = abortable ? new AbortController() : undefined;
  let timedOut = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let stopWaiting: ((reason: unknown) => void) | undefined;
  const interrupt = () => {
    controller?.abort();
    stopWaiting?.(INTERRUPTED);
    reader?.cancel().catch(ignore);
  };
  signal?.addEventListener("abort", interrupt, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    interrupt();
  }, Math.min(timeout, MAX_TIMER));
  const interrupted = (): AttemptOutcome | undefined =>
    signal?.aborted
      ? { error: new APIUserAbortError() }
      : timedOut
        ? { error: new APIConnectionTimeoutError(`Request timed out after ${timeout} ms.`) }
        : undefined;
  const readBody = (response: Response) => {
    if (!response.body) return "";
    reader = response.body.getReader();
    return readAll(reader);
  };
  try {
    let response: Response;
    let text = "";
    try {
      // URL and init, not a Request: fetch builds the only Request (and follows our signal, if any, once).
      const pending = fetchImpl(request.url, {
        method: request.method,
        headers: request.body === undefined ? headers : withJsonType(headers),
        body: request.body,
        ...(controller ? { signal: controller.signal } : {}),
      });
      response = await new Promise<Response>((resolve, reject) => {
        stopWaiting = (reason) => {
          reject(reason);
          // Abandoned: release the connection as soon as an answer arrives; a late failure is nobody's.
          pending.then((late) => late.body?.cancel().catch(ignore), ignore);
        };
        pending.then(resolve, reject);
      });
      stopWaiting = undefined;
      if (!response.ok) {
        // An error body is read whole, as openapi-fetch does: JSON when it parses, else the text.
        try {
          text = scrub(await readBody(response));
        } catch (cut) {
          throw cut instanceof IncompleteBody ? cut.cause : cut;
        }
        const stopped = interrupted();
        if (stopped) return stopped;
        let detail: unknown = text || undefined;
        try {
          detail = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        return { status: response.status, headers: response.headers, error: APIError.from(response.status, response.headers, detail) };
      }
    } catch (cause) {
      // Our own errors (e.g. thrown by a fetch wrapper built on the SDK) are not connection failures.
      if (cause instanceof OrgAgentError) return { error: cause };
      return (
        interrupted() ?? {
          error: new APIConnectionError(connectionMessage(cause), { cause, notSent: wasNotSent(cause) }),
        }
      );
    }
    const { status, headers: answered } = response;
    try {
      text = await readBody(response);
    } catch (cause) {
      const partial = cause instanceof IncompleteBody ? scrub(cause.partial) : "";
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
          ),
        }
      );
    }
    // A cancelled stream ends quietly (done), so an interruption during the body shows only here.
    const stopped = interrupted();
    if (stopped) return stopped;
    const parsed = parseBody(op, response, text, scrub);
    parsed.status = status;
    parsed.headers = answered;
    return parsed;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", interrupt);
  }
}

// Where following an AbortSignal is costly (Node's fetch, and the runtimes that mirror its API): see attemptOnce.
const SIGNAL_FOR_RETRIES_ONLY =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";
const INTERRUPTED = Symbol("interrupted");
const ignore = () => {};

/** `headers` plus `Content-Type: application/json`, unless the caller set a content type. */
function withJsonType(headers: Record<string, string>): Record<string, string> {
  for (const name in headers) if (name.toLowerCase() === "content-type") return headers;
  return { ...headers, "Content-Type": "application/json" };
}

/** Parses a success body; anything but JSON of the documented top-level shape is an APIError. */
function parseBody(op: OperationSpec, response: Response, text: string, scrub: (text: string) => string): AttemptOutcome {
  const malformed = (why: string): AttemptOutcome => {
    const shown = scrub(text);
    const message = `${response.status}: ${why}${shown ? `: ${snippet(shown)}` : ""}`;
    return { error: new APIError(response.status, response.headers, shown, message) };
  };
  if (!text.trim()) return malformed("the response body is empty, expected JSON");
  const type = response.headers.get("content-type");
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
    for (const [name, kind] of Object.entries(shape.envelope ?? {})) {
      const value = data[name];
      const ok = kind === "array" ? Array.isArray(value) : isRecord(value);
      if (!ok) return malformed(`expected \`${name}\` to be an ${kind}`);
    }
  }
  return { data };
}

class IncompleteBody extends Error {
  constructor(readonly partial: string, cause: unknown) {
    super("incomplete body", { cause });
  }
}

// Decoding whole bytes is stateless, so one decoder serves every call (building one per call shows in profiles).
const utf8 = new TextDecoder();

/** The body as text, read through our own reader so a timeout can cancel it and a cut-off keeps what arrived. */
async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch (cause) {
    throw new IncompleteBody(decode(chunks), cause);
  }
  return decode(chunks);
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
  return `Connection error: ${parts.join(": ") || "fetch failed"}`;
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
    if (signal?.aborted) return reject(new APIUserAbortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
