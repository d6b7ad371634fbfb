// When a request to a rate-limited service may start: one controller per API key and host, shared by every call and
// job of the process that uses them, so together they go at the rate the service allows instead of fighting for it.
// It reads the service, not only its refusals:
// - a quota (`X-RateLimit-*`, `RateLimit`): the requests left before the reset are the budget; the first half of a
//   window's quota goes as fast as it is asked for, the rest is spread up to the reset, and none goes before the reset
//   once the budget is spent;
// - a refusal (429, or 503: a service shedding load): once per round of requests, the rate requests were going at
//   becomes the ceiling, and the pace drops to 70 % of it, never under 90 % of what the service accepted in the last
//   second; it climbs back to the ceiling within about a second, then probes above it by 5 % a second, while the pace
//   is what holds requests back (the rate is learned from the service, as TCP's CUBIC learns a path's);
// - `Retry-After`: only its certain part holds everything. `Retry-After: 1` (whole seconds, rounded up) says the wait
//   is under a second: the refused request goes again at its turn of the pace, not a second later, while a wait of 30
//   holds every request for 29 s. `retry-after-ms` is exact;
// - no hint at all: refusals in a row with nothing accepted between them hold everything for a growing backoff, so a
//   service that says nothing is not flooded (never past the time a `Retry-After` said requests may go again).
// The controller paces the starts of requests; how many a job has in flight is the job's own cap.
import { APIUserAbortError } from "./errors.js";
import { readRateSignal, type QuotaSignal } from "./rate-headers.js";

/** A request's passage through the controller: tell it how the request ended, once. */
export interface RatePermit {
  /**
   * The answer to the request, whatever its status. For a refusal (429, or 503) returns the throttle: how long this
   * request waits before it acquires again; for anything else, undefined.
   */
  observe(status: number, headers: Headers): Throttle | undefined;
  /** The request got no answer (a connection error, a timeout, an abort). */
  release(): void;
}

/** What a refusal means for the refused request. */
export interface Throttle {
  /** Milliseconds the request waits before it acquires again (the certain part of what the service asked for). */
  readonly wait: number;
  /** The wait the service asked for (`Retry-After`, `retry-after-ms`), in ms, as told; undefined when it said none. */
  readonly retryAfter: number | undefined;
}

export interface AcquireOptions {
  /** Ends the wait with APIUserAbortError. */
  signal?: AbortSignal | undefined;
  /** A request sent again after a refusal: it goes before requests that have not been sent yet. */
  retry?: boolean | undefined;
}

/** What a controller has seen and decided so far. */
export interface RateControllerState {
  /** Requests a second it paces starts at (Infinity: no pace). */
  readonly rate: number;
  /** Requests started and not answered yet. */
  readonly inFlight: number;
  /** Requests waiting for their turn. */
  readonly waiting: number;
  readonly started: number;
  /** Answers that were not refusals. */
  readonly accepted: number;
  /** Refusals: 429s and 503s. */
  readonly refused: number;
  /** Requests that could not start at once: they waited for the pace, the quota or a hold. */
  readonly delayed: number;
}

/** Paces the requests of one API key to one host. */
export interface RateController {
  /** Resolves when a request may start. */
  acquire(options?: AcquireOptions): Promise<RatePermit>;
  readonly state: RateControllerState;
}

/** A refusal lowers the pace to this share of the rate it came at (the ceiling). */
const DECREASE = 0.7;
/** Below the ceiling the pace closes its gap to it with this time constant (ms): most of the way in a second. */
const REGROWTH_MS = 500;
/** At or over the ceiling the pace grows by this share a second: it probes whether the service allows more. */
const PROBE = 0.05;
/** A refusal never lowers the pace under this share of what the service accepted in the last second. */
const UNDER_ACCEPTED = 0.9;
/** Starts and accepted answers remembered, to measure the rate of each over the last second. */
const RECENT_KEPT = 64;
const RECENT_MS = 1_000;
/** The slowest pace: one request every 20 s. */
const MIN_RATE = 0.05;
/** Refusals in a row with nothing accepted: everything waits this long, doubling, jittered down by up to a quarter. */
const BACKOFF = { initial: 250, max: 8_000 };
// setTimeout fires at once for longer delays (with a warning).
const MAX_TIMER = 2 ** 31 - 1;

interface Waiter {
  readonly retry: boolean;
  readonly since: number;
  readonly resolve: (permit: RatePermit) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** The quota as last told, with the request it was told for. */
interface Quota {
  readonly limit: number | undefined;
  readonly remaining: number;
  /** The `seq` of the request whose answer told it: requests started after it are not counted in `remaining`. */
  readonly seq: number;
  /** When it resets (performance.now()): at the latest, and at the earliest (they differ when it was rounded). */
  readonly resetBy: number | undefined;
  readonly resetFrom: number | undefined;
}

export class AdaptiveRateController implements RateController {
  #rate = Infinity;
  #seq = 0;
  #inFlight = 0;
  #accepted = 0;
  #refused = 0;
  #delayed = 0;
  #lastStart = -Infinity;
  /** Whether the pace is the latest of the gates, and whether it was when requests were last held back. */
  #paceBinds = false;
  #heldByPace = false;
  /** No request starts before this (performance.now()). */
  #holdUntil = 0;
  #quota: Quota | undefined;
  /** Requests started by the last decrease: a refusal of one of them is the same round, not a new one. */
  #roundSeq = 0;
  /** The rate of the last refusal. */
  #ceiling = Infinity;
  #grownAt = 0;
  /** Accepted answers when the last decrease was made, and how many rounds in a row had none between them. */
  #acceptedAtRound = -1;
  #emptyRounds = 0;
  /** The earliest time by which a refusal since the last accepted answer said requests go again (its Retry-After). */
  #promisedBy = Infinity;
  /** The times of the last starts and accepted answers, rings. */
  readonly #startTimes = new Float64Array(RECENT_KEPT);
  readonly #acceptTimes = new Float64Array(RECENT_KEPT);
  #firstStart = -1;
  readonly #waiting: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  get state(): RateControllerState {
    return {
      rate: this.#rate,
      inFlight: this.#inFlight,
      waiting: this.#waiting.length,
      started: this.#seq,
      accepted: this.#accepted,
      refused: this.#refused,
      delayed: this.#delayed,
    };
  }

  /** Nothing in flight or waiting: the controller can be let go of. */
  get idle(): boolean {
    return this.#inFlight === 0 && this.#waiting.length === 0;
  }

  acquire({ signal, retry = false }: AcquireOptions = {}): Promise<RatePermit> {
    if (signal?.aborted) return Promise.reject(APIUserAbortError.of(signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        retry,
        since: this.now(),
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.#waiting.indexOf(waiter);
          if (at >= 0) this.#waiting.splice(at, 1);
          reject(APIUserAbortError.of(signal));
          this.#dispatch();
        },
      };
      // Requests sent again go first (in their order), then the others in theirs.
      let at = this.#waiting.length;
      if (retry) while (at > 0 && !this.#waiting[at - 1]!.retry) at--;
      this.#waiting.splice(at, 0, waiter);
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#dispatch();
    });
  }

  /** The earliest a request may start, as of `t`: the latest of the hold, the quota's turn and the pace's. */
  #gate(t: number): number {
    const pace = Number.isFinite(this.#rate) ? this.#lastStart + 1000 / this.#rate : -Infinity;
    const other = Math.max(this.#holdUntil, this.#quotaGate(t));
    this.#paceBinds = pace > other;
    return Math.max(other, pace);
  }

  #quotaGate(t: number): number {
    const quota = this.#quota;
    if (!quota) return -Infinity;
    // Past the latest reset the budget is unknown again: the next answer tells it.
    if (quota.resetBy !== undefined && t >= quota.resetBy) {
      this.#quota = undefined;
      return -Infinity;
    }
    const budget = quota.remaining - (this.#seq - quota.seq);
    if (budget <= 0) {
      if (quota.resetFrom !== undefined) return quota.resetFrom;
      // No reset told, so how fast the quota comes back is not known (a sliding window frees it one request at a
      // time): a pace learned from refusals governs. Without one, the next answer tells the budget; with none in
      // flight, one request goes to ask.
      if (Number.isFinite(this.#rate)) return -Infinity;
      return this.#inFlight > 0 ? Infinity : -Infinity;
    }
    // The first half of a window's quota goes as fast as asked; the rest is spread evenly up to the reset.
    if (quota.limit !== undefined && quota.resetBy !== undefined && budget < quota.limit / 2) {
      const resetAt = quota.resetFrom === undefined ? quota.resetBy : (quota.resetFrom + quota.resetBy) / 2;
      return (budget * this.#lastStart + resetAt) / (budget + 1);
    }
    return -Infinity;
  }

  #dispatch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#waiting.length) {
      const t = this.now();
      const gate = this.#gate(t);
      if (gate > t) {
        this.#heldByPace = this.#paceBinds;
        // An infinite gate waits for an answer, which dispatches again.
        if (Number.isFinite(gate)) this.#timer = setTimeout(() => this.#dispatch(), Math.min(Math.ceil(gate - t), MAX_TIMER));
        return;
      }
      const waiter = this.#waiting.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      const held = waiter.since < t - 1;
      if (held) this.#delayed++;
      // Held back by the pace (not by a hold or the quota): the pace may grow.
      waiter.resolve(this.#start(t, held && this.#heldByPace));
    }
  }

  #start(t: number, paced: boolean): RatePermit {
    const seq = ++this.#seq;
    this.#inFlight++;
    this.#lastStart = t;
    this.#startTimes[(seq - 1) % RECENT_KEPT] = t;
    if (this.#firstStart < 0) this.#firstStart = t;
    let done = false;
    const end = () => {
      if (done) return false;
      done = true;
      this.#inFlight--;
      return true;
    };
    return {
      observe: (status, headers) => {
        if (!end()) return undefined;
        const throttle = this.#observe(seq, paced, status, headers);
        this.#dispatch();
        return throttle;
      },
      release: () => {
        if (end()) this.#dispatch();
      },
    };
  }

  #observe(seq: number, paced: boolean, status: number, headers: Headers): Throttle | undefined {
    const t = this.now();
    const signal = readRateSignal(headers);
    if (signal.quota) this.#learnQuota(seq, t, signal.quota);
    if (status !== 429 && status !== 503) {
      this.#acceptTimes[this.#accepted % RECENT_KEPT] = t;
      this.#accepted++;
      this.#promisedBy = Infinity;
      // The pace grows while it is what holds requests back, and no refusal came since this request started.
      if (paced && seq > this.#roundSeq && Number.isFinite(this.#rate)) this.#grow(t);
      return undefined;
    }

    this.#refused++;
    const told = signal.retryAfter;
    if (told) this.#promisedBy = Math.min(this.#promisedBy, t + told.ms);
    if (seq > this.#roundSeq) this.#decrease(t);
    // Only the certain part of the wait holds: `Retry-After: 1` (rounded up) may mean 50 ms.
    const wait = told ? Math.max(0, told.ms - told.precision) : 0;
    if (wait > 0) this.#holdUntil = Math.max(this.#holdUntil, t + wait);
    return { wait, retryAfter: told?.ms };
  }

  /**
   * Once per round of requests: the rate they were going at becomes the ceiling, and the pace drops under it. A round
   * with nothing accepted since the last one says the service accepts nothing now, which is no rate: the pace stays,
   * and everything waits, longer each time (a service that says nothing is not flooded).
   */
  #decrease(t: number): void {
    this.#roundSeq = this.#seq;
    this.#emptyRounds = this.#accepted === this.#acceptedAtRound ? this.#emptyRounds + 1 : 0;
    this.#acceptedAtRound = this.#accepted;
    if (this.#emptyRounds > 0) {
      // Never past the time a refusal said requests may go again.
      const backoff = Math.min(BACKOFF.max, BACKOFF.initial * 2 ** (this.#emptyRounds - 1)) * (1 - 0.25 * Math.random());
      this.#holdUntil = Math.max(this.#holdUntil, Math.min(t + backoff, this.#promisedBy));
      return;
    }
    // The rate requests went at: the pace, or fewer when the calls asked for less.
    const going = Math.min(this.#rate, recentRate(this.#startTimes, this.#seq, t, this.#firstStart));
    this.#ceiling = Math.max(MIN_RATE, going);
    const accepted = recentRate(this.#acceptTimes, this.#accepted, t, this.#firstStart);
    this.#rate = Math.max(MIN_RATE, Math.min(this.#ceiling, Math.max(DECREASE * this.#ceiling, UNDER_ACCEPTED * accepted)));
    this.#grownAt = t;
  }

  /** Back to the ceiling within about a second, then above it by PROBE a second. */
  #grow(t: number): void {
    const seconds = Math.min(1, (t - this.#grownAt) / 1000);
    this.#grownAt = t;
    if (this.#rate < this.#ceiling) this.#rate = this.#ceiling - (this.#ceiling - this.#rate) * Math.exp((-seconds * 1000) / REGROWTH_MS);
    else this.#rate += PROBE * this.#rate * seconds;
  }

  /**
   * Takes in a quota as told by the answer to request `seq`: a later request's answer, or one that leaves less,
   * replaces what was known. When both are of the same window, their reset times narrow each other down.
   */
  #learnQuota(seq: number, t: number, told: QuotaSignal): void {
    const resetBy = told.resetIn === undefined ? undefined : t + told.resetIn;
    const resetFrom = resetBy === undefined ? undefined : resetBy - told.precision;
    const next: Quota = { limit: told.limit, remaining: told.remaining, seq, resetBy, resetFrom };
    const known = this.#quota;
    if (!known) return void (this.#quota = next);
    const budget = (quota: Quota) => quota.remaining - (this.#seq - quota.seq);
    if (seq < known.seq && budget(next) >= budget(known)) return; // an earlier request's answer, told before
    const sameWindow =
      budget(next) <= budget(known) &&
      known.resetBy !== undefined &&
      resetBy !== undefined &&
      resetFrom! < known.resetBy &&
      known.resetFrom! < resetBy;
    this.#quota = sameWindow
      ? { ...next, resetBy: Math.min(resetBy!, known.resetBy!), resetFrom: Math.max(resetFrom!, known.resetFrom!) }
      : next;
  }
}

// One controller per API key and host in the process. The key is never kept: the registry holds a digest of it (with
// a salt of this process), and no controller knows its key.
const registry = new Map<string, AdaptiveRateController>();
/** Controllers kept when nothing uses them, the least recently used let go first. Busy ones are always kept. */
const IDLE_KEPT = 64;
const SALT = Math.floor(Math.random() * 2 ** 32);

/** The controller of requests with `credential` to `origin` (scheme, host and port). */
export function rateControllerFor(credential: string, origin: string): RateController {
  const id = `${digest(credential)}@${origin}`;
  let controller = registry.get(id);
  if (controller) registry.delete(id);
  else controller = new AdaptiveRateController();
  registry.set(id, controller); // most recently used last
  if (registry.size > IDLE_KEPT) {
    for (const [key, kept] of registry) {
      if (registry.size <= IDLE_KEPT) break;
      if (kept.idle && kept !== controller) registry.delete(key);
    }
  }
  return controller;
}

/** How many controllers the registry holds now (for tests of its bound). */
export function rateControllerCount(): number {
  return registry.size;
}

/** A 64-bit digest of `text` (two 32-bit FNV-style lanes, salted): one-way enough that the key is not kept. */
function digest(text: string): string {
  let a = 0x811c9dc5 ^ SALT;
  let b = 0x01000193 ^ ~SALT;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/** Events per second over the last second (or since `first`, if sooner), from a ring of their times (`count` so far). */
function recentRate(times: Float64Array, count: number, t: number, first: number): number {
  let span = Math.max(1, Math.min(RECENT_MS, t - first));
  let recent = 0;
  let oldest = t;
  for (let i = 0; i < Math.min(count, times.length); i++) {
    if (t - times[i]! > span) continue;
    recent++;
    oldest = Math.min(oldest, times[i]!);
  }
  // A ring full of events within the span holds only the latest: their own span measures them.
  if (recent === times.length) span = Math.max(1, t - oldest);
  return (recent * 1000) / span;
}
