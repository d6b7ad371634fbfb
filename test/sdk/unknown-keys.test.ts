// A key an object does not have, as JavaScript lets a caller write it (`baseURL`, `concurency`, `groupBy`): TypeScript
// refuses it at compile time, and the SDK at run time, with a ValidationError that names the key and the known key it
// most likely meant, before anything is sent. Against a loopback recorder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrgAgent, ValidationError } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";

let server: Loopback;
let client: OrgAgent;
const dates = { startDate: "2026-03-02", endDate: "2026-03-03" };

beforeAll(async () => {
  server = await startLoopback();
  client = new OrgAgent({ apiKey: "unknown-keys-test", baseUrl: server.url, appUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());

/** The ValidationError `run` throws or rejects with; fails when it does neither. */
async function refusal(run: () => unknown): Promise<ValidationError> {
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

// Each as a JavaScript caller would write it: the object is `never` to TypeScript, which refuses such a key itself.
const loose = (value: object) => value as never;

describe("refused with the key that was meant", () => {
  it.each([
    ["a client option", () => new OrgAgent(loose({ apiKey: "k-unknown", baseURL: server.url })), "options.baseURL", "baseUrl"],
    ["a request option", () => client.computers.get("cmp_1", loose({ timout: 1_000 })), "options.timout", "timeout"],
    ["two letters swapped", () => client.computers.get("cmp_1", loose({ singal: undefined })), "options.singal", "signal"],
    ["a list's option", () => client.readiness.list({}, loose({ maxitems: 5 })), "options.maxitems", "maxItems"],
    ["the date windows' option", () => client.analytics.users(dates, loose({ concurency: 8 })), "options.concurency", "concurrency"],
    ["a query parameter", () => client.analytics.tokens(loose({ ...dates, groupBy: "model" })), "query.groupBy", "group_by"],
    ["a wait option", () => client.computers.waitUntilActive("cmp_1", loose({ intervall: 100 })), "options.intervall", "interval"],
    [
      "a bulk job's option",
      () => client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }], loose({ onprogress: () => {} })),
      "options.onprogress",
      "onProgress",
    ],
    [
      "a part of client.request's parameters",
      () => client.request("getComputer", loose({ paths: { computerId: "cmp_1" } })),
      "params.paths",
      "path",
    ],
  ])("%s", async (_, run, field, meant) => {
    const before = server.requests.length;
    const error = await refusal(run);
    expect(error).toMatchObject({ field, rule: "unknownKey", bound: meant });
    expect(error.message).toBe(
      `${field}: an unknown key (${JSON.stringify(field.split(".")[1])}) is not allowed; expected a known key; did you mean \`${meant}\`?`,
    );
    expect(server.requests.length).toBe(before);
  });

  it("a key like none of them is refused with the list of known keys", async () => {
    const error = await refusal(() => client.computers.get("cmp_1", loose({ colour: "blue" })));
    expect(error.message).toBe(
      'options.colour: an unknown key ("colour") is not allowed; expected one of the known keys: signal, timeout, deadline, maxRetries, maxResponseSize, headers, idempotent',
    );
    expect(error.bound).toBeUndefined();
  });

  it("a key that is only part of a known one, farther off than a third of its letters, is not taken for it", async () => {
    const error = await refusal(() => client.computers.get("cmp_1", loose({ retries: 2 })));
    expect(error.message).toMatch(/^options\.retries: an unknown key \("retries"\) is not allowed; expected one of the known keys: /);
    expect(error.bound).toBeUndefined();
  });

  it("a list without a date range has no date windows: concurrency is unknown to it", async () => {
    const error = await refusal(() => client.enterpriseControls.history({}, loose({ concurrency: 4 })));
    expect(error).toMatchObject({ field: "options.concurrency", rule: "unknownKey" });
  });

  it("every known key is accepted, undefined or not", async () => {
    server.requests.length = 0;
    const controller = new AbortController();
    await client.computers
      .get("cmp_1", {
        signal: controller.signal,
        timeout: 5_000,
        deadline: 10_000,
        maxRetries: 0,
        maxResponseSize: 1_000,
        headers: {},
        idempotent: true,
      })
      .catch(() => {});
    await client.computers.get("cmp_1", { signal: undefined, timeout: undefined }).catch(() => {});
    expect(server.requests).toHaveLength(2);
  });
});

describe("client.request's path parameters", () => {
  it("a path parameter the operation does not have is refused, with the one it has, nothing sent", async () => {
    const before = server.requests.length;
    const error = await refusal(() => client.request("getComputer", loose({ path: { computerID: "cmp_1" } })));
    expect(error).toMatchObject({ field: "path.computerID", rule: "unknownKey", bound: "computerId" });
    expect(server.requests.length).toBe(before);
  });
});
