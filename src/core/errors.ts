// Every error the SDK throws is an OrgAgentError. HTTP failures are APIError subclasses chosen by status, so
// `catch (e) { if (e instanceof RateLimitError) … }` reads like the API's own table of errors. Programs read their
// fields (`status`, `rule`, `notSent`, `code`, `limit`), never their message text.
import { readRateSignal } from "./rate-headers.js";

/** Base class of every error thrown by orgagent. */
export class OrgAgentError extends Error {
  override name = "OrgAgentError";
}

/**
 * Which rule a value broke: a JSON Schema keyword of the spec (`minimum`, `maxLength`, `pattern`, `enum`, `type`,
 * `required`…), a date bound of `x-date-range` (`earliest`, `latest`, `notBefore`), `format` (not a real calendar
 * date), `unknownKey` (a key the object does not have), or `option` (a request or client option out of its range).
 */
export type ValidationRule =
  | "required"
  | "type"
  | "enum"
  | "const"
  | "minimum"
  | "maximum"
  | "exclusiveMinimum"
  | "exclusiveMaximum"
  | "minLength"
  | "maxLength"
  | "pattern"
  | "format"
  | "minItems"
  | "maxItems"
  | "earliest"
  | "latest"
  | "notBefore"
  | "unknownKey"
  | "option";

/** Bad input caught before any request was sent. Names the field, the value and what is allowed. */
export class ValidationError extends OrgAgentError {
  override name = "ValidationError";
  /** The rule the value broke, when one rule says it (undefined for a value of no usable kind at all). */
  readonly rule: ValidationRule | undefined;
  /**
   * The bound of that rule: the number for `minimum`/`maximum`/lengths, the date for `earliest`/`latest` (`latest`
   * is yesterday's date when the spec says "yesterday"), the other field for `notBefore`, the closest known key for
   * `unknownKey`.
   */
  readonly bound: unknown;
  constructor(
    /** Dotted path of the offending field, e.g. `query.limit` or `body.users[3].email`. */
    readonly field: string,
    /** The value that was rejected (truncated in the message if long). */
    readonly value: unknown,
    /** What the field allows, e.g. `an integer from 1 to 100`. */
    readonly allowed: string,
    /** How the message shows the value; a credential passes a description instead (and `value` is then "***"). */
    shown = describeValue(value),
    broke?: { rule?: ValidationRule | undefined; bound?: unknown },
  ) {
    super(`${field}: ${shown} is not allowed; expected ${allowed}`);
    this.rule = broke?.rule;
    this.bound = broke?.bound;
  }
}

const SNIPPET_LENGTH = 200;

/**
 * Which request of which call an error came from. Every APIError and APIConnectionError thrown by a resource method
 * carries it, as fields and at the end of its message.
 */
export interface RequestContext {
  /** The spec's operationId, e.g. `getComputer`. */
  operationId: string;
  /** The operation's HTTP method. */
  method: string;
  /** The operation's path template, e.g. `/api/v0/computers/{computerId}`. */
  path: string;
  /** The URL of the last request (after redirects), without any user name or password. */
  url: string;
}

/**
 * `message` with where the request went: `… [getComputer: GET https://…/computers/cmp_1]`. The operationId names the
 * path template (also in the `path` field), so the message does not repeat it.
 */
function located(message: string, request: RequestContext | undefined): string {
  return request ? `${message} [${request.operationId}: ${request.method} ${request.url}]` : message;
}

/** The server answered with a non-success status, or with a body that cannot be the documented one. */
export class APIError extends OrgAgentError {
  override name = "APIError";
  /** Problem-details `title`, when the body has one. */
  readonly title: string | undefined;
  /** Problem-details `detail`, when the body has one. */
  readonly detail: string | undefined;
  /** `requestId` of the body, else of an `x-request-id` header: quote it to support. */
  readonly requestId: string | undefined;
  // Where the request went (RequestContext): set when there is a context, so declared, not initialized.
  /** The operationId of the call (undefined only for an error built outside a call). */
  declare readonly operationId: string | undefined;
  /** The operation's HTTP method. */
  declare readonly method: string | undefined;
  /** The operation's path template, e.g. `/api/v0/computers/{computerId}`. */
  declare readonly path: string | undefined;
  /** The URL that answered (the last one, after redirects), without credentials. */
  declare readonly url: string | undefined;

  constructor(
    readonly status: number,
    readonly headers: Headers,
    /** Parsed JSON body, or the raw text when the body was not JSON. */
    readonly body: unknown,
    message?: string,
    request?: RequestContext,
  ) {
    const problem = isRecord(body) ? body : {};
    const title = typeof problem.title === "string" ? problem.title : undefined;
    const detail = typeof problem.detail === "string" ? problem.detail : undefined;
    const requestId = requestIdOf(body, headers);
    super(located(message ?? APIError.describe(status, title, detail, body, requestId), request));
    this.title = title;
    this.detail = detail;
    this.requestId = requestId;
    Object.assign(this, request);
  }

  private static describe(status: number, title?: string, detail?: string, body?: unknown, requestId?: string) {
    let text = `${status}`;
    if (title) text += ` ${title}`;
    if (detail) text += `: ${detail}`;
    else if (typeof body === "string" && body.length) text += `: ${snippet(body)}`;
    if (requestId) text += ` (request ${requestId})`;
    return text;
  }

  /** The subclass for a status: BadRequestError for 400, RateLimitError for 429, and so on. */
  static from(status: number, headers: Headers, body: unknown, message?: string, request?: RequestContext): APIError {
    const ErrorClass = STATUS_ERRORS[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new ErrorClass(status, headers, body, message, request);
  }
}

export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
export class ConflictError extends APIError {
  override name = "ConflictError";
}
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** How long the server asked to wait, in milliseconds, from `Retry-After` or `retry-after-ms`. */
  readonly retryAfter: number | undefined = readRateSignal(this.headers).retryAfter?.ms;
}
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

const STATUS_ERRORS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * A success body larger than `maxResponseSize`: reading stopped there and the connection was closed. Never retried
 * (the same request would bring the same body); raise the option for that call if the answer is expected.
 */
export class ResponseTooLargeError extends APIError {
  override name = "ResponseTooLargeError";
  constructor(
    status: number,
    headers: Headers,
    /** The `maxResponseSize` in force, in bytes. */
    readonly limit: number,
    /** The size the server announced in Content-Length, when it did. */
    readonly size: number | undefined,
    request?: RequestContext,
  ) {
    super(
      status,
      headers,
      undefined,
      `${status}: the response body is ${size === undefined ? `over ${bytes(limit)}` : bytes(size)}, more than maxResponseSize (${bytes(limit)}); reading stopped. Raise maxResponseSize for this call if such an answer is expected.`,
      request,
    );
  }
}

/** A redirect the SDK does not follow: a loop, too many, a bad Location, or a write sent on to another origin. */
export class RedirectError extends APIError {
  override name = "RedirectError";
}

/** The `apiKey` function threw, or returned no usable key; the original error, if any, is the `cause`. */
export class APIKeyFunctionError extends OrgAgentError {
  override name = "APIKeyFunctionError";
}

/** The request did not get an HTTP response: DNS, refused or reset connection, TLS. */
export class APIConnectionError extends OrgAgentError {
  override name = "APIConnectionError";
  /** The connection failed before the request could have reached the server (refused, DNS): nothing was applied. */
  readonly notSent: boolean;
  /**
   * The system error code of the failure, when the runtime gave one: `ECONNREFUSED` (nothing listens there),
   * `ENOTFOUND` (no such host), `ECONNRESET`, `UND_ERR_CONNECT_TIMEOUT`…
   */
  readonly code: string | undefined;
  /** The operationId of the call (undefined only for an error built outside a call). */
  declare readonly operationId: string | undefined;
  /** The operation's HTTP method. */
  declare readonly method: string | undefined;
  /** The operation's path template, e.g. `/api/v0/computers/{computerId}`. */
  declare readonly path: string | undefined;
  /** The URL the request was sent to (the last one, after redirects), without credentials. */
  declare readonly url: string | undefined;
  constructor(
    message = "Connection error",
    options?: { cause?: unknown; notSent?: boolean; code?: string | undefined; request?: RequestContext | undefined },
  ) {
    super(located(message, options?.request), options);
    this.notSent = options?.notSent ?? false;
    this.code = options?.code;
    Object.assign(this, options?.request);
  }
}

/** An attempt took longer than `timeout`, or the whole call longer than `deadline`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = "APIConnectionTimeoutError";
  /** Which limit ran out: one attempt's `timeout`, or the whole call's `deadline`. */
  readonly limit: "timeout" | "deadline";
  /** That limit, in milliseconds. */
  readonly ms: number | undefined;
  constructor(message = "Request timed out", request?: RequestContext, limit?: { limit: "timeout" | "deadline"; ms: number }) {
    super(message, { request });
    this.limit = limit?.limit ?? "timeout";
    this.ms = limit?.ms;
  }
}

/**
 * The caller's `signal` aborted the call. `cause` is the signal's reason: a `TimeoutError` DOMException when the
 * signal came from `AbortSignal.timeout()`, an `AbortError` for a plain `controller.abort()`, or whatever reason
 * was passed to `abort(reason)`.
 */
export class APIUserAbortError extends OrgAgentError {
  override name = "APIUserAbortError";
  constructor(message = "Request was aborted", options?: { cause?: unknown }) {
    super(message, options);
  }

  /** The error for an aborted `signal`, its reason as the cause; says so when the signal timed out. */
  static of(signal: AbortSignal | undefined): APIUserAbortError {
    const reason: unknown = signal?.reason;
    // Stryker disable next-line OptionalChaining: an aborted signal always has a reason (abort() without one gives an AbortError)
    const timedOut = (reason as { name?: unknown } | undefined)?.name === "TimeoutError";
    return new APIUserAbortError(timedOut ? "Request was aborted: its signal timed out (AbortSignal.timeout)" : "Request was aborted", {
      cause: reason,
    });
  }
}

/** The request id of a response: the body's `requestId`, else the `x-request-id` header. */
export function requestIdOf(body: unknown, headers: Headers): string | undefined {
  const fromBody = isRecord(body) ? body.requestId : undefined;
  return typeof fromBody === "string" ? fromBody : (headers.get("x-request-id") ?? undefined);
}

export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SNIPPET_LENGTH ? `${flat.slice(0, SNIPPET_LENGTH)}…` : flat;
}

function bytes(n: number): string {
  return `${n.toLocaleString("en-US")} bytes`;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "a missing value";
  if (typeof value === "number") return String(value); // JSON would show NaN and Infinity as null
  let text: string;
  try {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a string stringifies to JSON either way
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    // Nested too deep to show (JSON.parse reads what JSON.stringify cannot write back), or not JSON at all: what it
    // is. String() of such an array would overflow the stack too.
    // Stryker disable next-line ConditionalExpression: null never gets here (JSON.stringify(null) is "null"), so `value !== null` holds for every object that does
    text = Array.isArray(value) ? "an array" : typeof value === "object" && value !== null ? "an object" : String(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
