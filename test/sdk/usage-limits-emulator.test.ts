// setUserLimits against the emulator, which implements the endpoint as the API does: each entry stands alone, an
// unknown e-mail is reported in `errors` with a reason, and the limits applied persist, to be read back with
// `emulator.limits()` (the API has no operation to read them). Each test has a fresh emulator with a latency on every
// answer, so chunks sent at once are in flight together; a recording fetch counts them from the client's side.
import { afterEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator/index.js";
import { OrgAgent, UserLimitsAbortedError, type UserLimitsProgress } from "../../src/index.js";
import { successExamples } from "../support/spec.js";

const CHUNK: number = operations.setUserLimits.body.schema.properties.users.maxItems;
// The emulator gives an unknown e-mail the reason the spec's partly-applied example gives.
const UNKNOWN_REASON: string = successExamples("setUserLimits").find(({ value }) => value.errors.length)!.value.errors[0].error;
const LATENCY_MS = 100;

type Entry = { email: string; limit: number };
/** One PUT as the client saw it: how many entries, and when it was sent and answered (performance.now()). */
type Put = { size: number; emails: string[]; fields: string[]; sentAt: number; answeredAt: number };

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** A fresh emulator, and a client on it whose fetch records every PUT and how many were in flight at once. */
async function setUp(options: EmulatorOptions = {}) {
  emulator = await startEmulator({ seed: "usage-limits", latency: { ms: LATENCY_MS }, ...options });
  const puts: Put[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const client = new OrgAgent({
    apiKey: emulator.keys.owner,
    baseUrl: emulator.baseUrl,
    appUrl: emulator.appUrl,
    logLevel: "off",
    fetch: async (url, init) => {
      if (init?.method !== "PUT") return fetch(url, init);
      const users = (JSON.parse(String(init.body)) as { users: Entry[] }).users;
      const put: Put = {
        size: users.length,
        emails: users.map((u) => u.email),
        fields: [...new Set(users.flatMap((u) => Object.keys(u)))].sort(),
        sentAt: performance.now(),
        answeredAt: NaN,
      };
      puts.push(put);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await fetch(url, init);
      } finally {
        inFlight--;
        put.answeredAt = performance.now();
      }
    },
  });
  return { emulator, client, puts, mostInFlight: () => mostInFlight };
}

describe("setUserLimits against the emulator", () => {
  it("253 entries in 3 chunks, 3 at once: every known person's limit reads back, and each unknown e-mail is in errors at its position", async () => {
    const { emulator, client, puts, mostInFlight } = await setUp();
    // Every person, some of them written in capitals (the emulator matches e-mails in any case), and three
    // addresses nobody has, placed in the first chunk, the second, and last of all.
    const entries: Entry[] = emulator.org.users.map((user, i) => ({
      email: i % 3 ? user.email : user.email.toUpperCase(),
      limit: 10_000 + i,
    }));
    const unknownAt = [7, 150, 252];
    for (const at of unknownAt) entries.splice(at, 0, { email: `left-the-company-${at}@example.com`, limit: 1 });
    expect(entries).toHaveLength(253);

    const progress: UserLimitsProgress[] = [];
    const result = await client.usageLimits.setUserLimits(entries, { concurrency: 3, onProgress: (p) => progress.push(p) });

    // Sent: chunks of the spec's maxItems, all three in flight together.
    expect(CHUNK).toBe(100);
    expect(puts.map((put) => put.size)).toEqual([100, 100, 53]);
    expect(mostInFlight()).toBe(3);

    // The answer: every entry once, in input order; the unknown ones with their positions in `entries`.
    const known = entries.filter((_, i) => !unknownAt.includes(i));
    expect(result.updated).toEqual(known);
    expect(result.errors).toEqual(unknownAt.map((index) => ({ index, email: entries[index]!.email, error: UNKNOWN_REASON })));

    // Read back: the emulator holds exactly the limits of the known entries.
    expect(emulator.limits()).toEqual(new Map(known.map(({ email, limit }) => [email.toLowerCase(), limit])));

    // One report a chunk, each with its own outcome, and a running total that ends at every entry.
    const reports = [...progress]
      .sort((a, b) => a.chunk - b.chunk)
      .map(({ chunk, chunks, total, updated, errors }) => ({
        chunk,
        chunks,
        total,
        updated: updated.length,
        errors: errors.map((e) => e.index),
      }));
    expect(reports).toEqual([
      { chunk: 0, chunks: 3, total: 253, updated: 99, errors: [7] },
      { chunk: 1, chunks: 3, total: 253, updated: 99, errors: [150] },
      { chunk: 2, chunks: 3, total: 253, updated: 52, errors: [252] },
    ]);
    const done = progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(253);
  });

  it("the same person in two chunks: only the later entry is sent, at full width, and its limit is the one held", async () => {
    const { emulator, client, puts } = await setUp();
    const [first, ...others] = emulator.org.users;
    const entries: Entry[] = [
      { email: first!.email, limit: 1 },
      ...others.slice(0, 148).map(({ email }) => ({ email, limit: 5_000 })),
      { email: first!.email.toUpperCase(), limit: 2 }, // the same person, in the second chunk
    ];

    const result = await client.usageLimits.setUserLimits(entries, { concurrency: 2 });

    expect(result.errors).toEqual([]);
    expect(result.superseded).toEqual([{ email: first!.email, limit: 1, index: 0, by: 149 }]);
    expect(puts.map((put) => put.size).sort((a, b) => b - a)).toEqual([100, 49]);
    expect(emulator.limits().get(first!.email.toLowerCase())).toBe(2);
  });

  it("aborted after the first chunk is answered: what partial says was applied is held, what was not sent is not, and sending notSent and uncertain again finishes the job", async () => {
    const { emulator, client, puts } = await setUp({ users: 5 * CHUNK });
    const entries: Entry[] = emulator.org.users.map(({ email }, i) => ({ email, limit: 1_000 + i }));
    const controller = new AbortController();

    const error = await client.usageLimits
      .setUserLimits(entries, { concurrency: 2, signal: controller.signal, onProgress: () => controller.abort() })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );

    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    const { partial } = error as UserLimitsAbortedError;
    // The first chunk to answer was applied; the second was in flight (or had just answered); none of the last
    // three chunks was sent.
    expect(partial.errors).toEqual([]);
    expect(partial.updated.length).toBeGreaterThanOrEqual(CHUNK);
    expect(partial.notSent.length).toBeGreaterThanOrEqual(3 * CHUNK);
    expect(puts).toHaveLength(2);
    // Every entry is in exactly one list, by its position.
    const positions = [
      ...partial.updated.map(({ email }) => entries.findIndex((entry) => entry.email === email)),
      ...partial.uncertain.map(({ index }) => index),
      ...partial.notSent.map(({ index }) => index),
    ];
    expect(positions.sort((a, b) => a - b)).toEqual(entries.map((_, i) => i));
    for (const { index, email, limit } of [...partial.uncertain, ...partial.notSent]) expect(entries[index]).toEqual({ email, limit });

    // Read back: what was applied is held, what was never sent is not; an entry in flight at the abort may be either.
    const held = emulator.limits();
    for (const { email, limit } of partial.updated) expect(held.get(email)).toBe(limit);
    for (const { email } of partial.notSent) expect(held.has(email)).toBe(false);

    // Send the rest, as they are: then every limit is held.
    const rest = await client.usageLimits.setUserLimits([...partial.notSent, ...partial.uncertain], { concurrency: 2 });
    expect(rest.errors).toEqual([]);
    // Sent as the API's entries: the partial result's `index` is the SDK's bookkeeping, not part of the body.
    for (const put of puts) expect(put.fields).toEqual(["email", "limit"]);
    expect(emulator.limits()).toEqual(new Map(entries.map(({ email, limit }) => [email, limit])));
  });
});
