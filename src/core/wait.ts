// Waiting on asynchronous work: one poll loop behind `sessions.waitUntilIdle`, `sessions.sendMessageAndWait` and
// `computers.waitUntilActive`. Which statuses end a wait comes from the spec (`x-status-lifecycle`, emitted into
// generated/spec-tables.ts as `statusLifecycles`); this file knows no status of its own.
import { APIConnectionTimeoutError, OrgAgentError, ValidationError } from "./errors.js";
import { checkKnownKeys } from "./keys.js";
import { REQUEST_OPTION_KEYS, type RequestOptions } from "./options.js";
import { sleep } from "./timers.js";

/** Options of a wait: how often to poll, for how long, plus the usual request options for each poll. */
export interface WaitOptions<Snapshot> extends Omit<RequestOptions, "timeout"> {
  /** Milliseconds between the first and the second poll; each later pause is 1.5 times longer. Default 1,000. */
  interval?: number | undefined;
  /** Longest pause between two polls, in milliseconds. Default 5,000 (or `interval`, if that is longer). */
  maxInterval?: number | undefined;
  /** Milliseconds the whole wait may take before it rejects with WaitTimeoutError. Default 600,000; `Infinity` waits as long as it takes. */
  timeout?: number | undefined;
  /** Milliseconds one attempt of a poll may take (the request option `timeout`). Default: the client's `timeout`. */
  requestTimeout?: number | undefined;
  /** Called with every snapshot polled, the last one included. */
  onPoll?: ((snapshot: Snapshot) => void) | undefined;
}

/** A status schema's `x-status-lifecycle`. */
export interface StatusLifecycle {
  readonly transient: readonly string[];
  readonly settled: readonly string[];
  readonly failed?: readonly string[];
}

/** The wait's `timeout` passed before the resource settled. */
export class WaitTimeoutError<Snapshot = unknown> extends OrgAgentError {
  override name = "WaitTimeoutError";
  constructor(
    message: string,
    /** The last snapshot polled (undefined if no poll completed). */
    readonly snapshot: Snapshot | undefined,
    /** Milliseconds waited. */
    readonly waited: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const TIMER_SLACK_MS = 5;

/** The keys of WaitOptions: the request options and the wait's own. */
export const WAIT_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...REQUEST_OPTION_KEYS,
  "interval",
  "maxInterval",
  "requestTimeout",
  "onPoll",
]);

export const DEFAULT_WAIT = { interval: 1_000, maxInterval: 5_000, timeout: 600_000, growth: 1.5 } as const;

interface PollSpec<Snapshot> {
  /** Fetches one snapshot with the given request options. */
  poll(options: RequestOptions): Promise<Snapshot>;
  /** The status of a snapshot (undefined when the snapshot has none). */
  status(snapshot: Snapshot): string | undefined;
  lifecycle: StatusLifecycle;
  /** What is waited on, for messages: `session sess_1`. */
  what: string;
  /** The error to reject with when the snapshot's status is a failed one. */
  failure?(snapshot: Snapshot): OrgAgentError;
}

/**
 * Polls until the status is settled (resolves to that snapshot) or failed (rejects with `failure`). A transient,
 * missing or unknown status keeps the wait going until `timeout`. Pauses start at `interval` and grow by half
 * each time up to `maxInterval`. Each poll is bounded by the time left, so the wait never outlasts `timeout`.
 */
export async function pollUntilSettled<Snapshot>(spec: PollSpec<Snapshot>, options: WaitOptions<Snapshot> = {}): Promise<Snapshot> {
  const request = requestOptionsOf(options);
  const { interval, maxInterval, timeout, requestTimeout, onPoll } = options;
  const first = checkDuration("interval", interval ?? DEFAULT_WAIT.interval);
  const cap = Math.max(first, checkDuration("maxInterval", maxInterval ?? DEFAULT_WAIT.maxInterval));
  const limit = checkDuration("timeout", timeout ?? DEFAULT_WAIT.timeout, { infinite: true });
  if (requestTimeout !== undefined) checkDuration("requestTimeout", requestTimeout);
  const started = performance.now();
  const left = () => limit - (performance.now() - started);
  let pause = first;
  let last: Snapshot | undefined;
  const timedOut = (cause?: unknown) => {
    const waited = Math.round(performance.now() - started);
    const status = last === undefined ? undefined : spec.status(last);
    const state = status === undefined ? "has not settled" : `is still ${status}`;
    return new WaitTimeoutError(`${capitalize(spec.what)} ${state} after ${waited} ms.`, last, waited, { cause });
  };
  for (;;) {
    const remaining = left();
    if (remaining <= 0) throw timedOut();
    // The poll may not outlast the wait: its deadline is the time left (or the caller's own, if shorter).
    const deadline = Math.min(request.deadline ?? Infinity, remaining);
    try {
      last = await spec.poll(Number.isFinite(deadline) ? { ...request, deadline: Math.max(1, Math.ceil(deadline)) } : request);
    } catch (error) {
      // The poll's deadline was the time left: its timeout is the wait's (timers may fire a millisecond early).
      if (error instanceof APIConnectionTimeoutError && deadline === remaining && left() < TIMER_SLACK_MS) throw timedOut(error);
      throw error;
    }
    onPoll?.(last);
    // A missing status (undefined) is in no list: the wait goes on.
    const status = spec.status(last);
    if (spec.lifecycle.settled.some((settled) => settled === status)) return last;
    if (spec.lifecycle.failed?.some((failed) => failed === status)) {
      throw spec.failure?.(last) ?? new OrgAgentError(`${capitalize(spec.what)} ended ${status}.`);
    }
    const rest = left();
    if (rest <= 0) throw timedOut();
    await sleep(Math.min(pause, rest), request.signal);
    pause = Math.min(cap, pause * DEFAULT_WAIT.growth);
  }
}

/** The request options of a wait, for a call made on its behalf (e.g. the message sent before waiting). */
export function requestOptionsOf<Snapshot>(options: WaitOptions<Snapshot> = {}): RequestOptions {
  checkKnownKeys(options, WAIT_OPTION_KEYS, "options");
  const { interval, maxInterval, timeout, requestTimeout, onPoll, ...request } = options;
  // An undefined `timeout` is the client's, as when absent.
  return { ...request, timeout: requestTimeout };
}

function checkDuration(name: string, value: unknown, { infinite = false } = {}): number {
  // Above 0 and not finite is Infinity.
  const ok = typeof value === "number" && value > 0 && (infinite || Number.isFinite(value));
  if (!ok)
    throw new ValidationError(
      `options.${name}`,
      value,
      `a number of milliseconds greater than 0${infinite ? " (or Infinity)" : ""}`,
      undefined,
      { rule: "option" },
    );
  return value as number;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
