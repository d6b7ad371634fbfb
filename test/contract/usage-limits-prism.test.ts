// setUserLimits through the SDK against the Prism mock of the spec (the tests' global setup). Prism runs with
// --errors: it refuses a request that breaks the spec (a chunk over maxItems, an entry without its e-mail) and would
// turn an answer that breaks it into a 500. It answers every chunk with one of the spec's examples, whatever the
// chunk holds, so what the SDK makes of those answers is known in advance.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { OrgAgent, type UserLimitsProgress } from "../../src/index.js";
import { successExample, successExamples } from "../support/spec.js";

const CHUNK: number = operations.setUserLimits.body.schema.properties.users.maxItems;
const allApplied = successExample("setUserLimits");
const partlyApplied = successExamples("setUserLimits").find(({ value }) => value.errors.length > 0)!;

/** Every PUT the client made: the entries it carried, and Prism's status and violations header. */
let puts: { size: number; status: number; violations: string | null }[];
let client: OrgAgent;
beforeAll(() => {
  const prismUrl = inject("prismUrl");
  client = new OrgAgent({
    apiKey: "test-key",
    baseUrl: prismUrl,
    appUrl: prismUrl,
    maxRetries: 0,
    logLevel: "off",
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method === "PUT") {
        const size = (JSON.parse(String(init.body)) as { users: unknown[] }).users.length;
        puts.push({ size, status: response.status, violations: response.headers.get("sl-violations") });
      }
      return response;
    },
  });
});

const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `person-${i}@acme-robotics.com`, limit: 1_000 * i }));

describe("setUserLimits against Prism", () => {
  it("250 entries, 3 at once: three chunks of at most maxItems, each valid for the spec, and each answer merged in chunk order", async () => {
    puts = [];
    const progress: UserLimitsProgress[] = [];
    const result = await client.usageLimits.setUserLimits(entries(250), { concurrency: 3, onProgress: (p) => progress.push(p) });

    expect(puts.map((put) => put.size).sort((a, b) => b - a)).toEqual([CHUNK, CHUNK, 250 - 2 * CHUNK]);
    expect(puts.every((put) => put.status === operations.setUserLimits.successStatus && put.violations === null)).toBe(true);
    // Prism answers every chunk with the spec's first example.
    expect(result).toEqual({
      updated: [...allApplied.updated, ...allApplied.updated, ...allApplied.updated],
      errors: [],
      superseded: [],
      throttled: 0,
    });
    expect(progress.map((p) => p.chunk).sort()).toEqual([0, 1, 2]);
    expect(progress.every((p) => p.chunks === 3 && p.total === 250 && p.updated.length === allApplied.updated.length)).toBe(true);
    expect(progress.at(-1)!.done).toBe(250);
  });

  it("an error the answer names is placed at that e-mail's entry in its chunk, and at -1 in a chunk that did not hold it", async () => {
    puts = [];
    const named: string = partlyApplied.value.errors[0].email;
    const users = entries(150);
    users[130] = { email: named, limit: 0 }; // in the second chunk only
    const result = await client.usageLimits.setUserLimits(users, {
      concurrency: 2,
      headers: { Prefer: `code=200, example=${partlyApplied.name}` },
    });

    expect(puts.map((put) => put.status)).toEqual([200, 200]);
    expect(result.updated).toEqual([...partlyApplied.value.updated, ...partlyApplied.value.updated]);
    expect(result.errors).toEqual([
      { ...partlyApplied.value.errors[0], index: -1 },
      { ...partlyApplied.value.errors[0], index: 130 },
    ]);
  });
});
