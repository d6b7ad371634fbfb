// The request options: their defaults, and the checks that refuse a bad one (at construction for the client's,
// at the start of a call for a call's own) with a ValidationError naming the option and the allowed range.
import { ValidationError } from "./errors.js";

/** Options every method accepts as its last argument, and the client as defaults. */
export interface RequestOptions {
  /** Aborts the call at once, also during a backoff wait, with APIUserAbortError. */
  signal?: AbortSignal | undefined;
  /** Milliseconds one attempt may take (from asking `apiKey` to the last byte of the body). Default 60,000. */
  timeout?: number | undefined;
  /**
   * Milliseconds the whole call may take across attempts and waits. Default: none. For a list, each page is a call
   * of its own; for a bulk job (`setUserLimits`, `analytics.users` with `concurrency`), each of its requests, not the
   * job: to bound a whole job, pass `signal: AbortSignal.timeout(ms)`.
   */
  deadline?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** Largest success body accepted, in bytes; a larger one is a ResponseTooLargeError. Default 256 MiB. */
  maxResponseSize?: number | undefined;
  /** Extra request headers for this call (not `Authorization`: the client sets it from `apiKey`). */
  headers?: Record<string, string> | undefined;
  /**
   * Treat this call as safe to repeat. Writes that are not idempotent (creating a session, sending a message,
   * retrying install-deps) are otherwise retried only when the server surely did not act on them (429, or a
   * connection that failed before the request was sent); set this to accept a possible duplicate.
   */
  idempotent?: boolean | undefined;
}

export const DEFAULTS = {
  maxRetries: 2,
  timeout: 60_000,
  maxRetryAfter: 60_000,
  backoff: { initial: 500, max: 8_000 },
  // The largest real answers are long ranges of ungrouped /tokens, whose rows list every active person: a year is
  // ~116 MB for 2,000 people. 256 MiB holds a year for ~4,500, every other answer many times over, and is half the
  // longest string V8 can parse at all (docs/reliability.md shows the sums).
  maxResponseSize: 256 * 1024 * 1024,
} as const;

/** Bytes of an error body read and kept (in `error.body`); the rest is not downloaded. */
export const ERROR_BODY_LIMIT = 64 * 1024;
/** Redirects followed within one attempt (Node, Bun and Deno; a browser follows its own). */
export const MAX_REDIRECTS = 5;

type NumberRule = readonly [allowed: string, ok: (n: number) => boolean];
const positiveMs: NumberRule = ["a number of milliseconds greater than 0, or Infinity", (n) => n > 0];
const count: NumberRule = ["an integer, 0 or more", (n) => Number.isInteger(n) && n >= 0];
const waitMs: NumberRule = ["a number of milliseconds, 0 or more, or Infinity", (n) => n >= 0];
const finiteMs: NumberRule = ["a finite number of milliseconds, 0 or more", (n) => Number.isFinite(n) && n >= 0];
const size: NumberRule = [
  "an integer number of bytes greater than 0, or Infinity",
  (n) => n > 0 && (Number.isInteger(n) || n === Infinity),
];
const itemCount: NumberRule = ["an integer, 0 or more, or Infinity", (n) => n >= 0 && (Number.isInteger(n) || n === Infinity)];
/** Calls a bulk job may have in flight. More connections to one host than this rarely helps and looks like abuse. */
export const MAX_CONCURRENCY = 64;
const concurrency: NumberRule = [`an integer from 1 to ${MAX_CONCURRENCY}`, (n) => Number.isInteger(n) && n >= 1 && n <= MAX_CONCURRENCY];

/** The numeric options and the rule of each; the client options add maxRetryAfter and backoff. */
const NUMERIC: Record<string, NumberRule> = {
  maxRetries: count,
  timeout: positiveMs,
  deadline: positiveMs,
  maxResponseSize: size,
  maxItems: itemCount,
  maxRetryAfter: waitMs,
  concurrency,
};

/** Throws for a numeric option outside its range (by default the rule of its name); `undefined` means "the default". */
export function checkNumber(field: string, value: unknown, rule?: NumberRule) {
  if (value === undefined) return;
  // Stryker disable next-line Regex: a greedy `.*\.` matches from the start anyway, anchored or not
  const [allowed, ok] = rule ?? NUMERIC[field.replace(/^.*\./, "")]!;
  // NaN needs no test of its own: every rule compares, and a comparison with NaN is false.
  if (typeof value !== "number" || !ok(value)) throw new ValidationError(field, value, allowed, undefined, { rule: "option" });
}

export const checkBackoff = (field: string, value: unknown) => checkNumber(field, value, finiteMs);
export const checkItemCount = (field: string, value: unknown) => checkNumber(field, value, itemCount);

/** The keys of RequestOptions: a call's options may have no other (a JavaScript caller's typo is refused). */
export const REQUEST_OPTION_KEYS: ReadonlySet<string> = new Set([
  "signal",
  "timeout",
  "deadline",
  "maxRetries",
  "maxResponseSize",
  "headers",
  "idempotent",
]);
/** The keys of a list's options: the request options and `maxItems`. */
export const PAGE_OPTION_KEYS: ReadonlySet<string> = new Set([...REQUEST_OPTION_KEYS, "maxItems"]);
/** The keys of the options of a list over a date range: a list's, and `concurrency` (its date windows). */
export const WINDOW_OPTION_KEYS: ReadonlySet<string> = new Set([...PAGE_OPTION_KEYS, "concurrency"]);

/** Checks the options a call was given (`prefix` names them in errors, e.g. `options.`). */
export function checkRequestOptions(options: RequestOptions & { maxItems?: number | undefined }, prefix: string): void {
  for (const name in options) {
    if (name in NUMERIC) checkNumber(prefix + name, options[name as keyof typeof options]);
  }
  if (options.headers !== undefined) checkHeaders(options.headers, `${prefix}headers`);
}

/**
 * The headers of a call: the client's, with the call's own replacing any of the same name in any letter case
 * (instead of joining it). Without headers of its own a call has the client's, the same object every time.
 */
export function mergeHeaders(
  base: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> {
  if (!extra) return base;
  const merged: Record<string, string> = { ...base };
  for (const name in extra) {
    const lower = name.toLowerCase();
    for (const existing in merged) if (existing.toLowerCase() === lower) delete merged[existing];
    merged[name] = extra[name]!;
  }
  return merged;
}

// A header name is an HTTP token; a value may hold no CR, LF or NUL (they would split or end the header) and only
// Latin-1 characters (what fetch can send): anything else would make fetch throw a TypeError quoting the value.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\0\r\n\u0100-\uffff]/;

/**
 * Throws for a header a request could not or must not carry. Values are never shown: a header may hold a secret.
 * `Authorization` is refused in any letter case: the client sets it from `apiKey`, so the server sees one credential.
 */
export function checkHeaders(headers: unknown, field: string): void {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new ValidationError(field, typeof headers, "an object of header names to string values");
  }
  for (const name in headers) {
    const where = `${field}[${JSON.stringify(name)}]`;
    if (!TOKEN.test(name)) throw new ValidationError(where, name, "a header name (letters, digits and !#$%&'*+.^_`|~-)");
    if (name.toLowerCase() === "authorization") {
      throw new ValidationError(where, "***", "no Authorization header: the client sets it from `apiKey`", "an Authorization header");
    }
    checkHeaderValue((headers as Record<string, unknown>)[name], where);
  }
}

/** Throws, without showing the value, for a header value fetch could not send. */
export function checkHeaderValue(value: unknown, field: string): void {
  if (typeof value !== "string") throw new ValidationError(field, typeof value, "a string", `a ${typeof value}`);
  if (BAD_VALUE.test(value)) {
    throw new ValidationError(
      field,
      "***",
      "Latin-1 text without CR, LF or NUL",
      "a value with a line break, NUL or a character fetch cannot send (the value is not shown)",
    );
  }
}
