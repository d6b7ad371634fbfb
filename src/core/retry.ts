// Which failed attempts are repeated, and after how long: the default retry policy, and the plugins that may go
// before it (Octokit's retry and throttling plugins are the model). A plugin hears of every attempt (before it leaves,
// after its answer) and may decide a failure's retry itself; what no plugin decides, the default policy does.
import { APIConnectionError, APIError } from "./errors.js";
import { readRateSignal } from "./rate-headers.js";

/** The client's defaults for every call; a call's own options override them. */
export interface CallPolicy {
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

/** One attempt of a call, as a plugin sees it. */
export interface AttemptInfo {
  /** The spec's operationId. */
  readonly operationId: string;
  readonly method: string;
  /** The operation's path template. */
  readonly path: string;
  /** The host the call goes to (its origin), e.g. `https://api.example.com`: a rate limit is per key and host. */
  readonly origin: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Whether repeating the call cannot apply a write twice (a read, the limits PUT, or `idempotent: true`). */
  readonly idempotent: boolean;
  /** Aborted when the caller aborts; a plugin's wait must end with it. */
  readonly signal: AbortSignal | undefined;
}

/** What came of an attempt: the answer's status and headers (when one came), and the error if it failed. */
export interface AttemptResult {
  readonly status?: number | undefined;
  readonly headers?: Headers | undefined;
  readonly error?: Error | undefined;
  /** The status line arrived but the body was cut off. */
  readonly bodyIncomplete?: boolean | undefined;
}

/**
 * Whether a failed attempt is repeated. `delay` is the wait before the next attempt (default: the policy's backoff or
 * Retry-After); `counted: false` leaves `maxRetries` untouched (a throttle the server asked to wait out).
 */
export type RetryDecision =
  | { readonly retry: false }
  | { readonly retry: true; readonly delay?: number | undefined; readonly counted?: boolean | undefined };

/**
 * A plugin of the request hub. `beforeAttempt` runs before every attempt, the first and each retry (a rate controller
 * waits there for its turn; rejecting ends the call with that error); `afterAttempt` hears of every answer and
 * failure; `retry` decides a failure's retry, or returns undefined to leave it to the next plugin and finally to the
 * default policy.
 */
export interface RequestPlugin {
  beforeAttempt?(attempt: AttemptInfo): void | Promise<void>;
  afterAttempt?(attempt: AttemptInfo, result: AttemptResult): void;
  retry?(attempt: AttemptInfo, result: AttemptResult): RetryDecision | undefined;
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Whether a failed attempt may be repeated without risking a second write. */
export function isRetryable(result: AttemptResult, idempotent: boolean): boolean {
  const { error } = result;
  // A cut-off body means the server received and answered the request.
  if (result.bodyIncomplete) return idempotent;
  // 429 means the server refused the request before acting on it, so even a write may repeat it.
  if (error instanceof APIError) return RETRYABLE_STATUS(error.status) && (idempotent || error.status === 429);
  // Includes per-attempt timeouts: the request may have been received, so only a connection that never
  // carried it lets a write go again.
  if (error instanceof APIConnectionError) return idempotent || error.notSent;
  // Aborts, and our own errors (a bad key from the apiKey function…): repeating cannot help.
  return false;
}

/**
 * Whether a refusal is a throttle: the service slowing the caller down, waited out as its rate controller says and
 * sent again without using up `maxRetries` (send.ts). A 429 always: the service refused the request before acting on
 * it, so even a write may go again. A 503 of an idempotent call when the service said when to come back (`Retry-After`,
 * `retry-after-ms`), which is how an overloaded service sheds load, or when the call is a bulk job's, which waits out
 * an overload. A bare 503 of a single call is a server failure like a 500: retried within `maxRetries`, so a service
 * that is down is reported within seconds.
 */
export function isThrottle(status: number, idempotent: boolean, toldWhen: boolean, job: boolean): boolean {
  return status === 429 || (status === 503 && idempotent && (toldWhen || job));
}

/** The wait before retry number `retry` (0 for the first): exponential, capped, jittered down by up to a quarter. */
export function backoffDelay(retry: number, backoff: { initial: number; max: number }): number {
  const base = Math.min(backoff.max, backoff.initial * 2 ** retry);
  return base * (1 - 0.25 * Math.random());
}

/**
 * The default policy: a retryable failure is repeated after the server's Retry-After (`retry-after-ms`, seconds or a
 * date), else after the backoff; never when the wait asked for is over `maxRetryAfter`. `retries` is the number of
 * counted retries so far.
 */
export function defaultRetry(
  info: AttemptInfo,
  result: AttemptResult,
  policy: CallPolicy,
  retries: number,
): RetryDecision & { overCap?: number | undefined } {
  if (!isRetryable(result, info.idempotent)) return { retry: false };
  const error = result.error;
  const retryAfter = error instanceof APIError ? readRateSignal(error.headers).retryAfter?.ms : undefined;
  // No wait asked for counts as none: maxRetryAfter is 0 or more.
  if ((retryAfter ?? 0) > policy.maxRetryAfter) return { retry: false, overCap: retryAfter };
  return { retry: true, delay: retryAfter ?? backoffDelay(retries, policy.backoff), counted: true };
}
