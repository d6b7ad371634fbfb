// Property tests. Response handling: whatever status, body and content type a server sends, a call resolves to the
// parsed documented JSON or rejects with an OrgAgentError; nothing else, ever. Retry-After: seconds, HTTP dates and
// retry-after-ms parse to the right wait, and no input yields a negative, infinite or NaN wait.
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { APIConnectionError, APIError, OrgAgentError, RateLimitError, type OrgAgent } from "../../src/index.js";
import { readRateSignal } from "../../src/core/rate-headers.js";
import { calls, operationIds } from "./calls.js";
import { startFaultServer, success, type Fault, type FaultServer } from "./fault-server.js";
import { leaks } from "./secret.js";
import { clientOf } from "./support.js";

let server: FaultServer;
let client: OrgAgent;
let reply: Fault = { kind: "ok" };
const corpus: unknown[] = [];

beforeAll(async () => {
  server = await startFaultServer(() => reply);
  // rateLimiting off: a 429 or 503 would otherwise be a throttle, waited out and sent again; one answer per call is
  // the point here (the rate controller has its own tests: test/sdk/rate-controller.test.ts, throttles.test.ts).
  client = clientOf(server, { maxRetries: 0, timeout: 5_000, rateLimiting: false });
});
afterAll(async () => {
  await server.close();
  expect(leaks(corpus)).toEqual([]);
});

const contentType = fc.oneof(
  fc.constantFrom("application/json", "application/json; charset=utf-8", "application/problem+json", "text/html", "text/plain"),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z.+-]{1,12}$/),
);
const body = (operationId: keyof typeof operations) => {
  const documented = success(operationId) as Record<string, unknown>;
  return fc.oneof(
    fc.constant(JSON.stringify(documented)),
    // The documented body with one top-level field removed or replaced.
    fc
      .constantFrom(...Object.keys(documented))
      .chain((key) => fc.oneof(fc.constant(undefined), fc.jsonValue()).map((value) => JSON.stringify({ ...documented, [key]: value }))),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
    fc.string().map((text) => JSON.stringify(documented).slice(0, text.length)),
  );
};
const response = fc.constantFrom(...operationIds).chain((operationId) =>
  fc.record({
    operationId: fc.constant(operationId),
    status: fc.oneof(fc.constant(operations[operationId].successStatus), fc.integer({ min: 200, max: 599 })),
    type: fc.option(contentType, { nil: undefined }),
    body: body(operationId),
  }),
);

it("any status, body and content type: the parsed documented JSON, or an OrgAgentError", async () => {
  let resolved = 0;
  await fc.assert(
    fc.asyncProperty(response, async ({ operationId, status, type, body }) => {
      reply = { kind: "raw", status, headers: type ? { "content-type": type } : {}, body };
      let result: unknown;
      try {
        result = await calls[operationId](client, {});
      } catch (error) {
        corpus.push(error);
        expect(error).toBeInstanceOf(OrgAgentError);
        // fetch itself turns a 407 into a network error (the Fetch standard): the SDK reports a connection error.
        if (status === 407) {
          expect(error).toBeInstanceOf(APIConnectionError);
        } else {
          expect(error).toBeInstanceOf(APIError);
          expect((error as APIError).status).toBe(status);
        }
        return;
      }
      resolved++;
      expect(status).toBeGreaterThanOrEqual(200);
      expect(status).toBeLessThan(300);
      expect(result).toEqual(JSON.parse(body));
      expect(typeof result === "object" && result !== null && !Array.isArray(result)).toBe(true);
    }),
    { numRuns: 400 },
  );
  expect(resolved).toBeGreaterThan(0); // the generator does reach the happy path
});

it("a 429 over the cap exposes the parsed wait as RateLimitError.retryAfter", async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 61, max: 10 ** 7 }), async (seconds) => {
      reply = { kind: "status", status: 429, headers: { "retry-after": String(seconds) } };
      const error = await calls.getComputer(client, { maxRetries: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfter).toBe(seconds * 1000);
    }),
    { numRuns: 50 },
  );
});

const headers = (entries: Record<string, string>) => new Headers(entries);
/** The wait a server asked for, in ms, as the SDK reads it (RateLimitError.retryAfter, the retry policy). */
const parseRetryAfter = (set: Headers, now?: number) => readRateSignal(set, now).retryAfter?.ms;

it("Retry-After in whole or decimal seconds, with any surrounding spaces, is that many seconds", () => {
  fc.assert(
    fc.property(fc.nat({ max: 10 ** 9 }), fc.option(fc.nat({ max: 999 })), fc.stringMatching(/^ {0,3}$/), (whole, fraction, pad) => {
      const text = fraction === null ? `${whole}` : `${whole}.${fraction}`;
      expect(parseRetryAfter(headers({ "retry-after": `${pad}${text}${pad}` }))).toBeCloseTo(Number(text) * 1000, 6);
    }),
  );
});

it("Retry-After as an HTTP date is the time until then (to the second), never negative", () => {
  const moment = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });
  fc.assert(
    fc.property(moment, moment, (date, now) => {
      const wait = parseRetryAfter(headers({ "retry-after": date.toUTCString() }), now.getTime());
      expect(wait).toBe(Math.max(0, Math.floor(date.getTime() / 1000) * 1000 - now.getTime()));
    }),
  );
});

it("retry-after-ms wins over Retry-After", () => {
  fc.assert(
    fc.property(fc.nat({ max: 10 ** 9 }), fc.nat({ max: 10 ** 6 }), (ms, seconds) => {
      expect(parseRetryAfter(headers({ "retry-after-ms": String(ms), "retry-after": String(seconds) }))).toBe(ms);
    }),
  );
});

it("any other value is ignored or a finite, non-negative wait: never NaN, Infinity or negative", () => {
  const value = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[ -~]{0,40}$/),
    fc.constantFrom("-1", "Infinity", "NaN", "1e3", "0x10", "abc 12", "a 3000", "12/25/2026", "2026", "Sun, 99 Foo 1994"),
  );
  fc.assert(
    fc.property(value, value, (retryAfter, retryAfterMs) => {
      const set: Record<string, string> = {};
      // Header values cannot hold control characters or surrounding whitespace; Headers would reject or trim them.
      if (/^[ -~]*$/.test(retryAfter)) set["retry-after"] = retryAfter;
      if (/^[ -~]*$/.test(retryAfterMs)) set["retry-after-ms"] = retryAfterMs;
      const wait = parseRetryAfter(headers(set));
      if (wait !== undefined) {
        expect(Number.isFinite(wait)).toBe(true);
        expect(wait).toBeGreaterThanOrEqual(0);
      }
      const numeric = (text: string | undefined) => text !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(text);
      const dated = /^\s*(mon|tue|wed|thu|fri|sat|sun)/i.test(set["retry-after"] ?? "");
      if (!numeric(set["retry-after-ms"]) && !numeric(set["retry-after"]) && !dated) expect(wait).toBeUndefined();
    }),
  );
});
