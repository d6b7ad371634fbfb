// One attempt of an operation: one openapi-fetch call (so the client's middleware sees every attempt) whose fetch is
// the transport, then the success body read under the attempt within `maxResponseSize`, decoded once and checked
// against the spec's shape. Resolves to what came of it, never rejects: the retry loop (send.ts) decides what next.
// openapi-fetch's core is the middleware runner: with no middleware registered there is nothing for it to run, so the
// attempt builds the same request itself (openapi-fetch's own URL builder and serializers) and hands it straight to
// the transport, which is cheaper by a Request object and several awaits per call.
import { createFinalURL, type Middleware } from "openapi-fetch";
import { INTERRUPTED, cancelBody, type Attempt } from "./attempt.js";
import { type BodyBytes, IncompleteBody, decode } from "./body.js";
import { APIError, OrgAgentError, ResponseTooLargeError, snippet } from "./errors.js";
import { parseSuccess, type ResponseShape } from "./shape.js";
import { PlainRequest, send, type TransportConfig } from "./transport.js";

/** The openapi-fetch client, as the hub calls it: by method and path template, with the init of one attempt. */
export interface CoreClient {
  request(method: string, path: string, init: Record<string, unknown>): Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

/** What the attempts of every call share. */
export interface ExchangeConfig {
  readonly core: CoreClient;
  readonly transport: TransportConfig;
  /** The client's middleware (`client.use()`), as it is when each attempt starts. */
  readonly middleware: readonly Middleware[];
  /** Fills `{name}` path templates, as openapi-fetch's client does with it. */
  readonly pathSerializer: (path: string, params: Record<string, unknown>) => string;
  /** Serializes a query, as openapi-fetch's client does with it. */
  readonly querySerializer: (query: Record<string, unknown>) => string;
}

/** One attempt's request: the operation, and what openapi-fetch builds the request from. */
export interface ExchangeRequest {
  readonly method: string;
  readonly path: string;
  readonly response?: ResponseShape | undefined;
  readonly baseUrl: string;
  readonly params: { readonly path?: unknown; readonly query?: unknown };
  /** JSON text, built once per call: every attempt sends the same string. */
  readonly body: string | undefined;
  /** The call's headers: the client's, and its own. */
  readonly headers: Readonly<Record<string, string>>;
  readonly maxResponseSize: number;
}

/** What came of one attempt. */
export interface AttemptOutcome {
  status?: number | undefined;
  headers?: Headers | undefined;
  data?: unknown;
  /** The Response a success came in, its body read. */
  response?: Response | undefined;
  error?: Error | undefined;
  /** The status line arrived but the body was cut off. */
  bodyIncomplete?: boolean | undefined;
}

// The body is JSON text already: sent as it is.
const asIs = (body: unknown) => body;

/** The attempt through openapi-fetch's core, which runs the middleware on a real Request with the call's headers. */
function throughMiddleware(config: ExchangeConfig, attempt: Attempt, request: ExchangeRequest) {
  const pending = config.core.request(request.method, request.path, {
    baseUrl: request.baseUrl,
    params: request.params,
    body: request.body,
    bodySerializer: asIs,
    headers: request.headers,
    parseAs: "stream",
    middleware: config.middleware,
    fetch: (built: Request) => send(config.transport, attempt, built),
  });
  // A middleware's wait is raced here (the transport races its own).
  return attempt.race(pending, (late) => cancelBody(late.response));
}

/** The URL of an attempt, built as openapi-fetch builds it. */
function urlOf(config: ExchangeConfig, request: ExchangeRequest): string {
  return createFinalURL(request.path, {
    baseUrl: request.baseUrl,
    params: request.params as { path?: Record<string, unknown>; query?: Record<string, unknown> },
    querySerializer: config.querySerializer,
    pathSerializer: config.pathSerializer,
  });
}

/** A body's text as JSON when it parses, else the text: as openapi-fetch reads an error body. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function exchange(config: ExchangeConfig, attempt: Attempt, request: ExchangeRequest): Promise<AttemptOutcome> {
  let status: number | undefined;
  let headers: Headers | undefined;
  try {
    let response: Response;
    let errorBody: unknown;
    if (config.middleware.length) {
      ({ response, error: errorBody } = await throughMiddleware(config, attempt, request));
    } else {
      // The same attempt without middleware: the transport adds the call's headers, and fetch builds the only Request.
      response = await send(config.transport, attempt, new PlainRequest(urlOf(config, request), request.method, request.body));
      // An error body is the transport's, cut to its limit, read as openapi-fetch reads one.
      if (!response.ok) errorBody = jsonOrText(await response.text());
    }
    status = response.status;
    headers = response.headers;
    if (!response.ok) {
      // The error body the transport kept, as JSON when it parses, else as text.
      const body = errorBody === "" ? undefined : errorBody;
      return { status, headers, error: APIError.from(status, headers, body, undefined, attempt.where()) };
    }
    const { maxResponseSize } = request;
    // Announced over the limit: not read at all.
    if (Number(headers.get("content-length")) > maxResponseSize) {
      const size = Number(headers.get("content-length"));
      return { status, headers, error: new ResponseTooLargeError(status, headers, maxResponseSize, size, attempt.where()) };
    }
    let bytes: BodyBytes;
    try {
      bytes = await attempt.race(attempt.read(response, maxResponseSize));
    } catch (cause) {
      if (!(cause instanceof IncompleteBody)) throw cause;
      const partial = decode(cause.partial);
      const message = `${status}: the response body was cut off after ${partial.length} characters${partial ? `: ${snippet(partial)}` : ""}`;
      return {
        status,
        headers,
        bodyIncomplete: true,
        error: attempt.interrupted() ?? new APIError(status, headers, partial, message, attempt.where()),
      };
    }
    // An interruption during the body ended the race above (INTERRUPTED, reported by the catch below); one after the
    // whole body came finds its answer already read.
    // Over the limit: reading stopped there, and nothing of it is decoded.
    if (bytes.more)
      return { status, headers, error: new ResponseTooLargeError(status, headers, maxResponseSize, undefined, attempt.where()) };
    const parsed = parseSuccess(request.response, status, headers, decode(bytes), attempt);
    return "error" in parsed ? { status, headers, error: parsed.error } : { status, headers, data: parsed.data, response };
  } catch (cause) {
    const stopped = attempt.interrupted();
    if (stopped) return { error: stopped };
    // The transport made a failed fetch an APIConnectionError; the SDK's own errors (a refused redirect, a bad key)
    // pass as they are, and so does an error of the caller's middleware.
    // Stryker disable next-line ObjectLiteral,StringLiteral: not reached: an attempt ends only by its timeout, its deadline or the caller's abort, which interrupted() reports just above
    if (cause === INTERRUPTED) return { error: new OrgAgentError("The attempt ended") };
    return { status, headers, error: cause instanceof Error ? cause : new OrgAgentError(String(cause)) };
  } finally {
    attempt.end();
  }
}
