// Bulk credit limits: setUserLimits takes any number of entries, sends them in chunks of the spec's maxItems, and
// accounts for every entry exactly once: applied (`updated`) or not (`errors`, with the reason), in input order.
// The loopback server implements the endpoint: it refuses more than maxItems entries, reports a negative limit per
// entry in `errors` (a 200), and can be told to fail a given chunk.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { OrgAgent, ValidationError } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { operationFor } from "../support/spec.js";

type Entry = { email: string; limit: number };
const CHUNK = operations.setUserLimits.body.schema.properties.users.maxItems;
const NEGATIVE_REASON = "A credit limit cannot be negative.";

// Chunk number (0-based, counted by the server) → the status it fails with; `once` fails only the first attempt.
let failures = new Map<number, { status: 400 | 403 | 500; once?: boolean }>();
let server: Loopback;
let chunkSizes: number[];
let client: OrgAgent;

beforeAll(async () => {
  server = await startLoopback((request) => {
    if (operationFor(request.method, request.pathname) !== "setUserLimits") return { status: 404, body: {} };
    const users: Entry[] = request.body?.users ?? [];
    const n = chunkSizes.push(users.length) - 1;
    if (users.length < 1 || users.length > CHUNK) {
      return { status: 400, body: { title: "Bad Request", detail: `users must hold 1 to ${CHUNK} entries`, status: 400 } };
    }
    const failure = failures.get(n);
    if (failure) {
      if (failure.once) failures.delete(n);
      const title = failure.status === 400 ? "Bad Request" : "Internal Server Error";
      return {
        status: failure.status,
        body: { title, detail: `chunk ${n} refused`, status: failure.status, requestId: `req_chunk_${n}` },
      };
    }
    return {
      body: {
        updated: users.filter((u) => u.limit >= 0),
        errors: users.filter((u) => u.limit < 0).map((u) => ({ email: u.email, error: NEGATIVE_REASON })),
      },
    };
  });
  client = new OrgAgent({ apiKey: "k", baseUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());
beforeEach(() => {
  failures = new Map();
  chunkSizes = [];
  server.requests.length = 0;
});

/** `count` entries; every `negativeEvery`-th has a negative limit, which the server refuses per entry. */
function entries(count: number, negativeEvery = 0): Entry[] {
  return Array.from({ length: count }, (_, i) => ({
    email: `user${i}@acme-robotics.example`,
    limit: negativeEvery && i % negativeEvery === negativeEvery - 1 ? -1 : 1000 + i,
  }));
}

const emails = (list: { email: string }[]) => list.map((e) => e.email);

/** Every input entry is in exactly one of updated/errors, and both lists keep the input order. */
function expectAccountedFor(input: Entry[], result: { updated: Entry[]; errors: { email: string }[] }) {
  const all = [...emails(result.updated), ...emails(result.errors)];
  expect(all.sort()).toEqual(emails(input).sort());
  const position = new Map(input.map((e, i) => [e.email, i]));
  const ascending = (list: { email: string }[]) =>
    list.map((e) => position.get(e.email)!).every((p, i, arr) => i === 0 || arr[i - 1]! < p);
  expect(ascending(result.updated)).toBe(true);
  expect(ascending(result.errors)).toBe(true);
}

describe("chunking", () => {
  it("the chunk size is the spec's maxItems", () => {
    expect(CHUNK).toBe(operations.setUserLimits.body.schema.properties.users.maxItems);
    expect(CHUNK).toBeGreaterThan(1);
  });

  it("0 entries: ValidationError, nothing sent", async () => {
    await expect(client.usageLimits.setUserLimits([])).rejects.toBeInstanceOf(ValidationError);
    await expect(client.usageLimits.setUserLimits([])).rejects.toThrow(/users/);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [1, [1]],
    [CHUNK, [CHUNK]],
    [CHUNK + 1, [CHUNK, 1]],
    [CHUNK * 10, Array(10).fill(CHUNK)],
  ])("%i entries are sent as chunks of %j", async (count, sizes) => {
    const input = entries(count);
    const result = await client.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual(sizes);
    expect(server.requests.every((r) => r.method === operations.setUserLimits.method)).toBe(true);
    // The chunks, concatenated, are the input in order.
    expect(server.requests.flatMap((r) => r.body.users)).toEqual(input);
    expect(result).toEqual({ updated: input, errors: [] });
  });
});

describe("results", () => {
  it("a 200 whose errors is non-empty is a result, merged over chunks in input order", async () => {
    const input = entries(CHUNK * 10, 7);
    const result = await client.usageLimits.setUserLimits(input);

    expect(chunkSizes).toHaveLength(10);
    expect(result.updated).toEqual(input.filter((e) => e.limit >= 0));
    expect(result.errors).toEqual(input.filter((e) => e.limit < 0).map((e) => ({ email: e.email, error: NEGATIVE_REASON })));
    expectAccountedFor(input, result);
  });

  it("a chunk refused with 400 comes back in errors with the reason; the other chunks are still applied", async () => {
    const input = entries(CHUNK * 2 + 50, 9);
    failures.set(1, { status: 400 });
    const result = await client.usageLimits.setUserLimits(input);

    expect(chunkSizes).toEqual([CHUNK, CHUNK, 50]);
    const refused = input.slice(CHUNK, CHUNK * 2);
    const applied = [...input.slice(0, CHUNK), ...input.slice(CHUNK * 2)];
    expect(result.updated).toEqual(applied.filter((e) => e.limit >= 0));
    expect(emails(result.errors)).toEqual(
      emails(input.filter((e, i) => e.limit < 0 || (i >= CHUNK && i < CHUNK * 2))),
    );
    for (const error of result.errors.filter((e) => emails(refused).includes(e.email))) {
      expect(error.error).toMatch(/^not applied: /); // a 400 is a refusal: nothing of the chunk was applied
      expect(error.error).toContain("400");
      expect(error.error).toContain("chunk 1 refused");
    }
    expectAccountedFor(input, result);
  });

  it("a chunk failing with 500 stops the rest; unsent entries are reported as not sent", async () => {
    const input = entries(CHUNK * 3 + 1);
    failures.set(1, { status: 500 });
    const result = await client.usageLimits.setUserLimits(input);

    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(emails(result.errors)).toEqual(emails(input.slice(CHUNK)));
    const failed = result.errors.slice(0, CHUNK);
    const unsent = result.errors.slice(CHUNK);
    // After a 500 the server may have applied the chunk: the reason says so rather than claiming it was not.
    expect(failed.every((e) => /^may have been applied: /.test(e.error) && e.error.includes("500"))).toBe(true);
    expect(unsent.every((e) => /not sent/.test(e.error) && e.error.includes("chunk 1 refused"))).toBe(true);
    expectAccountedFor(input, result);
  });

  it("a first chunk failing with 403 throws PermissionDeniedError: nothing was applied, nothing is lost", async () => {
    failures.set(0, { status: 403 });
    await expect(client.usageLimits.setUserLimits(entries(CHUNK + 1))).rejects.toMatchObject({
      name: "PermissionDeniedError",
      status: 403,
    });
    expect(chunkSizes).toEqual([CHUNK]);
  });

  it("an abort is thrown, not folded into the result", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client.usageLimits.setUserLimits(entries(CHUNK + 1), { signal: controller.signal })).rejects.toMatchObject({
      name: "APIUserAbortError",
    });
  });

  it("a chunk failing once with 500 is retried (PUT is idempotent) and then applied", async () => {
    const retrying = new OrgAgent({
      apiKey: "k",
      baseUrl: server.url,
      maxRetries: 1,
      backoff: { initial: 1, max: 1 },
      logLevel: "off",
    });
    const input = entries(CHUNK + 1);
    failures.set(0, { status: 500, once: true });
    const result = await retrying.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, CHUNK, 1]);
    expect(result).toEqual({ updated: input, errors: [] });
  });
});
