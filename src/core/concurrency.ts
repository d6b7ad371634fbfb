// How many requests a bulk job (the date windows of a /users export, the chunks of setUserLimits) has in flight: at
// most its `concurrency`, started in order of priority (a window's or chunk's position), so the work the caller needs
// first goes first. How fast they go is not the job's to say: every request asks the rate controller of its key and
// host for its turn (rate-controller.ts), which every job and call of that key and host share, and a throttled request
// waits inside its own call, keeping its place.
import { APIUserAbortError } from "./errors.js";

/**
 * A task of a job. Its signal, the task's own, ends it when the job is aborted: one signal per task, not the job's
 * shared by all (dozens of calls listening to one signal would make Node warn of a listener leak).
 */
export type CappedTask<T> = (signal: AbortSignal) => Promise<T>;

interface Waiter {
  readonly priority: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class InFlightCap {
  #running = 0;
  readonly #waiting: Waiter[] = [];
  readonly #tasks = new Set<AbortController>();

  constructor(
    /** The most tasks at once. */
    readonly max: number,
    /**
     * Aborts the job: every waiting task is rejected with APIUserAbortError, every running task's signal is aborted;
     * the signal's reason is each error's cause.
     */
    private readonly signal?: AbortSignal,
  ) {
    // An AbortSignal aborts once: the listener runs once.
    signal?.addEventListener("abort", () => this.#abort());
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Runs `task` when a place is free (lowest `priority` first, then in order of arrival). `onFailure` hears of the
   * error the task rejects with before its place goes to the next task: a job that stops on a failure decides so
   * before anything more is sent.
   */
  async run<T>(task: CappedTask<T>, priority = 0, onFailure?: (error: unknown) => void): Promise<T> {
    await this.#acquire(priority);
    const controller = new AbortController();
    this.#tasks.add(controller);
    if (this.signal?.aborted) controller.abort(this.signal.reason);
    try {
      return await task(controller.signal);
    } catch (error) {
      onFailure?.(error);
      throw error;
    } finally {
      this.#tasks.delete(controller);
      this.#running--;
      this.#dispatch();
    }
  }

  /** Rejects every task still waiting for its place with `reason`; tasks running go on. */
  dropWaiting(reason: unknown): void {
    for (const waiter of this.#waiting.splice(0)) waiter.reject(reason);
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

  #dispatch(): void {
    while (this.#running < this.max && this.#waiting.length) {
      this.#running++;
      this.#waiting.shift()!.resolve();
    }
  }

  #abort(): void {
    // The job's reason goes on to every task, so each one's APIUserAbortError has it as its cause.
    // Stryker disable next-line OptionalChaining: only the signal's own abort listener calls this, so it is there
    const reason: unknown = this.signal?.reason;
    this.dropWaiting(APIUserAbortError.of(this.signal));
    for (const task of this.#tasks) task.abort(reason);
  }
}
