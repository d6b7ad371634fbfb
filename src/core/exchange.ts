// One attempt of an operation: one openapi-fetch call (so the client's middleware sees every attempt) whose fetch is
// the transport, then the success body read under the attempt within `maxResponseSize`, decoded once and checked
// against the spec's shape. Resolves to what came of it, never rejects: the retry loop (send.ts) decides what next.
import type { Middleware } from "openapi-fetch";
import { INTERRUPTED, cancelBody, type Attempt } from "./attempt.js";
import { IncompleteBody, decode } from "./body.js";
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

export async function exchange(config: ExchangeConfig, attempt: Attempt, request: ExchangeRequest): Promise<AttemptOutcome> {
  let status: number | undefined;
  let headers: Headers | undefined;
  try {
    const { middleware } = config;
    const init: Record<string, unknown> = {
      baseUrl: request.baseUrl,
      params: request.params,
      body: request.body,
      bodySerializer: asIs,
      parseAs: "stream",
      fetch: (built: Request | PlainRequest) => send(config.transport, attempt, built),
    };
    // Middleware sees a real Request, with the call's headers; without any, openapi-fetch builds a plain one, the
    // transport adds the call's headers and fetch builds the only Request.
    if (middleware.length) {
      init.middleware = middleware;
      init.headers = request.headers;
    } else init.Request = PlainRequest;
    const pending = config.core.request(request.method, request.path, init);
    // Without middleware every wait inside openapi-fetch is the transport's, raced already; a middleware's is raced here.
    const answer = middleware.length ? await attempt.race(pending, (late) => cancelBody(late.response)) : await pending;
    const { response } = answer;
    status = response.status;
    headers = response.headers;
    if (!response.ok) {
      // openapi-fetch read the error body the transport kept, as JSON when it parses, else as text.
      const body = answer.error === "" ? undefined : answer.error;
      return { status, headers, error: APIError.from(status, headers, body, undefined, attempt.where()) };
    }
    const { maxResponseSize } = request;
    // Announced over the limit: not read at all.
    if (Number(headers.get("content-length")) > maxResponseSize) {
      const size = Number(headers.get("content-length"));
      return { status, headers, error: new ResponseTooLargeError(status, headers, maxResponseSize, size, attempt.where()) };
    }
    let bytes;
    try {
      bytes = await attempt.race(attempt.read(response, maxResponseSize));
    } catch (cause) {
      if (!(cause instanceof IncompleteBody)) throw cause;
      const partial = decode(cause.partial);
      const message = `${status}: the response body was cut off after ${partial.length} characters${partial ? `: ${snippet(partial)}` : ""}`;
      return { status, headers, bodyIncomplete: true, error: attempt.interrupted() ?? new APIError(status, headers, partial, message, attempt.where()) };
    }
    // A cancelled stream ends quietly (done), so an interruption during the body shows only here.
    const stopped = attempt.interrupted();
    if (stopped) return { error: stopped };
    // Over the limit: reading stopped there, and nothing of it is decoded.
    if (bytes.more) return { status, headers, error: new ResponseTooLargeError(status, headers, maxResponseSize, undefined, attempt.where()) };
    const parsed = parseSuccess(request.response, status, headers, decode(bytes), () => attempt.where());
    return "error" in parsed ? { status, headers, error: parsed.error } : { status, headers, data: parsed.data, response };
  } catch (cause) {
    const stopped = attempt.interrupted();
    if (stopped) return { error: stopped };
    // The transport made a failed fetch an APIConnectionError; the SDK's own errors (a refused redirect, a bad key)
    // pass as they are, and so does an error of the caller's middleware.
    if (cause === INTERRUPTED) return { error: new OrgAgentError("The attempt ended") };
    return { status, headers, error: cause instanceof Error ? cause : new OrgAgentError(String(cause)) };
  } finally {
    attempt.end();
  }
}
