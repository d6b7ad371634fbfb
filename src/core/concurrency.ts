// How many calls a bulk job (parallel date windows of /users, chunks of setUserLimits) has in flight: at most `max`,
// fewer while the service rate-limits. A 429 halves the number allowed and holds back new calls for its Retry-After;
// successes raise it again by one every few rounds of calls (additive increase, multiplicative decrease: AIMD, as
// TCP does with its window). Calls wait in order of priority (a window's or chunk's position), so the work the caller
// needs first goes first.
import { APIUserAbortError, RateLimitError } from "./errors.js";
import { DEFAULTS } from "./options.js";
import { backoffDelay } from "./retry.js";

/** Told of each 429 answer: the wait it asked for (ms, if any) and the longest the client honours (`maxRetryAfter`). */
export type RateLimitHook = (retryAfter: number | undefined, maxRetryAfter: number) => void;

/**
 * A call of a job. It passes `options` on as request options: their `onRateLimit` tells the limiter of every 429
 * (retries included), and their `signal`, the call's own, ends it when the job is aborted. (One signal per call, not
 * the job's signal shared by all: dozens of calls listening to one signal would make Node warn of a listener leak.)
 */
export type LimitedCall<T> = (options: { signal: AbortSignal; onRateLimit: RateLimitHook }) => Promise<T>;

/**
 * Times a unit of work is sent again after its call gave up on 429s (its own retries spent). A 429 means the service
 * refused the call without acting on it, so sending it again is safe, for a write too.
 */
export const MAX_RATE_LIMITED_ROUNDS = 10;

/**
 * Rounds of successes per call added. TCP adds one per round; under a steady rate limit that probes the limit often
 * (against the emulator at 20 requests a second and 50 ms a round trip, a 429 for every two requests answered).
 * One per four rounds got the same rate with half the 429s, and still climbs from 4 back to 8 in about a second.
 */
const INCREASE_ROUNDS = 4;

interface Waiter {
  readonly priority: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class ConcurrencyLimiter {
  /** The window: how many calls may run, as a real number (it grows by fractions). */
  #window: number;
  #running = 0;
  /** performance.now() before which no call starts: the latest Retry-After heard. */
  #resumeAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by each decrease: a 429 of a call that started before it does not lower the window again. */
  #epoch = 0;
  readonly #waiting: Waiter[] = [];
  readonly #calls = new Set<AbortController>();

  constructor(
    /** The most calls at once, never exceeded. */
    readonly max: number,
    /**
     * Aborts the job: every waiting call is rejected with APIUserAbortError, every running call is aborted; the
     * signal's reason is each error's cause.
     */
    private readonly signal?: AbortSignal,
  ) {
    this.#window = max;
    // An AbortSignal aborts once: the listener runs once.
    signal?.addEventListener("abort", () => this.#abort());
  }

  /** Calls allowed at once now: from 1 to `max`. */
  get limit(): number {
    return Math.max(1, Math.floor(this.#window));
  }

  /** Calls running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Runs `call` when a place is free (lowest `priority` first), and again after a 429 it gave up on, up to
   * MAX_RATE_LIMITED_ROUNDS times, unless the service asked for a wait over the client's `maxRetryAfter`.
   * `onFailure` hears of the error `run` rejects with before its place goes to the next call: a job that stops on a
   * failure decides so before anything more is sent.
   */
  async run<T>(call: LimitedCall<T>, priority = 0, onFailure?: (error: unknown) => void): Promise<T> {
    for (let round = 1; ; round++) {
      await this.#acquire(priority);
      const epoch = this.#epoch;
      let maxRetryAfter: number = DEFAULTS.maxRetryAfter;
      let refused = false;
      const controller = new AbortController();
      this.#calls.add(controller);
      if (this.signal?.aborted) controller.abort(this.signal.reason);
      try {
        const result = await call({
          signal: controller.signal,
          onRateLimit: (retryAfter, cap) => {
            maxRetryAfter = cap;
            refused = true;
            this.#rateLimited(epoch, retryAfter, cap);
          },
        });
        // Additive increase, for each call that met no 429: one more call every INCREASE_ROUNDS rounds of `limit` calls.
        if (!refused) this.#window = Math.min(this.max, this.#window + 1 / (INCREASE_ROUNDS * this.limit));
        return result;
      } catch (error) {
        if (!(error instanceof RateLimitError) || round >= MAX_RATE_LIMITED_ROUNDS || (error.retryAfter ?? 0) > maxRetryAfter) {
          onFailure?.(error);
          throw error;
        }
        if (error.retryAfter === undefined) this.#pause(backoffDelay(round - 1, DEFAULTS.backoff));
      } finally {
        this.#calls.delete(controller);
        this.#running--;
        this.#dispatch();
      }
    }
  }

  /** Rejects every call still waiting for its turn with `reason`; calls running go on. */
  dropWaiting(reason: unknown): void {
    for (const waiter of this.#waiting.splice(0)) waiter.reject(reason);
  }

  #rateLimited(epoch: number, retryAfter: number | undefined, cap: number) {
    // Multiplicative decrease, once per round: the other 429s of calls already running say the same thing.
    if (epoch === this.#epoch) {
      this.#window = Math.max(1, this.#window / 2);
      // Stryker disable next-line UpdateOperator: the epoch is only compared for equality, so any change starts a new round
      this.#epoch++;
    }
    if (retryAfter !== undefined && retryAfter <= cap) this.#pause(retryAfter);
  }

  #pause(ms: number) {
    this.#resumeAt = Math.max(this.#resumeAt, performance.now() + ms);
  }

  #acquire(priority: number): Promise<void> {
    if (this.signal?.aborted) return Promise.reject(APIUserAbortError.of(this.signal));
    return new Promise((resolve, reject) => {
      // Sorted by priority, first come first served within one: the queue is at most a job's units long.
      let at = this.#waiting.length;
      while (at > 0 && this.#waiting[at - 1]!.priority > priority) at--;
      this.#waiting.splice(at, 0, { priority, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch() {
    const wait = this.#resumeAt - performance.now();
    if (wait > 0) {
      if (this.#waiting.length && !this.#timer) {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#dispatch();
        }, wait);
      }
      return;
    }
    while (this.#running < this.limit && this.#waiting.length) {
      this.#running++;
      this.#waiting.shift()!.resolve();
    }
  }

  #abort() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // The job's reason goes on to every call, so each one's APIUserAbortError has it as its cause.
    const reason: unknown = this.signal?.reason;
    this.dropWaiting(APIUserAbortError.of(this.signal));
    for (const call of this.#calls) call.abort(reason);
  }
}
