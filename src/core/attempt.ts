// One attempt's lifetime: it owns an AbortController that fetch follows. The attempt's timeout, the caller's signal
// and any early end (an error body read as far as it is kept, a body over its limit, any error) abort it, which closes
// the connection at once and cancels a body being read. Every wait is raced against that end, so even a fetch (or an
// apiKey function, or a middleware) that ignores its signal cannot hold the call past its time, and a late answer is
// let go without an unhandled rejection. Only a body read to its end leaves the connection to the runtime's pool.
// A wait for the rate controller's turn (transport.ts) is not part of the attempt's timeout: only the call's deadline
// and the caller's signal end it, so a request held back never times out as if the service were slow.
import { readBytes, type BodyBytes } from "./body.js";
import { APIConnectionTimeoutError, APIUserAbortError, type RequestContext } from "./errors.js";
import type { Throttle } from "./rate-controller.js";
import { MAX_TIMER } from "./timers.js";
import { withoutUserinfo } from "./urls.js";

/** The call an attempt belongs to, for its errors and log lines. */
export interface CallInfo {
  /** The spec's operationId; undefined for a `client.raw` call to a path the spec does not have. */
  readonly operationId: string | undefined;
  readonly method: string;
  /** The operation's path template. */
  readonly path: string;
  /** The parameters, for the debug line of each attempt. */
  readonly params?: unknown;
  /** The call's headers (the client's and its own), when the transport builds the request from them. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** The limits an attempt runs under: its own `timeout`, and the call's `deadline` when it has one. */
export interface AttemptLimits {
  /** Milliseconds the attempt may take (not counting a wait for its turn to send). */
  readonly timeout: number;
  /** The call's deadline: its whole length (for the message) and when it ends (performance.now()). */
  readonly deadline?: { readonly ms: number; readonly at: number } | undefined;
}

const ignore = () => {};
/** Why a wait was cut short: the attempt ended (its error comes from `interrupted()`). */
export const INTERRUPTED = Symbol("interrupted");
/** The timer of every attempt: one function, not a closure per attempt. */
const timeUp = (attempt: Attempt) => attempt.timeUp();

export class Attempt {
  readonly #controller = new AbortController();
  /** The URL of the request in flight (a redirect's target once followed), once the transport sends it. */
  url: string | undefined;
  /** The call's credentials (its credential headers): never shown, with the key. */
  // Stryker disable next-line ArrayDeclaration: every attempt is given its call's secrets before it sends
  secrets: readonly string[] = [];
  /** The key the transport sent, once it has it. */
  key: string | undefined;
  /** The base URL of the host the call goes to: its rate controller's (transport.ts). */
  baseUrl: string | undefined;
  /** What the host's rate controller made of a refusal (a 429, a 503): the wait before the call may go again. */
  throttle: Throttle | undefined;
  /** Told just before the attempt's request leaves (after its turn from the rate controller). */
  onSend: (() => void) | undefined;
  #timedOut: "timeout" | "deadline" | undefined;
  /** When the attempt's timeout ends (performance.now()), moved on by a wait for its turn. */
  #timeoutAt: number;
  #ended = false;
  /** Whether the last response's body was read to its end (or had none): then its connection is free. */
  #complete = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The waits in progress (at most a couple at once), each ended when the attempt is. */
  readonly #waits: Array<(reason: unknown) => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Which limit the timer is for. */
  // Stryker disable next-line StringLiteral: the constructor's #arm() sets it before anything reads it
  #timerFor: "timeout" | "deadline" = "timeout";
  /** Ends the attempt early; a listener of the caller's signal, made only when there is one. */
  readonly #release: (() => void) | undefined;

  constructor(
    readonly call: CallInfo,
    /** 1 for the first attempt of a call. */
    readonly number: number,
    /** The URL of the call's first request, where an error says it went before any request was sent. */
    private readonly urlOf: () => string,
    private readonly limits: AttemptLimits,
    /** The caller's signal: its abort ends the attempt with APIUserAbortError. */
    private readonly signal: AbortSignal | undefined,
    now: number = performance.now(),
  ) {
    if (signal) {
      this.#release = () => this.#end();
      signal.addEventListener("abort", this.#release);
    }
    this.#timeoutAt = now + limits.timeout;
    this.#arm(now, true);
    // A signal aborted already (before a raw call, or during a plugin's wait) fires no event: nothing may be sent.
    if (signal?.aborted) this.#end();
  }

  /** Starts the timer of the limit that ends first (only the deadline's while `withTimeout` is false). */
  #arm(now: number, withTimeout: boolean): void {
    const deadlineAt = this.limits.deadline?.at ?? Infinity;
    const timeoutAt = withTimeout ? this.#timeoutAt : Infinity;
    this.#timerFor = deadlineAt < timeoutAt ? "deadline" : "timeout";
    const at = Math.min(deadlineAt, timeoutAt);
    this.#timer = at === Infinity ? undefined : setTimeout(timeUp, Math.min(Math.max(0, at - now), MAX_TIMER), this);
  }

  /** The attempt's time is up (its timer's callback). */
  timeUp(): void {
    this.#timedOut = this.#timerFor;
    this.#end();
  }

  /**
   * `turn` (a wait for the rate controller's permit, which the attempt's end must let go of: `abandon`), with the
   * attempt's timeout stopped while it lasts: the call's deadline and the caller's signal still end it.
   */
  async awaitTurn<T>(turn: Promise<T>, abandon: (late: T) => void): Promise<T> {
    const from = performance.now();
    clearTimeout(this.#timer);
    this.#arm(from, false);
    try {
      return await this.race(turn, abandon);
    } finally {
      if (!this.#ended) {
        clearTimeout(this.#timer);
        const now = performance.now();
        this.#timeoutAt += now - from;
        this.#arm(now, true);
      }
    }
  }

  #end(): void {
    this.#ended = true;
    this.#controller.abort();
    for (const stop of this.#waits.splice(0)) stop(INTERRUPTED);
    this.#reader?.cancel().catch(ignore);
  }

  /** The signal fetch follows: aborted when the attempt ends early. */
  get abortSignal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the attempt was ended (by its timeout, the caller's signal or an early end). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Everything the attempt must never show: the call's credentials and the key it sent. */
  allSecrets(): readonly string[] {
    return this.key === undefined ? this.secrets : [...this.secrets, this.key];
  }

  /** The operation and the URL in flight, for an error (undefined for a path the spec does not have). */
  where(): RequestContext | undefined {
    const { operationId, method, path } = this.call;
    return operationId === undefined ? undefined : { operationId, method, path, url: withoutUserinfo(this.url ?? this.urlOf()) };
  }

  /** The error of an interruption, or undefined: the caller's abort wins over a timeout that fired too. */
  interrupted(): Error | undefined {
    if (this.signal?.aborted) return APIUserAbortError.of(this.signal);
    if (!this.#timedOut) return undefined;
    const limit = this.#timedOut;
    const ms = limit === "deadline" ? this.limits.deadline!.ms : this.limits.timeout;
    const message = limit === "deadline" ? `Deadline of ${ms} ms exceeded` : `Request timed out after ${ms} ms`;
    return new APIConnectionTimeoutError(message, this.where(), { limit, ms });
  }

  /** `pending`, unless the attempt ends first (then rejects with INTERRUPTED); a late result goes to `abandon`. */
  race<T>(pending: Promise<T>, abandon: (late: T) => void = ignore): Promise<T> {
    if (this.ended) {
      pending.then(abandon, ignore).catch(ignore);
      return Promise.reject(INTERRUPTED);
    }
    return new Promise<T>((resolve, reject) => {
      const stop = (reason: unknown) => {
        reject(reason);
        // Letting go of a late answer never fails the program, whatever a caller's fetch resolved to.
        pending.then(abandon, ignore).catch(ignore);
      };
      const waits = this.#waits;
      waits.push(stop);
      const done = () => {
        const at = waits.indexOf(stop);
        if (at !== -1) waits.splice(at, 1);
      };
      pending.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  /** A response arrived: until its body is read to the end, ending the attempt closes its connection. */
  received(): void {
    this.#complete = false;
  }

  /** At most `limit` bytes of `response`'s body (`more` says that more was coming), read under the attempt. */
  async read(response: Response, limit: number): Promise<BodyBytes> {
    const body = response.body;
    this.#complete = !body;
    if (!body) return { chunks: [], size: 0, more: false };
    const reader = (this.#reader = body.getReader());
    const bytes = await readBytes(reader, limit);
    this.#complete = !bytes.more;
    // Nothing reads the rest: cancelling it closes the connection now.
    if (bytes.more) reader.cancel().catch(ignore);
    return bytes;
  }

  /** Ends the attempt: its timer and listener go; a connection whose body was not read to its end is closed. */
  end(): void {
    clearTimeout(this.#timer);
    if (this.#release) this.signal!.removeEventListener("abort", this.#release);
    if (!this.#complete) this.#end();
  }
}

/** Releases the connection of an answer nobody waits for any more, whatever a caller's fetch resolved to. */
export function cancelBody(late: unknown): void {
  try {
    // Stryker disable next-line OptionalChaining: a null answer or a null body throws here, and the catch lets it go as it does anything not a Response
    void (late as { body?: ReadableStream | null } | null)?.body?.cancel().catch(ignore);
  } catch {
    // not a Response: nothing to release
  }
}
