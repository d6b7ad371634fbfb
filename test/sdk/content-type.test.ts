// The Content-Type a request goes out with, as a loopback server receives it: a request with a JSON body says so,
// unless the caller named a content type of its own (in any letter case), which then goes out alone and unchanged;
// a request without a body sends none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrgAgent } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { successExample } from "../support/spec.js";

let server: Loopback;
beforeAll(async () => {
  server = await startLoopback((request) =>
    request.method === "POST" ? { status: 201, body: successExample("createSession") } : { body: successExample("getComputer") },
  );
});
afterAll(() => server.close());

const client = () => new OrgAgent({ apiKey: "test-key", baseUrl: server.url, maxRetries: 0, logLevel: "off" });
const last = () => server.requests.at(-1)!;

describe("a request with a body", () => {
  it("says it is JSON", async () => {
    await client().sessions.create({ computerId: "cmp_1" });
    expect(last().headers["content-type"]).toBe("application/json");
    expect(last().body).toEqual({ computerId: "cmp_1" });
  });

  it.each(["content-type", "Content-Type", "CONTENT-TYPE"])("keeps the caller's own type, named %s, as the only one", async (name) => {
    await client().sessions.create({ computerId: "cmp_1" }, { headers: { [name]: "application/json; charset=utf-8" } });
    expect(last().headers["content-type"]).toBe("application/json; charset=utf-8");
  });
});

describe("a request without a body", () => {
  it("sends no Content-Type", async () => {
    await client().computers.get("cmp_1");
    expect(last().method).toBe("GET");
    expect(last().headers["content-type"]).toBeUndefined();
  });
});
