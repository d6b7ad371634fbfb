// What an answer says about the rate limit it was counted against, in each dialect services speak: `Retry-After`
// (seconds or an HTTP date) and `retry-after-ms`; GitHub-style `X-RateLimit-Limit/Remaining/Reset` (the reset as Unix
// seconds, or as seconds from now, or a duration such as `6m0s`), and its `X-Rate-Limit-*` and `…-Requests` variants;
// the IETF draft's `RateLimit-Limit/Remaining/Reset` and its structured `RateLimit` and `RateLimit-Policy` fields.
// Everything is read into one shape, with how precise each time is: a whole second of `Retry-After: 1` means "less
// than a second", which is not the same as 1,000 ms.

/** A wait the server asked for. */
export interface RetryAfterSignal {
  /** Milliseconds to wait, as told. */
  readonly ms: number;
  /** The unit the wait was rounded to, in ms: 1,000 for whole seconds or an HTTP date, 0 when exact. */
  readonly precision: number;
}

/** A quota: how many requests are left, and when it resets. */
export interface QuotaSignal {
  /** Requests a window allows, when told. */
  readonly limit: number | undefined;
  /** Requests left in the window, as the server counted when it answered. */
  readonly remaining: number;
  /** Milliseconds from now until the quota resets, when told (an upper bound when `precision` is over 0). */
  readonly resetIn: number | undefined;
  /** The unit `resetIn` was rounded to, in ms: 1,000 for whole seconds from now, 0 when exact. */
  readonly precision: number;
  /** The window's length in ms, when a policy tells it. */
  readonly window: number | undefined;
}

export interface RateSignal {
  readonly retryAfter?: RetryAfterSignal;
  readonly quota?: QuotaSignal;
}

const NUMBER = /^\s*(\d+(?:\.\d+)?)\s*$/;
/** A Go-style duration, as OpenAI sends its resets: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
const DURATION = /^\s*((?:\d+(?:\.\d+)?(?:h|ms|m|s))+)\s*$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
/** Unix times from here on are seconds (2001 on); from the next, milliseconds. Smaller numbers are seconds from now. */
const UNIX_SECONDS = 1e9;
const UNIX_MS = 1e12;
/** A server clock this far from ours is skewed: its Unix times are read against its `Date` header instead. */
const SKEW_MS = 2_000;

/** Everything `headers` say about the rate limit. `now` is the client's clock (Unix ms). */
export function readRateSignal(headers: Headers, now: number = Date.now()): RateSignal {
  // The server's clock, for its Unix times and dates: its `Date` header when ours is clearly off, else ours.
  // Stryker disable next-line StringLiteral: with no Date header any text without a date in it parses as NaN, as "" does
  const dated = Date.parse(headers.get("date") ?? "");
  const serverNow = Number.isFinite(dated) && Math.abs(dated - now) > SKEW_MS ? dated : now;
  const retryAfter = readRetryAfter(headers, serverNow, dated);
  // Stryker disable next-line MethodExpression: sort() puts undefined last without comparing it: unfiltered, the first is the same
  const quotas = [readXRateLimit(headers, serverNow), ...readIetf(headers)].filter((q): q is QuotaSignal => q !== undefined);
  // The scarcest quota binds.
  const quota = quotas.sort((a, b) => a.remaining - b.remaining)[0];
  return { ...(retryAfter ? { retryAfter } : {}), ...(quota ? { quota } : {}) };
}

/** A non-negative decimal number, and whether it is whole; undefined for anything else (a sign, an exponent, too large). */
function decimal(value: string | null): { n: number; whole: boolean } | undefined {
  // Stryker disable next-line StringLiteral: any text without a number reads as none, as "" does
  const match = NUMBER.exec(value ?? "");
  const n = match ? Number(match[1]) : Number.NaN;
  // Past 10^15 (30,000 years in milliseconds) a number is no time a server means.
  return n < 1e15 ? { n, whole: !match![1]!.includes(".") } : undefined;
}

function readRetryAfter(headers: Headers, serverNow: number, dated: number): RetryAfterSignal | undefined {
  const exact = decimal(headers.get("retry-after-ms"));
  if (exact) return { ms: exact.n, precision: 0 };
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = decimal(value);
  if (seconds) return { ms: seconds.n * 1000, precision: seconds.whole ? 1000 : 0 };
  // Every HTTP date form starts with the day name (Date.parse alone would read "abc 12" as December 2001). The wait is
  // measured on the server's clock when it sent its `Date` (RFC 9110), so a skewed client clock does not matter.
  if (!/^\s*(mon|tue|wed|thu|fri|sat|sun)/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return undefined;
  return { ms: Math.max(0, at - (Number.isFinite(dated) ? dated : serverNow)), precision: 1000 };
}

/** GitHub's `X-RateLimit-*` (also `X-Rate-Limit-*`, and OpenAI's `X-RateLimit-*-Requests`). */
function readXRateLimit(headers: Headers, serverNow: number): QuotaSignal | undefined {
  for (const [prefix, suffix] of [
    ["x-ratelimit-", ""],
    ["x-rate-limit-", ""],
    ["x-ratelimit-", "-requests"],
  ] as const) {
    const remaining = count(headers.get(`${prefix}remaining${suffix}`));
    if (remaining === undefined) continue;
    const resetAfter = headers.get(`${prefix}reset-after${suffix}`);
    const reset = resetAfter ? readDelta(resetAfter) : readReset(headers.get(`${prefix}reset${suffix}`), serverNow);
    return {
      limit: count(headers.get(`${prefix}limit${suffix}`)),
      remaining,
      resetIn: reset?.ms,
      precision: reset?.precision ?? 0,
      window: undefined,
    };
  }
  return undefined;
}

/** A reset: Unix seconds or milliseconds, seconds from now, a duration, or a date. */
function readReset(value: string | null, serverNow: number): RetryAfterSignal | undefined {
  // Stryker disable next-line ConditionalExpression: a missing or empty reset is no number, duration or date either, so it ends as undefined all the same
  if (!value) return undefined;
  const number = decimal(value);
  if (number) {
    const { n } = number;
    if (n >= UNIX_MS) return { ms: Math.max(0, n - serverNow), precision: 0 };
    // A Unix second is the moment the window ends, not a rounding of it.
    if (n >= UNIX_SECONDS) return { ms: Math.max(0, n * 1000 - serverNow), precision: 0 };
    return readDelta(value);
  }
  if (DURATION.test(value)) {
    let ms = 0;
    for (const [, amount, unit] of value.matchAll(DURATION_PART)) ms += Number(amount) * UNIT_MS[unit!]!;
    return Number.isFinite(ms) ? { ms, precision: 0 } : undefined;
  }
  if (/^\s*(mon|tue|wed|thu|fri|sat|sun|\d{4}-\d\d-\d\dT)/i.test(value)) {
    const at = Date.parse(value);
    if (Number.isFinite(at)) return { ms: Math.max(0, at - serverNow), precision: value.includes(".") ? 0 : 1000 };
  }
  return undefined;
}

/** Seconds from now: whole ones are a rounding (up to a second off), fractional ones exact. */
function readDelta(value: string): RetryAfterSignal | undefined {
  const seconds = decimal(value);
  return seconds ? { ms: seconds.n * 1000, precision: seconds.whole ? 1000 : 0 } : undefined;
}

function count(value: string | null): number | undefined {
  // `RateLimit-Limit: 100, 100;w=60` (an early draft) carries a policy after the number.
  // Stryker disable next-line StringLiteral: any text not starting with a digit reads as no count, as "" does
  return decimal(/^\s*(\d+)/.exec(value ?? "")?.[1] ?? null)?.n;
}

/**
 * The IETF draft, in its forms so far: `RateLimit-Limit/Remaining/Reset` (seconds from now); `RateLimit: limit=10,
 * remaining=5, reset=30` (one dictionary); `RateLimit: "name";r=5;t=30` with `RateLimit-Policy: "name";q=10;w=60` (a
 * list of named quotas and their policies). One quota per policy told.
 */
function readIetf(headers: Headers): QuotaSignal[] {
  const policies = new Map<string, { quota?: number; window?: number }>();
  for (const item of items(headers.get("ratelimit-policy"))) {
    const quota = item.params.get("q") ?? (item.bare !== undefined ? Number(item.bare) : undefined);
    const window = item.params.get("w");
    // Stryker disable next-line ConditionalExpression: a quota set to undefined reads as a quota not told (`limit ?? policy?.quota`)
    policies.set(item.name, { ...(quota !== undefined ? { quota } : {}), ...(window !== undefined ? { window: window * 1000 } : {}) });
  }
  const only = policies.size === 1 ? [...policies.values()][0] : undefined;
  const quotas: QuotaSignal[] = [];
  const add = (
    limit: number | undefined,
    remaining: number | undefined,
    reset: number | undefined,
    policy: { quota?: number; window?: number } | undefined,
  ) => {
    if (remaining === undefined) return;
    quotas.push({
      limit: limit ?? policy?.quota,
      remaining,
      resetIn: reset === undefined ? undefined : reset * 1000,
      precision: reset !== undefined && Number.isInteger(reset) ? 1000 : 0,
      window: policy?.window,
    });
  };
  const remaining = count(headers.get("ratelimit-remaining"));
  if (remaining !== undefined) {
    // Stryker disable next-line StringLiteral: any text without a number and `;w=` reads as no limit, as "" does
    const limitText = headers.get("ratelimit-limit") ?? "";
    const window = decimal(/;\s*w=(\d+)/.exec(limitText)?.[1] ?? null);
    add(count(limitText), remaining, decimal(headers.get("ratelimit-reset"))?.n, window ? { window: window.n * 1000 } : only);
  }
  const combined = items(headers.get("ratelimit"));
  const dictionary = new Map(combined.filter((item) => item.value !== undefined).map((item) => [item.name, item.value!]));
  if (dictionary.has("remaining")) add(dictionary.get("limit"), dictionary.get("remaining"), dictionary.get("reset"), only);
  for (const item of combined) {
    if (item.value !== undefined) continue;
    add(undefined, item.params.get("r"), item.params.get("t"), policies.get(item.name) ?? only);
  }
  return quotas;
}

interface Item {
  /** The item's name (a string or token), or its bare number. */
  readonly name: string;
  /** A bare number as the item (`100;w=60`). */
  readonly bare: string | undefined;
  /** `name=value` as a dictionary member (`limit=10`): the value. */
  readonly value: number | undefined;
  /** Its numeric parameters (`;q=10;w=60`). */
  readonly params: Map<string, number>;
}

/**
 * The members of a structured-field list or dictionary (RFC 8941), as far as rate limits use them: a name (string,
 * token or number) or `key=number`, each with `;key=number` parameters. Commas inside quotes do not split. A member
 * that cannot be read is left out, never thrown on.
 */
function items(field: string | null): Item[] {
  if (!field) return [];
  // Stryker disable next-line ArrayDeclaration: only a field of commas and quotes matches nothing; a member made up in its place has no number, so it tells no quota
  const members = field.match(/(?:"(?:[^"\\]|\\.)*"|[^,"])+/g) ?? [];
  const out: Item[] = [];
  for (const member of members) {
    // Stryker disable next-line StringLiteral,ArrayDeclaration: only a member of semicolons matches nothing; its name, whatever it is, has no parameters and tells no quota
    const [head = "", ...rest] = (member.match(/(?:"(?:[^"\\]|\\.)*"|[^;"])+/g) ?? []).map((part) => part.trim());
    const params = new Map<string, number>();
    for (const param of rest) {
      const [key, value] = param.split("=").map((part) => part.trim());
      const number = decimal(value ?? null);
      if (key && number) params.set(key.toLowerCase(), number.n);
    }
    const pair = /^([a-z][\w.*-]*)\s*=\s*(\d+(?:\.\d+)?)$/i.exec(head);
    const value = decimal(pair?.[2] ?? null);
    if (pair && value) out.push({ name: pair[1]!.toLowerCase(), bare: undefined, value: value.n, params });
    else if (decimal(head)) out.push({ name: "", bare: head, value: undefined, params });
    // Stryker disable next-line Regex: the outer quotes go all the same; escaped inner ones go alike from both names compared
    else out.push({ name: head.replace(/^"|"$/g, ""), bare: undefined, value: undefined, params });
  }
  return out;
}
