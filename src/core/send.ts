// One call = one or more attempts (exchange.ts), under the call's deadline and signal: the plugins hear of each
// attempt, the retry policy (retry.ts) decides whether a failure is repeated and after how long, and every error that
// leaves is scrubbed of the call's credentials.
// A throttle (retry.ts: the service refused the request to slow the caller down) is waited out as the rate controller
// says and sent again through it, without using up `maxRetries`: up to MAX_THROTTLES in a row for a single call, with
// no count for a bulk job's call (its deadline and signal still end it).
import { Attempt, type AttemptLimits, type CallInfo } from "./attempt.js";
import { APIConnectionTimeoutError, APIError, APIUserAbortError } from "./errors.js";
import { exchange, type AttemptOutcome, type ExchangeConfig, type ExchangeRequest } from "./exchange.js";
import { redactHeaders, type Log } from "./log.js";
import type { RequestOptions } from "./options.js";
import type { ResponseSink } from "./response.js";
import { defaultRetry, isThrottle, type AttemptInfo, type CallPolicy, type RequestPlugin, type RetryDecision } from "./retry.js";
import { scrubError } from "./scrub.js";
import { sleep } from "./timers.js";
import { withoutUserinfo } from "./urls.js";

/** The request options of a bulk job's calls: not public. */
export interface JobRequestOptions extends RequestOptions {
  /** Set by a bulk job: its call waits out every throttle (no count), and tells the job of each. */
  job?: JobHooks | undefined;
}

/** What a bulk job hears of one of its calls. */
export interface JobHooks {
  /** A throttle (a 429, or a 503 of an idempotent call) that the call waits out before it sends the request again. */
  onThrottle?: ((status: number) => void) | undefined;
  /** The request of an attempt is about to leave (its turn from the rate controller came). */
  onSend?: (() => void) | undefined;
}

/** Throttles in a row after which a single call gives up with the last one's error. */
export const MAX_THROTTLES = 10;

export interface SendConfig extends ExchangeConfig {
  readonly policy: CallPolicy;
  readonly log: Log;
  readonly plugins: readonly RequestPlugin[];
}

/** A call, as the hub hands it over: its operation and request, and what its errors and plugins are told. */
export interface Call extends CallInfo {
  readonly operationId: string;
  readonly request: ExchangeRequest;
  /** The URL of the first request, for an error before any attempt went out. */
  readonly url: () => string;
  /** The call's credentials (the client's and its own credential headers): scrubbed from its errors and log lines. */
  readonly secrets: readonly string[];
}

/** Sends `call` and resolves to its parsed body; `sink.response` is then the final attempt's Response. */
export async function send(config: SendConfig, call: Call, options: JobRequestOptions, sink: ResponseSink): Promise<unknown> {
  const { policy, log, plugins } = config;
  const maxRetries = options.maxRetries ?? policy.maxRetries;
  const timeout = options.timeout ?? policy.timeout;
  const deadline = options.deadline ?? policy.deadline;
  const idempotent = options.idempotent ?? (call.method === "GET" || call.method === "PUT");
  const signal = options.signal;
  const deadlineAt = performance.now() + (deadline ?? Infinity);
  // With no deadline it ends at Infinity: an attempt arms no timer for it, and its `ms` is never shown.
  const limits: AttemptLimits = { timeout, deadline: { ms: deadline ?? Infinity, at: deadlineAt } };
  let retries = 0;
  let throttles = 0;

  for (let number = 1; ; number++) {
    if (signal?.aborted) throw APIUserAbortError.of(signal);
    const info = infoOf(call, number, idempotent, signal);
    for (const plugin of plugins) await plugin.beforeAttempt?.(info);
    const started = performance.now();
    if (started >= deadlineAt) {
      const where = { operationId: call.operationId, method: call.method, path: call.path, url: withoutUserinfo(call.url()) };
      throw new APIConnectionTimeoutError(`Deadline of ${deadline} ms exceeded`, where, { limit: "deadline", ms: deadline! });
    }
    const attempt = new Attempt(call, number, call.url, limits, signal, started);
    attempt.secrets = call.secrets;
    attempt.baseUrl = call.request.baseUrl;
    attempt.onSend = options.job?.onSend;
    const outcome = await exchange(config, attempt, call.request);
    if (log.enabled("debug")) {
      const details = {
        status: outcome.status,
        ms: Math.round(performance.now() - started),
        ...(outcome.error ? { error: outcome.error.name } : {}),
        ...(outcome.headers ? { headers: redactHeaders(outcome.headers) } : {}),
      };
      log.write("debug", `← ${call.method} ${call.path}`, details, attempt.allSecrets());
    }
    for (const plugin of plugins) plugin.afterAttempt?.(info, outcome);
    if (!outcome.error) {
      sink.response = outcome.response;
      return outcome.data;
    }

    const secrets = attempt.allSecrets();
    const error = scrubError(outcome.error, secrets);
    const chosen = decide(info, outcome, plugins);
    const throttle = chosen ? undefined : attempt.throttle;
    if (
      throttle &&
      error instanceof APIError &&
      isThrottle(error.status, idempotent, throttle.retryAfter !== undefined, options.job !== undefined)
    ) {
      if ((throttle.retryAfter ?? 0) > policy.maxRetryAfter) {
        log.write(
          "info",
          `${call.method} ${call.path}: server asked to wait ${throttle.retryAfter} ms, over the ${policy.maxRetryAfter} ms cap`,
        );
        throw error;
      }
      if (++throttles > MAX_THROTTLES && !options.job) {
        log.write(
          "info",
          `${call.method} ${call.path} gave up after ${MAX_THROTTLES} throttles in a row: ${error.message}`,
          undefined,
          secrets,
        );
        throw error;
      }
      const wait = throttle.wait;
      if (performance.now() + wait >= deadlineAt) throw error;
      options.job?.onThrottle?.(error.status);
      log.write(
        "info",
        `${call.method} ${call.path}: ${error.message}; throttled, sending again in ${Math.round(wait)} ms`,
        { throttles },
        secrets,
      );
      // Stryker disable next-line EqualityOperator: a sleep of 0 ms ends the next turn of the event loop, with the same abort check as the loop's start
      if (wait > 0) await sleep(wait, signal);
      continue;
    }
    throttles = 0;
    const decision = chosen ?? defaultRetry(info, outcome, policy, retries);
    if (!decision.retry) {
      const overCap = (decision as { overCap?: number }).overCap;
      if (overCap !== undefined)
        log.write("info", `${call.method} ${call.path}: server asked to wait ${overCap} ms, over the ${policy.maxRetryAfter} ms cap`);
      throw error;
    }
    if (decision.counted !== false) {
      if (retries >= maxRetries) {
        log.write(
          "info",
          `${call.method} ${call.path} failed after ${number} ${number === 1 ? "attempt" : "attempts"}: ${error.message}`,
          undefined,
          secrets,
        );
        throw error;
      }
      retries++;
    }
    const delay = decision.delay ?? 0;
    if (performance.now() + delay >= deadlineAt) throw error;
    log.write(
      "info",
      `${call.method} ${call.path}: ${error.message}; retrying in ${Math.round(delay)} ms`,
      { attempt: number + 1, of: maxRetries + 1 },
      secrets,
    );
    await sleep(delay, signal);
  }
}

/** The first plugin's decision on a failed attempt, if one decides. */
function decide(info: AttemptInfo, outcome: AttemptOutcome, plugins: readonly RequestPlugin[]): RetryDecision | undefined {
  for (const plugin of plugins) {
    const decision = plugin.retry?.(info, outcome);
    if (decision) return decision;
  }
  return undefined;
}

function infoOf(call: Call, attempt: number, idempotent: boolean, signal: AbortSignal | undefined): AttemptInfo {
  return { operationId: call.operationId, method: call.method, path: call.path, origin: call.request.baseUrl, attempt, idempotent, signal };
}
