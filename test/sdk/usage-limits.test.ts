// Bulk credit limits: setUserLimits takes any number of entries, checks them all before sending anything, sends the
// last entry of each person in chunks of the spec's maxItems (several at once with `concurrency`), and accounts for
// every entry exactly once: applied (`updated`), not (`errors`, with its position and the reason) or decided by a later
// entry (`superseded`), in input order, whatever the order the chunks complete in. An aborted call says what it had
// done. A throttled chunk waits inside its own call. The loopback server implements the endpoint: it
// refuses more than maxItems entries, reports an unknown e-mail per entry in `errors` (a 200), can be told to fail
// a given chunk, to hold one, and counts the chunks in flight at once.
import { getEventListeners } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import {
  InvalidEntriesError,
  PermissionDeniedError,
  OrgAgent,
  UserLimitsAbortedError,
  ValidationError,
  type RequestPlugin,
  type UserLimitsProgress,
  type UserLimitsResult,
} from "../../src/index.js";
import { startLoopback, type Loopback, type Reply } from "./support/loopback.js";
import { operationFor } from "../support/spec.js";

type Entry = { email: string; limit: number };
const CHUNK = operations.setUserLimits.body.schema.properties.users.maxItems;
const UNKNOWN_REASON = "No user with this e-mail in the organization.";

type Failure = { status: number; once?: boolean; headers?: Record<string, string> | undefined };
// Chunk number (0-based, by arrival at the server) → the status it fails with; `once` fails only the first attempt.
let failures = new Map<number, Failure>();
// Chunks (by their first entry's e-mail) the server holds until `release` is called.
let held = new Map<string, { arrived: () => void; release: Promise<void> }>();
// When set, answers a chunk (after any hold or delay) instead of the rules above, unless it returns undefined.
let respond: ((users: Entry[]) => Reply | undefined) | undefined;
let server: Loopback;
let chunkSizes: number[];
let inFlight = 0;
let mostInFlight = 0;
let delayMs = 0;
let client: OrgAgent;

beforeAll(async () => {
  server = await startLoopback(async (request) => {
    if (operationFor(request.method, request.pathname) !== "setUserLimits") return { status: 404, body: {} };
    const users: Entry[] = request.body?.users ?? [];
    const n = chunkSizes.push(users.length) - 1;
    if (users.length < 1 || users.length > CHUNK) {
      return { status: 400, body: { title: "Bad Request", detail: `users must hold 1 to ${CHUNK} entries`, status: 400 } };
    }
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      const hold = held.get(users[0]!.email);
      if (hold) {
        hold.arrived();
        await hold.release;
      }
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const custom = respond?.(users);
      if (custom) return custom;
      const failure = failures.get(n);
      if (failure) {
        if (failure.once) failures.delete(n);
        return {
          status: failure.status,
          ...(failure.headers ? { headers: failure.headers } : {}),
          body: { title: `Failure ${failure.status}`, detail: `chunk ${n} refused`, status: failure.status, requestId: `req_chunk_${n}` },
        };
      }
      return {
        body: {
          updated: users.filter((u) => !u.email.startsWith("unknown")),
          errors: users.filter((u) => u.email.startsWith("unknown")).map((u) => ({ email: u.email, error: UNKNOWN_REASON })),
        },
      };
    } finally {
      inFlight--;
    }
  });
  client = new OrgAgent({ apiKey: "k", baseUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());
beforeEach(() => {
  failures = new Map();
  held = new Map();
  respond = undefined;
  chunkSizes = [];
  mostInFlight = 0;
  delayMs = 0;
  server.requests.length = 0;
});

/** A client of the server with a key of its own: its rate controller is its own too (a throttle leaves no hold behind). */
let keys = 0;
const freshClient = (options: Partial<ConstructorParameters<typeof OrgAgent>[0]> = {}) =>
  new OrgAgent({ apiKey: `key-${++keys}`, baseUrl: server.url, maxRetries: 0, logLevel: "off", ...options });

/** The result of a job that applied every entry of `input`, each the last of its person. */
const allApplied = (input: Entry[], throttled = 0): UserLimitsResult => ({ updated: input, errors: [], superseded: [], throttled });

/** `count` entries; every `unknownEvery`-th names nobody, which the server reports per entry. */
function entries(count: number, unknownEvery = 0): Entry[] {
  return Array.from({ length: count }, (_, i) => ({
    email: `${unknownEvery && i % unknownEvery === unknownEvery - 1 ? "unknown" : "user"}${i}@acme-robotics.example`,
    limit: 1000 + i,
  }));
}

const emails = (list: { email: string }[]) => list.map((e) => e.email);
const known = (e: Entry) => !e.email.startsWith("unknown");

/** Holds the chunk that starts with `entry` at the server; resolves `arrived` when it is there. */
function hold(entry: Entry) {
  let arrived!: () => void;
  let release!: () => void;
  const there = new Promise<void>((resolve) => (arrived = resolve));
  held.set(entry.email, { arrived, release: new Promise<void>((resolve) => (release = resolve)) });
  return { there, release };
}

/**
 * Every input entry is in exactly one of updated/errors/superseded, errors and superseded entries say their positions,
 * and the lists keep input order.
 */
function expectAccountedFor(input: Entry[], result: UserLimitsResult) {
  const all = [...emails(result.updated), ...emails(result.errors), ...emails(result.superseded)];
  expect(all.sort()).toEqual(emails(input).sort());
  for (const entry of result.superseded) {
    expect(input[entry.index]).toEqual({ email: entry.email, limit: entry.limit });
    expect(entry.by).toBeGreaterThan(entry.index);
    expect(input[entry.by]!.email.toLowerCase()).toBe(entry.email.toLowerCase());
  }
  for (const error of result.errors) expect(input[error.index]!.email).toBe(error.email);
  const position = new Map(input.map((e, i) => [e.email, i]));
  const ascending = (list: { email: string }[]) => list.map((e) => position.get(e.email)!).every((p, i, arr) => i === 0 || arr[i - 1]! < p);
  expect(ascending(result.updated)).toBe(true);
  expect(ascending(result.errors)).toBe(true);
}

/** A port with nothing listening on it: a connection there is refused before anything is sent. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("chunking", () => {
  it("the chunk size is the spec's maxItems", () => {
    expect(CHUNK).toBe(operations.setUserLimits.body.schema.properties.users.maxItems);
    expect(CHUNK).toBeGreaterThan(1);
  });

  it("0 entries: ValidationError, nothing sent", async () => {
    await expect(client.usageLimits.setUserLimits([])).rejects.toBeInstanceOf(ValidationError);
    await expect(client.usageLimits.setUserLimits([])).rejects.toThrow(
      /^users: .* expected a non-empty array of \{ email, limit \} entries$/,
    );
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
    expect(result).toEqual(allApplied(input));
  });
});

describe("bad entries: every one, with its position, before anything is sent", () => {
  it("one bad entry is a ValidationError naming its position and field", async () => {
    const input = entries(CHUNK * 2);
    input[150] = { email: input[150]!.email, limit: -5 };
    const error = await client.usageLimits.setUserLimits(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "users[150].limit", value: -5, entries: [{ index: 150 }] });
    expect((error as Error).message).toMatch(/^users\[150\]\.limit: -5 is not allowed; expected .*0/);
    expect(server.requests).toHaveLength(0);
  });

  it("several bad entries are reported together, each with its position; a negative limit is one (the spec's minimum is 0)", async () => {
    const input: Entry[] = entries(CHUNK * 3);
    input[3] = { email: "", limit: 1 };
    input[120] = { email: input[120]!.email, limit: -5 };
    input[250] = { email: input[250]!.email, limit: 2.5 };
    const error = (await client.usageLimits.setUserLimits(input).catch((e: unknown) => e)) as InvalidEntriesError;
    expect(error).toBeInstanceOf(InvalidEntriesError);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.entries.map((e) => [e.index, e.error.field, e.error.value])).toEqual([
      [3, "users[3].email", ""],
      [120, "users[120].limit", -5],
      [250, "users[250].limit", 2.5],
    ]);
    expect(error).toMatchObject({
      name: "InvalidEntriesError",
      field: "users",
      value: [3, 120, 250], // the positions of the bad entries
      allowed: "entries that follow the API's rule for a limit entry",
    });
    expect(error.message).toMatch(
      /^users: 3 entries are not allowed, nothing was sent: users\[3\]\.email: .*; users\[120\]\.limit: -5 .*; users\[250\]\.limit: 2\.5 /,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("a message lists the first ten of many; the error holds them all", async () => {
    const input = entries(500).map((e, i) => (i % 20 === 0 ? { ...e, limit: -1 } : e));
    const error = (await client.usageLimits.setUserLimits(input).catch((e: unknown) => e)) as InvalidEntriesError;
    expect(error.entries).toHaveLength(25);
    expect(error.message).toContain("… and 15 more");
    // The ten listed are the first ten bad entries.
    expect(error.message.match(/users\[\d+\]\.limit/g)).toEqual(
      [0, 20, 40, 60, 80, 100, 120, 140, 160, 180].map((i) => `users[${i}].limit`),
    );
    expect(server.requests).toHaveLength(0);
  });

  it("ten bad entries are all listed, with no “and more”", async () => {
    const input = entries(200).map((e, i) => (i % 20 === 0 ? { ...e, limit: -1 } : e));
    const error = (await client.usageLimits.setUserLimits(input).catch((e: unknown) => e)) as InvalidEntriesError;
    expect(error.entries).toHaveLength(10);
    expect(error.message.match(/users\[\d+\]\.limit/g)).toHaveLength(10);
    expect(error.message).not.toContain("more");
  });

  it("an error other than a broken rule, met while reading an entry, is thrown as it is, nothing sent", async () => {
    const unreadable = new TypeError("entry unreadable");
    const input = entries(3);
    Object.defineProperty(input[1], "email", {
      enumerable: true,
      get() {
        throw unreadable;
      },
    });
    await expect(client.usageLimits.setUserLimits(input)).rejects.toBe(unreadable);
    expect(server.requests).toHaveLength(0);
  });

  it("an onProgress that is not a function is a ValidationError naming options.onProgress, before anything is sent", async () => {
    for (const onProgress of ["log", 42, { report: true }]) {
      const error = await client.usageLimits.setUserLimits(entries(1), { onProgress: onProgress as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ field: "options.onProgress", value: typeof onProgress, allowed: "a function" });
      expect((error as Error).message).toBe(`options.onProgress: a ${typeof onProgress} is not allowed; expected a function`);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe("results", () => {
  it("a 200 whose errors is non-empty is a result, merged over chunks in input order, each error with its position", async () => {
    const input = entries(CHUNK * 10, 7);
    const result = await client.usageLimits.setUserLimits(input);

    expect(chunkSizes).toHaveLength(10);
    expect(result.updated).toEqual(input.filter(known));
    expect(result.errors).toEqual(input.flatMap((e, index) => (known(e) ? [] : [{ email: e.email, error: UNKNOWN_REASON, index }])));
    expectAccountedFor(input, result);
  });

  it("an e-mail given twice: only the last entry is sent, and the earlier one is superseded by it, sharing its outcome", async () => {
    const input = [
      { email: "UNKNOWN-A@x.example", limit: 1 },
      { email: "ok@x.example", limit: 2 },
      { email: "unknown-a@x.example", limit: 3 },
    ];
    const result = await client.usageLimits.setUserLimits(input);
    expect(server.requests.flatMap((r) => r.body.users)).toEqual([input[1], input[2]]);
    expect(result).toEqual({
      updated: [input[1]],
      errors: [{ email: "unknown-a@x.example", error: UNKNOWN_REASON, index: 2 }],
      superseded: [{ email: "UNKNOWN-A@x.example", limit: 1, index: 0, by: 2 }],
      throttled: 0,
    });
    expectAccountedFor(input, result);
  });

  it("superseded entries are listed in input order, though the entries deciding them go in different chunks", async () => {
    const rest = entries(CHUNK + 1);
    // Entry 0 is decided by the last entry (in the second chunk), entry 1 by entry 2 (in the first).
    const input = [{ email: rest[CHUNK]!.email, limit: 1 }, { email: rest[0]!.email, limit: 2 }, ...rest];
    const result = await client.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, 1]);
    expect(result.superseded).toEqual([
      { ...input[0]!, index: 0, by: CHUNK + 2 },
      { ...input[1]!, index: 1, by: 2 },
    ]);
    expectAccountedFor(input, result);
  });

  it("a chunk refused with 400 comes back in errors with the reason; the other chunks are still applied", async () => {
    const input = entries(CHUNK * 2 + 50, 9);
    failures.set(1, { status: 400 });
    const result = await client.usageLimits.setUserLimits(input);

    expect(chunkSizes).toEqual([CHUNK, CHUNK, 50]);
    const refused = input.slice(CHUNK, CHUNK * 2);
    const applied = [...input.slice(0, CHUNK), ...input.slice(CHUNK * 2)];
    expect(result.updated).toEqual(applied.filter(known));
    expect(emails(result.errors)).toEqual(emails(input.filter((e, i) => !known(e) || (i >= CHUNK && i < CHUNK * 2))));
    for (const error of result.errors.filter((e) => emails(refused).includes(e.email))) {
      expect(error.error).toMatch(/^not applied: /); // a 400 is a refusal: nothing of the chunk was applied
      expect(error.error).toContain("400");
      expect(error.error).toContain("chunk 1 refused");
    }
    expectAccountedFor(input, result);
  });

  it("409 on the second chunk is about that chunk: the third is still sent", async () => {
    const input = entries(CHUNK * 3);
    failures.set(1, { status: 409 });
    const result = await client.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, CHUNK, CHUNK]);
    expect(result.updated).toEqual([...input.slice(0, CHUNK), ...input.slice(CHUNK * 2)]);
    expect(result.errors.every((e) => /^not applied: 409/.test(e.error))).toBe(true);
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

  it("408 (the server gave up waiting) on the second chunk: it may have been applied", async () => {
    const input = entries(CHUNK * 2);
    failures.set(1, { status: 408 });
    const result = await client.usageLimits.setUserLimits(input);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(result.errors.every((e) => /^may have been applied: 408/.test(e.error))).toBe(true);
    expectAccountedFor(input, result);
  });

  it("a connection refused on the second chunk: not applied (it never left), and the rest not sent", async () => {
    const input = entries(CHUNK * 3);
    const refusedAt = `http://127.0.0.1:${await closedPort()}`;
    let calls = 0;
    const refusing = new OrgAgent({
      apiKey: "k",
      baseUrl: server.url,
      maxRetries: 0,
      logLevel: "off",
      fetch: (url, init) => fetch(calls++ === 1 ? String(url).replace(server.url, refusedAt) : url, init),
    });
    const result = await refusing.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(result.errors.slice(0, CHUNK).every((e) => /^not applied: Connection error: .*ECONNREFUSED/.test(e.error))).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed/.test(e.error))).toBe(true);
    expectAccountedFor(input, result);
  });

  it("a chunk whose request timed out may have been applied (it may have reached the service), and the rest is not sent", async () => {
    const input = entries(CHUNK * 3);
    const second = hold(input[CHUNK]!);
    const result = await client.usageLimits.setUserLimits(input, { timeout: 1_000 }).finally(() => second.release());
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(result.errors.slice(0, CHUNK).every((e) => /^may have been applied: /.test(e.error))).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed/.test(e.error))).toBe(true);
    expectAccountedFor(input, result);
  });

  it("a chunk answered 200 with a body that is not the API's answer: it may have been applied, and the rest is not sent", async () => {
    const input = entries(CHUNK * 3);
    respond = (users) => (users[0]!.email === input[CHUNK]!.email ? { status: 200, body: "<html>maintenance</html>" } : undefined);
    const result = await client.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(result.errors.slice(0, CHUNK).every((e) => /^may have been applied: 200: expected JSON, got text\/plain/.test(e.error))).toBe(
      true,
    );
    expect(result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed \(200: /.test(e.error))).toBe(true);
    expectAccountedFor(input, result);
  });

  it.each([
    ["that is null", null],
    ["that is a string", "over the org limit"],
    ["whose e-mail is not a string", { email: 5, error: "over the org limit" }],
  ])("an answer with an error item %s: that chunk may have been applied, the rest is not sent, nothing is lost", async (_, item) => {
    const input = entries(CHUNK * 3);
    respond = (users) => (users[0]!.email === input[CHUNK]!.email ? { body: { updated: [], errors: [item] } } : undefined);
    const told: number[] = [];
    const result = await client.usageLimits.setUserLimits(input, { onProgress: (p) => void told.push(p.chunk) });
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(told).toEqual([0, 1]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    const unknown = /^may have been applied: 200: item 0 of `errors` cannot be read as an entry's error, so what was applied is unknown/;
    expect(result.errors.slice(0, CHUNK).every((e) => unknown.test(e.error))).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed \(200: item 0 /.test(e.error))).toBe(true);
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

  it("a first chunk refused with 403 while the other waits in a plugin that fails on its own: the 403 is thrown, nothing was applied", async () => {
    const input = entries(CHUNK * 2);
    respond = (users) =>
      users[0]!.email === input[0]!.email ? { status: 403, body: { title: "Forbidden", detail: "no", status: 403 } } : undefined;
    let attempts = 0;
    // The second chunk's attempt waits here until the job stops it, then ends with the plugin's own error.
    const holding: RequestPlugin = {
      beforeAttempt: ({ signal }) =>
        ++attempts === 1
          ? undefined
          : new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("plugin gave up")))),
    };
    const error = await freshClient({ plugins: [holding] })
      .usageLimits.setUserLimits(input, { concurrency: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(chunkSizes).toEqual([CHUNK]);
  });

  it("a first chunk failing with 500 is a result, not a throw: it may have been applied", async () => {
    const input = entries(CHUNK + 1);
    failures.set(0, { status: 500 });
    const result = await client.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK]);
    expect(result.updated).toEqual([]);
    expect(result.errors.slice(0, CHUNK).every((e) => /^may have been applied: 500/.test(e.error))).toBe(true);
    expect(result.errors[CHUNK]).toMatchObject({ index: CHUNK, error: expect.stringMatching(/^not sent/) });
  });

  it("a fault thrown by code a chunk's call runs (a plugin) is thrown as it is, once the job stops; onProgress hears only of the chunks answered", async () => {
    const fault = new TypeError("plugin broke");
    let attempts = 0;
    const afterAttempt = () => {
      if (++attempts === 2) throw fault;
    };
    const told: number[] = [];
    const error = await freshClient({ plugins: [{ afterAttempt }] })
      .usageLimits.setUserLimits(entries(CHUNK * 3), { onProgress: (p) => void told.push(p.chunk) })
      .catch((e: unknown) => e);
    expect(error).toBe(fault);
    expect(told).toEqual([0]);
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
  });

  it("a fault thrown as a chunk refused with 429 goes again is thrown as it is, and nothing more is sent", async () => {
    const fault = new TypeError("plugin broke");
    const beforeAttempt = ({ attempt }: { attempt: number }) => {
      if (attempt === 2) throw fault;
    };
    failures.set(0, { status: 429, once: true, headers: { "retry-after-ms": "20" } });
    const pending = freshClient({ plugins: [{ beforeAttempt }] }).usageLimits.setUserLimits(entries(CHUNK * 2));
    await expect(pending).rejects.toBe(fault);
    expect(chunkSizes).toEqual([CHUNK]);
  });

  it("an abort before anything is sent is thrown, not folded into the result", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client.usageLimits.setUserLimits(entries(CHUNK + 1), { signal: controller.signal })).rejects.toMatchObject({
      name: "APIUserAbortError",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("an error of the caller's own code (a middleware that throws) is thrown as it is, not folded into the result", async () => {
    const own = new Error("middleware broke");
    const broken = freshClient();
    broken.use({
      onRequest: () => {
        throw own;
      },
    });
    await expect(broken.usageLimits.setUserLimits(entries(CHUNK + 1))).rejects.toBe(own);
    expect(server.requests).toHaveLength(0);
  });

  it("a chunk failing once with 500 is retried (PUT is idempotent) and then applied", async () => {
    const retrying = new OrgAgent({ apiKey: "k", baseUrl: server.url, maxRetries: 1, backoff: { initial: 1, max: 1 }, logLevel: "off" });
    const input = entries(CHUNK + 1);
    failures.set(0, { status: 500, once: true });
    const result = await retrying.usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, CHUNK, 1]);
    expect(result).toEqual(allApplied(input));
  });
});

describe("concurrency", () => {
  it("chunks go out `concurrency` at once, never more, and the result is the sequential one", async () => {
    delayMs = 20;
    const input = entries(CHUNK * 12 + 3, 11);
    const sequential = await client.usageLimits.setUserLimits(input);
    expect(mostInFlight).toBe(1);
    mostInFlight = 0;
    const concurrent = await client.usageLimits.setUserLimits(input, { concurrency: 4 });
    expect(mostInFlight).toBe(4);
    expect(concurrent).toEqual(sequential);
    expectAccountedFor(input, concurrent);
  });

  it("is checked: an integer from 1 to 64", async () => {
    for (const concurrency of [0, 1.5, 65, Number.NaN]) {
      await expect(client.usageLimits.setUserLimits(entries(1), { concurrency })).rejects.toMatchObject({
        name: "ValidationError",
        field: "options.concurrency",
      });
    }
    expect(server.requests).toHaveLength(0);
  });

  it("a failure that stops the job lets the chunks in flight finish, and sends none of the others", async () => {
    delayMs = 30;
    const input = entries(CHUNK * 10);
    failures.set(2, { status: 500 });
    const result = await client.usageLimits.setUserLimits(input, { concurrency: 3 });
    // The three first chunks were in flight together; chunk 2 failed while 0 and 1 were answered; 3+ never went.
    const arrived = server.requests.map((r) => r.body.users[0].email);
    const sentIndexes = arrived.map((email) => input.findIndex((e) => e.email === email) / CHUNK).sort((a, b) => a - b);
    expect(sentIndexes.slice(0, 3)).toEqual([0, 1, 2]);
    const sent = new Set(server.requests.flatMap((r) => emails(r.body.users)));
    for (const error of result.errors.filter((e) => /^not sent/.test(e.error))) expect(sent.has(error.email)).toBe(false);
    for (const entry of result.updated) expect(sent.has(entry.email)).toBe(true);
    expectAccountedFor(input, result);
  });

  it("nothing is sent once onProgress has heard of a failure that stops the job, whatever the order the answers settle in", async () => {
    const input = entries(CHUNK * 3);
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    // No server: the first two chunks' answers are let go together, the failure some turns of the microtask queue
    // before or after the success that frees a place for the third chunk, so that in some run the job stops between
    // the third chunk getting its place and its request starting.
    for (let turns = -12; turns <= 12; turns++) {
      const events: string[] = [];
      const held: Array<(response: Response) => void> = [];
      let bothThere!: () => void;
      const there = new Promise<void>((resolve) => (bothThere = resolve));
      const local = freshClient({
        fetch: async (url, init) => {
          // The chunks go in order (each takes its place by its position): the nth request is chunk n.
          const chunk = events.filter((e) => e.startsWith("sent")).length;
          events.push(`sent ${chunk}`);
          const { users } = (await new Request(url, init).json()) as { users: Entry[] };
          expect(users[0]).toEqual(input[chunk * CHUNK]);
          if (chunk === 2) return json(200, { updated: users, errors: [] });
          return new Promise<Response>((answer) => {
            held[chunk] = answer;
            if (held.filter(Boolean).length === 2) bothThere();
          });
        },
      });
      const pending = local.usageLimits.setUserLimits(input, {
        concurrency: 2,
        onProgress: ({ chunk, errors }) => void events.push(`${errors.length ? "failed" : "applied"} ${chunk}`),
      });
      await there;
      const ok = () => held[0]!(json(200, { updated: input.slice(0, CHUNK), errors: [] }));
      const broke = () => held[1]!(json(500, { title: "Internal", detail: "chunk two broke", status: 500 }));
      const [early, late] = turns < 0 ? [broke, ok] : [ok, broke];
      early();
      for (let t = 0; t < Math.abs(turns); t++) await Promise.resolve();
      late();
      await pending;
      const stopped = events.indexOf("failed 1");
      expect(stopped, `turns ${turns}: ${events.join(", ")}`).toBeGreaterThan(events.lastIndexOf("sent 2"));
    }
  });

  it("the same person in several chunks (in any letter case): only the last entry is sent, and every chunk is in flight at once", async () => {
    const input = entries(CHUNK * 6);
    // The person of entry 5 again, in capitals, in the last chunk: that entry decides; entry 5 is not sent.
    input[CHUNK * 5 + 7] = { email: input[5]!.email.toUpperCase(), limit: 42 };
    // The chunks of the deciding entries start at entry 0, then CHUNK + 1, 2 × CHUNK + 1, …
    const holds = [0, 1, 2, 3, 4, 5].map((c) => hold(input[c === 0 ? 0 : c * CHUNK + 1]!));
    const pending = client.usageLimits.setUserLimits(input, { concurrency: 6 });
    const allThere = await Promise.race([Promise.all(holds.map((h) => h.there)).then(() => true), sleep(5_000).then(() => false)]);
    for (const h of holds) h.release();
    const result = await pending;
    expect(allThere).toBe(true);
    expect(server.requests.flatMap((r) => emails(r.body.users))).toHaveLength(input.length - 1);
    expect(server.requests.some((r) => r.body.users.some((u: Entry) => u.email === input[5]!.email))).toBe(false);
    expect(result.superseded).toEqual([{ ...input[5]!, index: 5, by: CHUNK * 5 + 7 }]);
    expect(result.updated).toEqual(input.filter((_, i) => i !== 5));
    expectAccountedFor(input, result);
  });

  it("429s are waited out and sent again inside each chunk's call, without using up maxRetries (0 here): no chunk fails", async () => {
    // Every chunk's first attempt is refused with a short Retry-After.
    const input = entries(CHUNK * 8);
    for (let n = 0; n < 8; n++) failures.set(n, { status: 429, once: true, headers: { "retry-after-ms": "20" } });
    const result = await freshClient().usageLimits.setUserLimits(input, { concurrency: 8 });
    expect(result).toEqual(allApplied(input, 8));
    expect(server.requests).toHaveLength(16);
  });

  it("a 503 under overload (with or without Retry-After) is waited out and sent again too: the limits PUT is idempotent", async () => {
    const input = entries(CHUNK * 4);
    failures.set(0, { status: 503, once: true, headers: { "retry-after": "0" } });
    failures.set(1, { status: 503, once: true });
    const throttled: number[] = [];
    const result = await freshClient().usageLimits.setUserLimits(input, {
      concurrency: 2,
      onProgress: (p) => void throttled.push(p.throttled),
    });
    expect(result).toEqual(allApplied(input, 2));
    expect(server.requests).toHaveLength(6);
    expect(Math.max(...throttled)).toBe(2);
  });
});

describe("progress", () => {
  it("onProgress hears of each chunk as it completes, with its outcome and the running total", async () => {
    const input = entries(CHUNK * 5 + 20, 13);
    failures.set(2, { status: 422 });
    const progress: UserLimitsProgress[] = [];
    const result = await client.usageLimits.setUserLimits(input, { concurrency: 3, onProgress: (p) => progress.push(p) });
    expect(progress.map((p) => p.chunk).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(progress.map((p) => p.done)).toEqual([CHUNK, CHUNK * 2, CHUNK * 3, CHUNK * 4, CHUNK * 5, CHUNK * 5 + 20]);
    expect(progress.every((p) => p.total === input.length && p.chunks === 6)).toBe(true);
    // Together the progress reports are the result.
    const byChunk = [...progress].sort((a, b) => a.chunk - b.chunk);
    expect(byChunk.flatMap((p) => p.updated)).toEqual(result.updated);
    expect(byChunk.flatMap((p) => p.errors)).toEqual(result.errors);
    expect(progress.find((p) => p.errors.some((e) => /^not applied: 422/.test(e.error)))).toBeDefined();
  });

  it("an exception thrown by onProgress stops sending; the call rejects with what was done and the exception as cause", async () => {
    const boom = new Error("progress bar broke");
    const input = entries(CHUNK * 4, 9);
    const error = await client.usageLimits
      .setUserLimits(input, {
        onProgress: () => {
          throw boom;
        },
      })
      .catch((e: unknown) => e);
    expect(chunkSizes).toEqual([CHUNK]);
    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    expect(error).toMatchObject({
      cause: boom,
      message: expect.stringMatching(
        /^setUserLimits stopped: onProgress threw .*: 89 limits applied, 11 not applied, 0 in flight \(may have been applied\), 300 not sent\.$/,
      ),
    });
    const { partial } = error as UserLimitsAbortedError;
    // The chunk it was told of was applied, and nothing of it is lost; the rest were never sent.
    expect(partial.updated).toEqual(input.slice(0, CHUNK).filter(known));
    expect(partial.errors.map((e) => e.index)).toEqual(input.slice(0, CHUNK).flatMap((e, index) => (known(e) ? [] : [index])));
    expect(partial.uncertain).toEqual([]);
    expect(partial.notSent).toEqual(input.slice(CHUNK).map((e, i) => ({ ...e, index: CHUNK + i })));
  });

  it("with chunks in flight when onProgress throws: they finish and are in the partial result; it is not called again", async () => {
    delayMs = 20;
    const input = entries(CHUNK * 9);
    let calls = 0;
    const error = (await client.usageLimits
      .setUserLimits(input, {
        concurrency: 3,
        onProgress: () => {
          calls++;
          throw new Error("progress bar broke");
        },
      })
      .catch((e: unknown) => e)) as UserLimitsAbortedError;
    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    expect(calls).toBe(1);
    const { partial } = error;
    expect(partial.uncertain).toEqual([]);
    // Every chunk that reached the server is applied in the result, every other one is not sent: nothing is lost.
    expect(partial.updated.length).toBe(chunkSizes.length * CHUNK);
    expect(chunkSizes.length).toBeGreaterThanOrEqual(2);
    expect(chunkSizes.length).toBeLessThanOrEqual(3);
    expect(partial.updated.length + partial.notSent.length).toBe(input.length);
  });

  it("an exception thrown by onProgress for the last chunk: everything was applied, and the result is in the error", async () => {
    const boom = new Error("progress bar broke");
    const input = entries(CHUNK + 5);
    const error = (await client.usageLimits
      .setUserLimits(input, {
        onProgress: ({ done, total }) => {
          if (done === total) throw boom;
        },
      })
      .catch((e: unknown) => e)) as UserLimitsAbortedError;
    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    expect(error.cause).toBe(boom);
    expect(error.partial).toEqual({ ...allApplied(input), uncertain: [], notSent: [] });
  });
});

describe("aborted part-way: the error carries what was done", () => {
  it("applied, in flight (may have been applied) and not sent: every entry in exactly one list", async () => {
    const input = entries(CHUNK * 8, 17);
    const controller = new AbortController();
    // Chunks 0 and 1 are answered; 2 and 3 are held at the server when the call is aborted; 4 to 7 wait their turn.
    const held2 = hold(input[CHUNK * 2]!);
    const held3 = hold(input[CHUNK * 3]!);
    const pending = client.usageLimits.setUserLimits(input, { concurrency: 2, signal: controller.signal });
    await Promise.all([held2.there, held3.there]);
    controller.abort();
    const error = (await pending.catch((e: unknown) => e)) as UserLimitsAbortedError;
    held2.release();
    held3.release();

    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    expect(error.name).toBe("UserLimitsAbortedError");
    expect(error).toBeInstanceOf((await import("../../src/index.js")).APIUserAbortError);
    const { partial } = error;
    expect(partial.updated).toEqual(input.slice(0, CHUNK * 2).filter(known));
    expect(partial.errors).toEqual(
      input.slice(0, CHUNK * 2).flatMap((e, index) => (known(e) ? [] : [{ email: e.email, error: UNKNOWN_REASON, index }])),
    );
    expect(partial.uncertain).toEqual(input.slice(CHUNK * 2, CHUNK * 4).map((e, i) => ({ ...e, index: CHUNK * 2 + i })));
    expect(partial.notSent).toEqual(input.slice(CHUNK * 4).map((e, i) => ({ ...e, index: CHUNK * 4 + i })));
    expect(error.message).toMatch(/aborted: \d+ limits applied, \d+ not applied, 200 in flight \(may have been applied\), 400 not sent/);
    // What it says was not sent never reached the server.
    expect(chunkSizes).toHaveLength(4);
  });

  it("stopped by a failure, then aborted: the chunks the failure kept back are not sent, as the abort's are", async () => {
    const input = entries(CHUNK * 3);
    const controller = new AbortController();
    // Chunk 0 fails with 500, which stops the job (chunk 2 never goes); chunk 1 is held at the server when the call is aborted.
    respond = (users) =>
      users[0]!.email === input[0]!.email
        ? { status: 500, body: { title: "Internal", detail: "chunk one broke", status: 500 } }
        : undefined;
    const held1 = hold(input[CHUNK]!);
    const pending = client.usageLimits.setUserLimits(input, { concurrency: 2, signal: controller.signal });
    await held1.there;
    await sleep(200); // chunk 0's failure is handled: the job is stopped
    controller.abort();
    const error = (await pending.catch((e: unknown) => e)) as UserLimitsAbortedError;
    held1.release();

    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    const { partial } = error;
    expect(partial.errors.map((e) => e.index)).toEqual(input.slice(0, CHUNK).map((_, i) => i));
    expect(partial.errors.every((e) => /^may have been applied: 500/.test(e.error))).toBe(true);
    expect(partial.uncertain).toEqual(input.slice(CHUNK, CHUNK * 2).map((e, i) => ({ ...e, index: CHUNK + i })));
    expect(partial.notSent).toEqual(input.slice(CHUNK * 2).map((e, i) => ({ ...e, index: CHUNK * 2 + i })));
    expect(chunkSizes).toHaveLength(2);
  });
});

describe("positions of the API's per-entry errors", () => {
  it("an error goes to the entry with its e-mail exactly as sent, else to one differing only in letter case; each entry takes one", async () => {
    const input = [
      { email: "other@x.example", limit: 1 },
      { email: "Unknown-A@x.example", limit: 2 },
      { email: "unknown-b@x.example", limit: 3 },
    ];
    respond = () => ({
      body: {
        updated: [input[0]],
        errors: [
          { email: "unknown-b@x.example", error: "named as sent" },
          { email: "UNKNOWN-A@X.EXAMPLE", error: "named in capitals" },
          { email: "unknown-b@x.example", error: "named again" },
        ],
      },
    });
    const result = await client.usageLimits.setUserLimits(input);
    expect(result.errors).toEqual([
      { email: "unknown-b@x.example", error: "named as sent", index: 2 },
      { email: "UNKNOWN-A@X.EXAMPLE", error: "named in capitals", index: 1 },
      { email: "unknown-b@x.example", error: "named again", index: -1 },
    ]);
  });

  it("an error naming no entry of its chunk (another e-mail, or none) is at -1, in a later chunk too", async () => {
    const input = entries(CHUNK + 2);
    respond = (users) =>
      users.length === 2
        ? { body: { updated: users, errors: [{ email: "nobody@x.example", error: "not in this chunk" }, { error: "no e-mail given" }] } }
        : undefined;
    const result = await client.usageLimits.setUserLimits(input);
    expect(result.updated).toEqual(input);
    expect(result.errors).toEqual([
      { email: "nobody@x.example", error: "not in this chunk", index: -1 },
      { error: "no e-mail given", index: -1 },
    ]);
  });
});

describe("only the last entry of a person is sent, so no chunk waits for another", () => {
  it("chunks with no person in common are all in flight at once", async () => {
    const input = entries(CHUNK * 3);
    const holds = [0, 1, 2].map((c) => hold(input[c * CHUNK]!));
    const pending = client.usageLimits.setUserLimits(input, { concurrency: 3 });
    const allThere = await Promise.race([Promise.all(holds.map((h) => h.there)).then(() => true), sleep(5_000).then(() => false)]);
    for (const h of holds) h.release();
    expect(await pending).toEqual(allApplied(input));
    expect(allThere).toBe(true);
  });

  it("e-mails equal once lower-cased are one person (a Kelvin sign K lower-cases to k): the earlier is superseded, and both chunks go at once", async () => {
    const input = entries(CHUNK * 2 + 1);
    input[1] = { email: "kim@acme-robotics.example", limit: 1 };
    input[CHUNK + 5] = { email: "\u212Aim@acme-robotics.example", limit: 2 };
    const holds = [hold(input[0]!), hold(input[CHUNK + 1]!)];
    const pending = client.usageLimits.setUserLimits(input, { concurrency: 2 });
    const bothThere = await Promise.race([Promise.all(holds.map((h) => h.there)).then(() => true), sleep(5_000).then(() => false)]);
    for (const h of holds) h.release();
    const result = await pending;
    expect(bothThere).toBe(true);
    // The deciding entries fill chunks of the maximum: 2 × CHUNK of them.
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.superseded).toEqual([{ ...input[1]!, index: 1, by: CHUNK + 5 }]);
    expectAccountedFor(input, result);
  });

  it("8 entries for each of 250 people: 250 sent, in 3 chunks at once, and 1,750 superseded, each by its person's last entry", async () => {
    const people = Array.from({ length: 250 }, (_, p) => `person${p}@acme-robotics.example`);
    const input = Array.from({ length: 2_000 }, (_, i) => ({ email: people[i % 250]!, limit: i }));
    const progress: UserLimitsProgress[] = [];
    const result = await client.usageLimits.setUserLimits(input, { concurrency: 8, onProgress: (p) => progress.push(p) });
    expect(chunkSizes).toEqual([CHUNK, CHUNK, 50]);
    expect(result.updated).toEqual(input.slice(1_750));
    expect(result.superseded).toHaveLength(1_750);
    for (const entry of result.superseded) expect(entry.by).toBe(1_750 + (entry.index % 250));
    expectAccountedFor(input, result);
    // Each chunk's report counts the entries it decides: the last report's total is every entry.
    expect(progress.reduce((n, p) => n + p.superseded.length, 0)).toBe(1_750);
    expect(Math.max(...progress.map((p) => p.done))).toBe(input.length);
  });
});

describe("429s, and a job that stops or is aborted meanwhile", () => {
  const tooMany = (retryAfterMs: number): Reply => ({
    status: 429,
    headers: { "retry-after-ms": String(retryAfterMs) },
    body: { title: "Too Many Requests", detail: "slow down", status: 429 },
  });

  /** A client on the server (with a key of its own) whose fetch resolves `refused` when an answer has `status`. */
  function watchingFor(status: number) {
    let refused!: () => void;
    const seen = new Promise<void>((resolve) => (refused = resolve));
    const watching = freshClient({
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (response.status === status) refused();
        return response;
      },
    });
    return { watching, refusedSeen: seen };
  }

  // A 429 is a refusal the service did not act on; a 503 may come after the service started on the request.
  it.each([
    { status: 429, chunk: "not sent, not in flight", uncertain: 0, tail: "0 in flight (may have been applied), 200 not sent." },
    {
      status: 503,
      chunk: "may have been applied, so it is uncertain",
      uncertain: CHUNK,
      tail: "100 in flight (may have been applied), 100 not sent.",
    },
  ])("aborted while a chunk answered $status waits to go again: that chunk is $chunk", async ({ status, uncertain, tail }) => {
    const input = entries(CHUNK * 3);
    const { watching, refusedSeen } = watchingFor(status);
    const refusal: Reply = { ...tooMany(20_000), status, body: { title: "Refused", detail: "not now", status } };
    respond = (users) => (users[0]!.email === input[CHUNK]!.email ? refusal : undefined);
    const controller = new AbortController();
    const pending = watching.usageLimits.setUserLimits(input, { signal: controller.signal }).catch((e: unknown) => e);
    await refusedSeen;
    await sleep(300); // the refusal is handled: the chunk waits out its Retry-After
    controller.abort();
    const error = (await pending) as UserLimitsAbortedError;

    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    const indexed = (from: number, to?: number) => input.slice(from, to).map((e, i) => ({ ...e, index: from + i }));
    expect(error.partial).toEqual({
      updated: input.slice(0, CHUNK),
      errors: [],
      superseded: [],
      throttled: 1,
      uncertain: indexed(CHUNK, CHUNK + uncertain),
      notSent: indexed(CHUNK + uncertain),
    });
    const summary = `: 100 limits applied, 0 not applied, ${tail}`;
    expect(error.message.slice(-summary.length)).toBe(summary);
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
  });

  it("a chunk refused with 429 after another chunk's failure stopped the job is not sent again: it is not sent, and says why", async () => {
    const input = entries(CHUNK * 2);
    const first = hold(input[0]!);
    let refusedOnce = false;
    respond = (users) => {
      if (users[0]!.email === input[CHUNK]!.email)
        return { status: 500, body: { title: "Internal", detail: "chunk two broke", status: 500 } };
      if (users[0]!.email === input[0]!.email && !refusedOnce) {
        refusedOnce = true;
        return tooMany(50);
      }
      return undefined;
    };
    // The second chunk's failure is reported first; only then does the first chunk get its 429.
    const result = await freshClient().usageLimits.setUserLimits(input, { concurrency: 2, onProgress: () => first.release() });

    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual([]);
    expect(result.errors.map((e) => e.index)).toEqual(input.map((_, i) => i));
    const why = /^not sent: an earlier chunk failed \(500 Internal: chunk two broke \[setUserLimits: PUT .*\]\)$/;
    expect(result.errors.slice(0, CHUNK).every((e) => why.test(e.error))).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^may have been applied: 500/.test(e.error))).toBe(true);
  });

  it("a chunk whose attempt is starting (a plugin's beforeAttempt running) when another chunk's failure stops the job is not sent, and says why", async () => {
    const input = entries(CHUNK * 2);
    let stopped!: () => void;
    const stoppedSeen = new Promise<void>((resolve) => (stopped = resolve));
    let attempts = 0;
    // The first chunk's attempt waits in the plugin until the second chunk's failure has stopped the job.
    const beforeAttempt = async () => {
      if (++attempts === 1) await stoppedSeen;
    };
    respond = (users) =>
      users[0]!.email === input[CHUNK]!.email
        ? { status: 500, body: { title: "Internal", detail: "chunk two broke", status: 500 } }
        : undefined;
    const result = await freshClient({ plugins: [{ beforeAttempt }] }).usageLimits.setUserLimits(input, {
      concurrency: 2,
      onProgress: () => stopped(),
    });

    expect(chunkSizes).toEqual([CHUNK]);
    expect(result.updated).toEqual([]);
    expect(
      result.errors.slice(0, CHUNK).every((e) => /^not sent: an earlier chunk failed \(500 Internal: chunk two broke/.test(e.error)),
    ).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^may have been applied: 500/.test(e.error))).toBe(true);
    expectAccountedFor(input, result);
  });

  it("a chunk held back by a long Retry-After is not sent again once another chunk's failure stops the job, nor is one waiting for its place", async () => {
    const input = entries(CHUNK * 3);
    const first = hold(input[0]!);
    const { watching, refusedSeen } = watchingFor(429);
    respond = (users) =>
      users[0]!.email === input[CHUNK]!.email
        ? tooMany(20_000)
        : users[0]!.email === input[0]!.email
          ? { status: 500, body: { title: "Internal", detail: "chunk one broke", status: 500 } }
          : undefined;
    const started = performance.now();
    const pending = watching.usageLimits.setUserLimits(input, { concurrency: 2 });
    await Promise.all([first.there, refusedSeen]);
    await sleep(300); // the 429 is handled: the refused chunk, and every request of the key, waits 20 s
    first.release();
    const result = await pending;

    expect(performance.now() - started).toBeLessThan(10_000);
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual([]);
    expect(result.throttled).toBe(1);
    expect(result.errors.slice(0, CHUNK).every((e) => /^may have been applied: 500/.test(e.error))).toBe(true);
    expect(
      result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed \(500 Internal: chunk one broke/.test(e.error)),
    ).toBe(true);
    expect(result.errors).toHaveLength(input.length);
  });

  it("a Retry-After over maxRetryAfter fails the chunk at once (not applied) and stops the job", async () => {
    const input = entries(CHUNK * 3);
    respond = (users) => (users[0]!.email === input[CHUNK]!.email ? { ...tooMany(0), headers: { "retry-after": "120" } } : undefined);
    const result = await freshClient({ maxRetryAfter: 30_000 }).usageLimits.setUserLimits(input);
    expect(chunkSizes).toEqual([CHUNK, CHUNK]);
    expect(result.updated).toEqual(input.slice(0, CHUNK));
    expect(result.errors.slice(0, CHUNK).every((e) => /^not applied: 429/.test(e.error))).toBe(true);
    expect(result.errors.slice(CHUNK).every((e) => /^not sent: an earlier chunk failed \(429/.test(e.error))).toBe(true);
    expect(result.throttled).toBe(0);
  });
});

describe("the caller's signal", () => {
  it("is left as it was found: no listener of the call remains once it has settled, resolved or rejected", async () => {
    const controller = new AbortController();
    await client.usageLimits.setUserLimits(entries(CHUNK + 1), { signal: controller.signal, concurrency: 2 });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    failures.set(chunkSizes.length, { status: 403 });
    await expect(client.usageLimits.setUserLimits(entries(1), { signal: controller.signal })).rejects.toMatchObject({ status: 403 });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("UserLimitsAbortedError's message counts every entry", () => {
  const partial = (superseded: number) => ({
    updated: [{ email: "a@x.com", limit: 1 }],
    errors: [],
    uncertain: [],
    notSent: [{ email: "b@x.com", limit: 2, index: 2 }],
    superseded: Array.from({ length: superseded }, (_, i) => ({ email: "b@x.com", limit: i, index: i, by: 2 })),
    throttled: 0,
  });

  it("with the entries superseded by a later one when there are some, and without a word of them when none", () => {
    const signal = AbortSignal.abort(new Error("stop"));
    expect(new UserLimitsAbortedError(partial(1), { signal }).message).toMatch(
      /: 1 limits applied, 0 not applied, 0 in flight \(may have been applied\), 1 not sent, 1 superseded by a later entry\.$/,
    );
    expect(new UserLimitsAbortedError(partial(0), { signal }).message).toMatch(/, 1 not sent\.$/);
  });
});
