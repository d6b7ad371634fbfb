// Every dialect of rate-limit headers read into one shape (src/core/rate-headers.ts), with how precise each time is:
// Retry-After and retry-after-ms, GitHub's X-RateLimit-* (and its variants), the IETF draft's RateLimit-* fields and
// structured RateLimit / RateLimit-Policy. A server's text never throws and never gives a negative or NaN time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readRateSignal } from "../../src/core/rate-headers.js";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const read = (headers: Record<string, string>, now = NOW) => readRateSignal(new Headers(headers), now);

describe("Retry-After", () => {
  it("whole seconds are a rounding (precision 1 s); fractions and retry-after-ms are exact; retry-after-ms wins", () => {
    expect(read({ "retry-after": "1" }).retryAfter).toEqual({ ms: 1000, precision: 1000 });
    expect(read({ "retry-after": "0.25" }).retryAfter).toEqual({ ms: 250, precision: 0 });
    expect(read({ "retry-after-ms": "40", "retry-after": "1" }).retryAfter).toEqual({ ms: 40, precision: 0 });
    expect(read({ "retry-after": "soon" }).retryAfter).toBeUndefined();
    expect(read({}).retryAfter).toBeUndefined();
  });

  it("an HTTP date is measured on the server's clock (its Date header), so a skewed client clock does not matter", () => {
    const headers = { "retry-after": "Fri, 27 Nov 2026 12:00:30 GMT", date: "Fri, 27 Nov 2026 12:00:00 GMT" };
    expect(read(headers).retryAfter).toEqual({ ms: 30_000, precision: 1000 });
    expect(read(headers, NOW + 3_600_000).retryAfter).toEqual({ ms: 30_000, precision: 1000 });
    expect(read({ "retry-after": "Fri, 27 Nov 2026 12:00:10 GMT" }).retryAfter).toEqual({ ms: 10_000, precision: 1000 });
    // In the past: no wait.
    expect(read({ "retry-after": "Fri, 27 Nov 2026 11:00:00 GMT" }).retryAfter?.ms).toBe(0);
  });
});

describe("X-RateLimit-*", () => {
  it("GitHub's: the reset as Unix seconds is the window's end", () => {
    const reset = String(NOW / 1000 + 42);
    expect(read({ "X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": reset }).quota).toEqual({
      limit: 5000,
      remaining: 4999,
      resetIn: 42_000,
      precision: 0,
      window: undefined,
    });
  });

  it("a reset as seconds from now (whole: up to a second early), milliseconds since 1970, a duration, or a date", () => {
    const quota = (reset: string) => read({ "x-ratelimit-remaining": "3", "x-ratelimit-reset": reset }).quota;
    expect(quota("30")).toMatchObject({ resetIn: 30_000, precision: 1000 });
    expect(quota("1.5")).toMatchObject({ resetIn: 1_500, precision: 0 });
    expect(quota(String(NOW + 250))).toMatchObject({ resetIn: 250, precision: 0 });
    expect(quota("6m0s")).toMatchObject({ resetIn: 360_000, precision: 0 });
    expect(quota("1m30.5s")).toMatchObject({ resetIn: 90_500, precision: 0 });
    expect(quota("20ms")).toMatchObject({ resetIn: 20, precision: 0 });
    expect(quota("2026-11-27T12:01:00Z")).toMatchObject({ resetIn: 60_000, precision: 1000 });
    expect(quota("whenever")).toMatchObject({ remaining: 3, resetIn: undefined });
  });

  it("a server clock hours off: its Unix reset is read against its Date header", () => {
    const serverNow = NOW - 3 * 3_600_000;
    const headers = {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(serverNow / 1000 + 5),
      date: new Date(serverNow).toUTCString(),
    };
    expect(read(headers).quota?.resetIn).toBe(5_000);
  });

  it("the X-Rate-Limit-* spelling, OpenAI's …-Requests, Discord's Reset-After", () => {
    expect(
      read({ "x-rate-limit-limit": "15", "x-rate-limit-remaining": "14", "x-rate-limit-reset": String(NOW / 1000 + 900) }).quota,
    ).toMatchObject({
      limit: 15,
      remaining: 14,
      resetIn: 900_000,
    });
    expect(
      read({ "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59", "x-ratelimit-reset-requests": "1s" }).quota,
    ).toMatchObject({
      limit: 60,
      remaining: 59,
      resetIn: 1_000,
    });
    expect(read({ "x-ratelimit-remaining": "4", "x-ratelimit-reset-after": "0.75" }).quota).toMatchObject({ resetIn: 750, precision: 0 });
  });

  it("no remaining, no quota", () => {
    expect(read({ "x-ratelimit-limit": "10", "x-ratelimit-reset": "5" }).quota).toBeUndefined();
  });
});

describe("the IETF draft's fields", () => {
  it("RateLimit-Limit, -Remaining and -Reset (seconds from now), with a policy in the limit", () => {
    expect(read({ "RateLimit-Limit": "100, 100;w=60", "RateLimit-Remaining": "37", "RateLimit-Reset": "12" }).quota).toEqual({
      limit: 100,
      remaining: 37,
      resetIn: 12_000,
      precision: 1000,
      window: 60_000,
    });
  });

  it("RateLimit as one dictionary: limit=, remaining=, reset=", () => {
    expect(read({ RateLimit: "limit=10, remaining=0, reset=3", "RateLimit-Policy": "10;w=5" }).quota).toEqual({
      limit: 10,
      remaining: 0,
      resetIn: 3_000,
      precision: 1000,
      window: 5_000,
    });
  });

  it("RateLimit as named items with RateLimit-Policy: the scarcest quota binds, with its own policy", () => {
    const headers = {
      "RateLimit-Policy": '"burst";q=100;w=1, "daily";q=10000;w=86400',
      RateLimit: '"burst";r=40;t=1, "daily";r=12;t=3600',
    };
    expect(read(headers).quota).toEqual({ limit: 10_000, remaining: 12, resetIn: 3_600_000, precision: 1000, window: 86_400_000 });
    // A comma inside a quoted name does not split the list.
    expect(read({ RateLimit: '"a, b";r=5;t=2' }).quota).toMatchObject({ remaining: 5, resetIn: 2_000 });
  });
});

describe("the edges of each dialect", () => {
  const retryAfter = (value: string) => read({ "retry-after": value }).retryAfter;
  const reset = (value: string) => read({ "x-ratelimit-remaining": "3", "x-ratelimit-reset": value }).quota;
  const ietf = (headers: Record<string, string>) => read(headers).quota;

  it("an HTTP date starts with its day name: a day named anywhere else, or run into other text, is no date", () => {
    // Date.parse reads both; the day name at the start is what says an HTTP date was meant.
    expect(retryAfter("27 Nov 2026 12:00:30 GMT (Fri)")).toBeUndefined();
    expect(retryAfter("Xfri 27 Nov 2026 12:00:30 GMT")).toBeUndefined();
    expect(reset("27 Nov 2026 12:01:00 GMT (Fri)")).toMatchObject({ resetIn: undefined, precision: 0 });
    expect(reset("Xfri 27 Nov 2026 12:01:00 GMT")).toMatchObject({ resetIn: undefined, precision: 0 });
  });

  it("a day name with no date after it is no wait", () => {
    expect(retryAfter("Fri, garbage")).toBeUndefined();
  });

  it("a Date header within 2 s of our clock is ours, give or take its rounding: a Unix reset is read against our clock", () => {
    for (const off of [2_000, 1_000]) {
      const headers = {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(NOW / 1000 + 5),
        date: new Date(NOW - off).toUTCString(),
      };
      expect(read(headers).quota?.resetIn).toBe(5_000);
    }
  });

  it("a count starts with its digits: a signed or worded one is none", () => {
    expect(read({ "x-ratelimit-remaining": "-5" }).quota).toBeUndefined();
    expect(read({ "x-ratelimit-remaining": "about 5" }).quota).toBeUndefined();
  });

  it("a reset that is neither a number, a duration nor a date is no reset, even one Date.parse would read", () => {
    expect(reset("abc 12")).toMatchObject({ remaining: 3, resetIn: undefined, precision: 0 });
    expect(reset("Monday soon")).toMatchObject({ remaining: 3, resetIn: undefined, precision: 0 });
  });

  it("10^9 is the first Unix second and 10^12 the first Unix millisecond: both long past, so no wait", () => {
    expect(reset("1000000000")).toMatchObject({ resetIn: 0, precision: 0 });
    expect(reset("999999999")).toMatchObject({ resetIn: 999_999_999_000, precision: 1000 });
    expect(reset("1000000000000")).toMatchObject({ resetIn: 0, precision: 0 });
  });

  it("RateLimit-Limit's window may have a space after the semicolon; no reset told is no rounding", () => {
    expect(ietf({ "RateLimit-Limit": "100; w=60", "RateLimit-Remaining": "37" })).toEqual({
      limit: 100,
      remaining: 37,
      resetIn: undefined,
      precision: 0,
      window: 60_000,
    });
  });

  it("a dictionary's members may have spaces around `=`, several digits and fractions", () => {
    expect(ietf({ RateLimit: "limit = 120, remaining = 45, reset = 1.25" })).toEqual({
      limit: 120,
      remaining: 45,
      resetIn: 1_250,
      precision: 0,
      window: undefined,
    });
  });

  it("a member that is not exactly `key=number` is no dictionary member, and a number past 10^15 is none", () => {
    expect(ietf({ RateLimit: '"a" remaining=5' })).toBeUndefined();
    expect(ietf({ RateLimit: "remaining=5x" })).toBeUndefined();
    expect(ietf({ RateLimit: "remaining=1000000000000000" })).toBeUndefined();
  });

  it("a named item without r= is no quota; a parameter that is not a number is left out", () => {
    expect(ietf({ RateLimit: '"a";t=30' })).toBeUndefined();
    expect(ietf({ RateLimit: '"a";r=5;t=soon;x' })).toEqual({
      limit: undefined,
      remaining: 5,
      resetIn: undefined,
      precision: 0,
      window: undefined,
    });
  });

  it("a dictionary member's parameters are not a quota of their own", () => {
    expect(ietf({ RateLimit: "limit=10, remaining=5;r=0, reset=30" })).toMatchObject({ limit: 10, remaining: 5 });
  });

  it("a policy may be a bare number (its quota), and parameters may have spaces around `=`", () => {
    expect(ietf({ "RateLimit-Policy": "100;w=60", RateLimit: '"x";r=5;t=30' })).toMatchObject({ limit: 100, window: 60_000 });
    expect(ietf({ "RateLimit-Policy": '"x";q = 10;w = 60', RateLimit: '"x";r=5;t=30' })).toMatchObject({ limit: 10, window: 60_000 });
  });

  it("a dictionary member without a value does not erase the value of one of its name before it", () => {
    expect(ietf({ RateLimit: "remaining=5, reset=3, reset" })).toMatchObject({ remaining: 5, resetIn: 3_000 });
  });

  it("an item's name finds its policy quoted or as a token; a name no policy has takes none of several", () => {
    const policies = "burst;q=100;w=1, daily;q=10000;w=86400";
    expect(ietf({ "RateLimit-Policy": policies, RateLimit: '"burst";r=40;t=1' })).toMatchObject({ limit: 100, window: 1_000 });
    expect(ietf({ "RateLimit-Policy": policies, RateLimit: '"other";r=5;t=2' })).toMatchObject({ limit: undefined, window: undefined });
  });

  it("an item finds its policy by name: quoted names may hold `;`, and the empty name is a bare policy's", () => {
    const policies = '"a;b";q=10;w=60, 100;w=1, "c";q=20;w=2';
    expect(ietf({ "RateLimit-Policy": policies, RateLimit: '"a;b";r=5;t=30' })).toMatchObject({ limit: 10, window: 60_000 });
    expect(ietf({ "RateLimit-Policy": policies, RateLimit: '"";r=5;t=30' })).toMatchObject({ limit: 100, window: 1_000 });
  });
});

describe("whatever a server sends", () => {
  it("never throws, and never gives a negative, infinite or NaN time or count", () => {
    const names = [
      "retry-after",
      "retry-after-ms",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "x-ratelimit-limit",
      "ratelimit",
      "ratelimit-policy",
      "ratelimit-remaining",
      "ratelimit-reset",
      "date",
    ];
    const value = fc.oneof(
      fc.string(),
      fc.nat().map(String),
      fc.double({ min: 0, max: 1e13, noNaN: true }).map(String),
      fc.constantFrom(
        '"a";r=1;t=2',
        "limit=1, remaining=2, reset=3",
        "1m2s",
        "Fri, 27 Nov 2026 12:00:30 GMT",
        "-5",
        "1e400",
        "9".repeat(400),
        `${"9".repeat(400)}s`,
      ),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), value), (set) => {
        const printable = Object.fromEntries(Object.entries(set).filter(([, v]) => /^[\t -~]*$/.test(v)));
        const { retryAfter, quota } = read(printable);
        for (const n of [
          retryAfter?.ms,
          retryAfter?.precision,
          quota?.remaining,
          quota?.resetIn,
          quota?.limit,
          quota?.window,
          quota?.precision,
        ]) {
          if (n !== undefined) expect(Number.isFinite(n) && n >= 0).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
