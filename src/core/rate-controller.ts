// When a request to a rate-limited service may start: one controller per API key and host, shared by every call and
// job of the process that uses them, so together they go at the rate the service allows instead of fighting for it.
// It reads the service, not only its refusals:
// - a quota (`X-RateLimit-*`, `RateLimit`): the requests left before the reset are the budget; the first half of a
//   window's quota goes as fast as it is asked for, the rest is spread up to the reset, and once the budget is spent
//   nothing goes before the reset (a reset told in whole seconds is narrowed down by the answers of one window);
// - a refusal (429, or 503: a service shedding load): once per round of requests, the pace drops to 90 % of what the
//   service accepted over the last second when that measures its rate (a token bucket's refill, a sliding window's
//   quota), else to 70 % of the rate requests went at; it climbs back to that rate (the ceiling) within about a
//   second and probes past it by 5 % a second, while the pace is what holds requests back and the service does not
//   say its quota is spent. So the rate is learned from the service, as TCP's CUBIC learns a path's;
// - `Retry-After`: only its certain part holds everything. `Retry-After: 1` (whole seconds, rounded up) says the wait
//   is under a second: the refused request goes again at its turn of the pace, not a second later, while a wait of 30
//   holds every request for 29 s. `retry-after-ms` is exact;
// - no hint at all: refusals in a row with nothing accepted between them hold everything for a growing backoff, so a
//   service that says nothing is not flooded (never past the time a `Retry-After` said requests may go again).
// The controller paces the starts of requests; how many a job has in flight is the job's own cap.
import { APIUserAbortError } from "./errors.js";
import { readRateSignal, type QuotaSignal } from "./rate-headers.js";
import { MAX_TIMER } from "./timers.js";

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
  /**
   * The longest the caller waits out a hold (a `Retry-After` told to every request): a request that would wait longer
   * goes at once, and the service's answer to it decides (its own refusal, with the wait it tells).
   */
  maxHold?: number | undefined;
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
  /**
   * A permit at once when no request waits and nothing holds requests back now, else undefined (then `acquire`):
   * a call that nothing gates pays no wait and no promise for its turn.
   */
  tryAcquire(): RatePermit | undefined;
  /** Resolves when a request may start. */
  acquire(options?: AcquireOptions): Promise<RatePermit>;
  readonly state: RateControllerState;
}

/** A refusal with nothing accepted in the last second to go by lowers the pace to this share of the rate it came at. */
const DECREASE = 0.7;
/** Below the ceiling the pace closes its gap to it with this time constant (ms): most of the way in a second. */
const REGROWTH_MS = 500;
/** At or over the ceiling the pace grows by this share a second: it probes whether the service allows more. */
const PROBE = 0.05;
/** While no ceiling is known (refused before any pace), the pace grows by this share a second. */
const STARTUP = 1;
/** A refusal lowers the pace to this share of what the service accepted in the last second, and the ceiling to at most this one. */
const UNDER_ACCEPTED = 0.9;
const OVER_ACCEPTED = 1.1;
/**
 * Starts and accepted answers remembered, to measure their rates: the rate requests went at over their last 8 starts
 * (the pace of the moment), what the service accepted over the last second.
 */
const RECENT_KEPT = 64;
const LAST_STARTS = 8;
const ACCEPTED_MS = 1_000;
/** The slowest pace: one request every 20 s. */
const MIN_RATE = 0.05;
/** Refusals in a row with nothing accepted: everything waits this long, doubling, jittered down by up to a quarter. */
const BACKOFF = { initial: 250, max: 8_000 };

interface Waiter {
  readonly retry: boolean;
  readonly maxHold: number;
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
  /** The reset was told exactly (a Unix time, a fraction of a second), not rounded to whole seconds. */
  readonly exact: boolean;
}

export class AdaptiveRateController implements RateController {
  #rate = Infinity;
  #seq = 0;
  #inFlight = 0;
  #accepted = 0;
  #refused = 0;
  #delayed = 0;
  #lastStart = -Infinity;
  /** The earliest start the pace allows next (performance.now()). */
  #slot = -Infinity;
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
  /** When the last round of refusals came. */
  #lastRefusal = -Infinity;
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

  tryAcquire(): RatePermit | undefined {
    if (this.#waiting.length) return undefined;
    const t = this.now();
    return this.#gate(t) > t ? undefined : this.#start(t, false);
  }

  acquire({ signal, retry = false, maxHold = Infinity }: AcquireOptions = {}): Promise<RatePermit> {
    if (signal?.aborted) return Promise.reject(APIUserAbortError.of(signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        retry,
        maxHold,
        since: this.now(),
        resolve,
        reject,
        signal,
        onAbort: () => {
          // Its listener goes when it leaves the queue (to start), and it fires once: an abort finds it there.
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
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
    const pace = Number.isFinite(this.#rate) ? this.#slot : -Infinity;
    const other = Math.max(this.#holdUntil, this.#quotaGate(t));
    this.#paceBinds = pace > other;
    return Math.max(other, pace);
  }

  #quotaGate(t: number): number {
    const quota = this.#quota;
    if (!quota) return -Infinity;
    // Past the reset the budget is unknown again: the next answer tells it. A reset told exactly has come: every
    // request may go. One told in whole seconds may not have come yet (it was rounded): one request asks first.
    if (quota.resetBy !== undefined && t >= quota.resetBy) {
      if (quota.exact) {
        this.#quota = undefined;
        return -Infinity;
      }
      return this.#inFlight > 0 ? Infinity : -Infinity;
    }
    const budget = quota.remaining - (this.#seq - quota.seq);
    if (budget <= 0) {
      // Until the reset, at the latest it can be (answers of one window narrow it down to the earliest of them plus
      // its seconds to the reset: within a round trip of the reset once a window's first answer came early in it).
      if (quota.resetBy !== undefined) return quota.resetBy;
      // No reset told, so how fast the quota comes back is not known (a sliding window frees it one request at a
      // time): a pace learned from refusals governs. Without one, the next answer tells the budget; with none in
      // flight, one request goes to ask.
      if (Number.isFinite(this.#rate)) return -Infinity;
      return this.#inFlight > 0 ? Infinity : -Infinity;
    }
    // The first half of a window's quota goes as fast as asked; the rest is spread evenly up to the reset. With no
    // limit told there is no half: the budget, over 0 here, is never under 0.
    if (quota.resetBy !== undefined && budget < (quota.limit ?? 0) / 2) {
      return (budget * this.#lastStart + quota.resetBy) / (budget + 1);
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
        if (this.#holdUntil >= gate) this.#startImpatient(t);
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

  /** Starts the requests that would wait out the hold longer than they accept: the service's answer decides. */
  #startImpatient(t: number): void {
    for (let i = 0; i < this.#waiting.length; i++) {
      const waiter = this.#waiting[i]!;
      if (this.#holdUntil - t <= waiter.maxHold) continue;
      this.#waiting.splice(i--, 1);
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.#start(t, false));
    }
  }

  #start(t: number, paced: boolean): RatePermit {
    const seq = ++this.#seq;
    this.#inFlight++;
    this.#lastStart = t;
    // The next slot of the pace. A start late by up to half an interval (a busy event loop) does not push the slots
    // after it back, so the pace keeps its rate; later than that, the lateness beyond it is lost.
    const interval = 1000 / this.#rate;
    this.#slot = Math.max(this.#slot + interval, t + interval / 2);
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
    // An answer past the reset that tells no quota: none is known any more.
    else if (this.#quota?.resetBy !== undefined && t >= this.#quota.resetBy) this.#quota = undefined;
    if (status !== 429 && status !== 503) {
      this.#acceptTimes[this.#accepted % RECENT_KEPT] = t;
      this.#accepted++;
      this.#promisedBy = Infinity;
      // The pace grows while it is what holds requests back, no refusal came since this request started, and the
      // service does not say its quota is all but spent (a sliding window at its rate says 0 or 1 left: more would be
      // refused, so the pace stays).
      const spent = signal.quota !== undefined && signal.quota.remaining <= 1;
      if (paced && !spent && seq > this.#roundSeq && Number.isFinite(this.#rate)) this.#grow(t);
      return undefined;
    }

    this.#refused++;
    const told = signal.retryAfter;
    if (told) this.#promisedBy = Math.min(this.#promisedBy, t + told.ms);
    if (seq > this.#roundSeq) this.#decrease(t);
    // Only the certain part of the wait holds: `Retry-After: 1` (rounded up) may mean 50 ms. A wait of 0 holds until
    // now, which holds nothing.
    const wait = told ? Math.max(0, told.ms - told.precision) : 0;
    this.#holdUntil = Math.max(this.#holdUntil, t + wait);
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
    // The rate requests went at (over their last starts, so a pause of this process does not count): the pace, or
    // fewer when the calls asked for less. What the service accepted over the last second measures its rate when it
    // was refusing then too (a bucket's refill), or when it tells a quota (a sliding window's); after a climb without
    // refusals it is only what was asked.
    const going = Math.max(MIN_RATE, Math.min(this.#rate, lastStartsRate(this.#startTimes, this.#seq)));
    const accepted = recentRate(this.#acceptTimes, this.#accepted, t, this.#firstStart, ACCEPTED_MS);
    const saturated = t - this.#lastRefusal <= ACCEPTED_MS || this.#quota !== undefined;
    this.#lastRefusal = t;
    if (!Number.isFinite(this.#rate) || t - this.#firstStart < ACCEPTED_MS) {
      // Before any pace, or in the first second, requests went in a burst: no rate to climb back to. The pace starts
      // from half the rate they went at since the first (a burst has no rate of its own), and climbs fast until a
      // later refusal finds the ceiling.
      const since = Math.min(going, recentRate(this.#startTimes, this.#seq, t, this.#firstStart, ACCEPTED_MS));
      this.#rate = Math.max(MIN_RATE, Math.min(since, Math.max(UNDER_ACCEPTED * accepted, since / 2)));
      this.#ceiling = Infinity;
    } else if (saturated && accepted > 0) {
      this.#rate = Math.max(MIN_RATE, Math.min(going, UNDER_ACCEPTED * accepted));
      this.#ceiling = Math.max(this.#rate, Math.min(going, OVER_ACCEPTED * accepted));
    } else {
      this.#rate = Math.max(MIN_RATE, Math.min(going, Math.max(UNDER_ACCEPTED * accepted, DECREASE * going)));
      this.#ceiling = going;
    }
    this.#slot = Math.max(this.#slot, this.#lastStart + 1000 / this.#rate);
    this.#grownAt = t;
  }

  /**
   * Back to the ceiling within about a second, and always by at least PROBE a second, so it probes past the ceiling;
   * by STARTUP a second while no ceiling is known.
   */
  #grow(t: number): void {
    // Growth is for time spent at the pace: at most two of its intervals per answer (not a stall before it).
    const seconds = Math.min(2 / this.#rate, (t - this.#grownAt) / 1000);
    this.#grownAt = t;
    if (!Number.isFinite(this.#ceiling)) return void (this.#rate += STARTUP * this.#rate * seconds);
    const regrowth = Math.max(0, this.#ceiling - this.#rate) * (1 - Math.exp((-seconds * 1000) / REGROWTH_MS));
    this.#rate += Math.max(regrowth, PROBE * this.#rate * seconds);
  }

  /**
   * Takes in a quota as told by the answer to request `seq`: a later request's answer, or one that leaves less,
   * replaces what was known. When both are of the same window, their reset times narrow each other down.
   */
  #learnQuota(seq: number, t: number, told: QuotaSignal): void {
    const { resetBy, resetFrom } =
      told.resetIn === undefined ? {} : { resetBy: t + told.resetIn, resetFrom: t + told.resetIn - told.precision };
    const next: Quota = { limit: told.limit, remaining: told.remaining, seq, resetBy, resetFrom, exact: told.precision === 0 };
    const known = this.#quota;
    if (!known) return void (this.#quota = next);
    const budget = (quota: Quota) => quota.remaining - (this.#seq - quota.seq);
    if (seq < known.seq && budget(next) >= budget(known)) return; // an earlier request's answer, told before
    const sameWindow =
      budget(next) <= budget(known) &&
      // Stryker disable next-line ConditionalExpression: with no reset known, `resetFrom < known.resetBy` is false anyway
      known.resetBy !== undefined &&
      // Stryker disable next-line ConditionalExpression: with no reset told, resetFrom is undefined: the next test is false anyway
      resetBy !== undefined &&
      // Stryker disable next-line ConditionalExpression: resets apart this way narrow to from >= by, which is refused below
      resetFrom! < known.resetBy &&
      // Stryker disable next-line ConditionalExpression: resets apart this way narrow to from >= by, which is refused below
      known.resetFrom! < resetBy;
    // Narrowed only while the two agree (clocks and rounding can make them not); an exact reset (a point) within a
    // rounded one's second is kept, the sooner of the two.
    const narrowed = sameWindow ? { by: Math.min(resetBy!, known.resetBy!), from: Math.max(resetFrom!, known.resetFrom!) } : undefined;
    this.#quota = narrowed && narrowed.from <= narrowed.by ? { ...next, resetBy: narrowed.by, resetFrom: narrowed.from } : next;
  }
}

/** Events per second over the last `ms` (or since `first`, if sooner), from a ring of their times (`count` so far). */
function recentRate(times: Float64Array, count: number, t: number, first: number, ms: number): number {
  let span = Math.max(1, Math.min(ms, t - first));
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

/** Starts per second over the last eight starts (from a ring of their times, `count` so far); Infinity for fewer. */
function lastStartsRate(times: Float64Array, count: number): number {
  const n = Math.min(count, LAST_STARTS);
  if (n < 2) return Infinity;
  const newest = times[(count - 1) % times.length]!;
  const oldest = times[(count - n) % times.length]!;
  return ((n - 1) * 1000) / Math.max(1, newest - oldest);
}
