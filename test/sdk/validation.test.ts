// Bad input fails with a ValidationError before anything is sent: a loopback server counts the requests that reach
// it. Every bound is read from the generated spec table, never restated here. Path parameters are percent-encoded
// into exactly one segment, whatever the string.
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { OrgAgent, ValidationError } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { addDays, analyticsWindow, operationFor, successExample } from "../support/spec.js";

let server: Loopback;
let client: OrgAgent;

beforeAll(async () => {
  // Answers each operation with its spec example, so calls that pass validation complete normally.
  server = await startLoopback((request) => {
    const operationId = operationFor(request.method, request.pathname);
    return operationId
      ? { status: operations[operationId].successStatus, body: successExample(operationId) }
      : { status: 404, body: { title: "Not Found" } };
  });
  client = new OrgAgent({ apiKey: "k", baseUrl: server.url, appUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

/** Runs `call`, expects a ValidationError naming `field`, the value and each `allowed` text, and no request. */
async function expectRejected(call: () => PromiseLike<unknown>, field: string, value: unknown, allowed: string[]) {
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ValidationError);
  const validation = error as ValidationError;
  expect(validation.field).toBe(field);
  expect(validation.value).toEqual(value);
  expect(validation.message).toContain(field);
  if (typeof value === "string" && value.length <= 40) expect(validation.message).toContain(JSON.stringify(value));
  if (typeof value === "number") expect(validation.message).toContain(String(value));
  for (const text of allowed) expect(validation.message).toContain(text);
  expect(server.requests).toHaveLength(0);
}

const window = analyticsWindow();
const inside = { startDate: window.earliest, endDate: addDays(window.earliest, 1) };
const dateRule = operations.getAnalyticsTokens.params.startDate.schema;

// Every analytics method, as a function of its date query.
const analyticsCalls = {
  tokens: (q: typeof inside) => client.analytics.tokens(q),
  tools: (q: typeof inside) => client.analytics.tools(q),
  activity: (q: typeof inside) => client.analytics.activity(q),
  productivity: (q: typeof inside) => client.analytics.productivity(q),
  users: (q: typeof inside) => client.analytics.users(q),
};

describe("analytics dates", () => {
  it("the spec table states the window the tests use", () => {
    expect(dateRule.format).toBe("date");
    expect(dateRule.dateRange.latest).toBe("yesterday");
    expect(window.earliest < window.latest).toBe(true);
  });

  describe.each(Object.entries(analyticsCalls))("%s", (_, call) => {
    it.each(["2026-02-30", "2026-13-01", "yesterday", "2026-1-5", ""])(
      "rejects the non-calendar date %j as startDate and as endDate",
      async (bad) => {
        const allowed = ["YYYY-MM-DD", `up to ${window.latest} (yesterday, UTC)`];
        await expectRejected(() => call({ ...inside, startDate: bad }), "query.startDate", bad, allowed);
        await expectRejected(() => call({ ...inside, endDate: bad }), "query.endDate", bad, allowed);
      },
    );

    it("rejects endDate before startDate", async () => {
      const startDate = addDays(window.earliest, 3);
      const endDate = addDays(window.earliest, 2);
      await expectRejected(() => call({ startDate, endDate }), "query.endDate", endDate, ["startDate", startDate]);
    });

    it("rejects today and later (UTC); sends a date before the first data day, which has no rows but is a date", async () => {
      const today = addDays(window.latest, 1);
      const allowed = [`a date up to ${window.latest} (yesterday, UTC)`];
      await expectRejected(() => call({ startDate: window.earliest, endDate: today }), "query.endDate", today, allowed);
      await expectRejected(() => call({ startDate: today, endDate: today }), "query.startDate", today, allowed);
      const early = addDays(window.earliest, -400);
      await call({ startDate: early, endDate: addDays(window.earliest, -1) });
      expect(server.requests.map((r) => r.query.get("startDate"))).toEqual([early]);
    });

    it("sends the boundary dates themselves: the earliest day to yesterday, and a one-day range", async () => {
      await call({ startDate: window.earliest, endDate: window.latest });
      await call({ startDate: window.latest, endDate: window.latest });
      expect(server.requests.map((r) => [r.query.get("startDate"), r.query.get("endDate")])).toEqual([
        [window.earliest, window.latest],
        [window.latest, window.latest],
      ]);
    });
  });
});

describe("the Gregorian calendar", () => {
  // A day that exists and is not after yesterday is sent; any other is refused, and the message tells which rule refused it.
  it.each([
    ["2100-02-29", false], // divisible by 100: no leap year
    ["1900-02-29", false],
    ["2027-02-29", false],
    ["2000-02-29", true], // divisible by 400: a leap year
    ["2028-02-29", true],
    ["2025-04-31", false], // April, June, September and November have 30 days
    ["2025-06-31", false],
    ["2025-09-31", false],
    ["2025-11-31", false],
    ["2025-11-30", true],
    ["2025-01-31", true], // the other months 31
    ["2025-03-31", true],
    ["2025-05-31", true],
    ["2025-07-31", true],
    ["2025-08-31", true],
    ["2025-10-31", true],
    ["2025-12-31", true],
    ["2025-12-32", false],
    ["2025-00-10", false], // months count from 01, days from 01
    ["2025-01-00", false],
  ] as const)("%s is a real calendar date: %s", async (date, real) => {
    const error = await client.analytics.tokens({ startDate: date, endDate: date }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (real && date <= window.latest) {
      expect([error, server.requests.length]).toEqual([undefined, 1]);
      return;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message.includes("a real calendar date")).toBe(!real);
    expect(server.requests).toHaveLength(0);
  });
});

describe("limit", () => {
  const usersLimit = operations.listAnalyticsUsers.params.limit.schema;
  const historyLimit = operations.listEnterpriseControlsHistory.params.limit.schema;
  const readinessLimit = operations.listReadinessReports.params.limit.schema;

  it.each([usersLimit.minimum - 1, usersLimit.maximum + 1, 1.5])("analytics.users rejects limit %d", async (limit) => {
    await expectRejected(async () => await client.analytics.users({ ...inside, limit }), "query.limit", limit, [
      `${usersLimit.minimum} to ${usersLimit.maximum}`,
    ]);
  });

  it.each([historyLimit.minimum - 1, historyLimit.maximum + 1, 1.5])("enterpriseControls.history rejects limit %d", async (limit) => {
    await expectRejected(async () => await client.enterpriseControls.history({ limit }), "query.limit", limit, [
      `${historyLimit.minimum} to ${historyLimit.maximum}`,
    ]);
  });

  it.each([readinessLimit.minimum - 1, 1.5])("readiness.list rejects limit %d", async (limit) => {
    await expectRejected(async () => await client.readiness.list({ limit }), "query.limit", limit, [`>= ${readinessLimit.minimum}`]);
  });

  it("sends the bounds themselves", async () => {
    await client.analytics.users({ ...inside, limit: usersLimit.minimum });
    await client.analytics.users({ ...inside, limit: usersLimit.maximum });
    await client.enterpriseControls.history({ limit: historyLimit.maximum });
    expect(server.requests.map((r) => r.query.get("limit"))).toEqual(
      [usersLimit.minimum, usersLimit.maximum, historyLimit.maximum].map(String),
    );
  });
});

describe("string lengths", () => {
  const cwd = operations.createSession.body.schema.properties.cwd;
  const name = operations.getComputerByName.params.name.schema;

  it('sessions.create rejects cwd "" and one character over the maximum', async () => {
    for (const value of ["", "d".repeat(cwd.maxLength + 1)]) {
      await expectRejected(() => client.sessions.create({ computerId: "cmp_1", cwd: value }), "body.cwd", value, [
        `${cwd.minLength} to ${cwd.maxLength} characters`,
      ]);
    }
  });

  it('computers.getByName rejects name "" and one character over the maximum', async () => {
    for (const value of ["", "n".repeat(name.maxLength + 1)]) {
      await expectRejected(() => client.computers.getByName(value), "path.name", value, [
        `${name.minLength} to ${name.maxLength} characters`,
      ]);
    }
  });

  it("lengths count characters (code points), and the maximum itself is sent", async () => {
    await client.sessions.create({ computerId: "cmp_1", cwd: "/".repeat(cwd.maxLength) });
    await client.computers.getByName("🖥".repeat(name.maxLength)); // 63 code points, 126 UTF-16 units
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    await expectRejected(() => client.computers.getByName("🖥".repeat(name.maxLength + 1)), "path.name", "🖥".repeat(name.maxLength + 1), [
      `${name.maxLength} characters`,
    ]);
  });
});

describe("empty path ids", () => {
  it.each([
    ["sessions.get", () => client.sessions.get(""), "path.sessionId"],
    ["sessions.sendMessage", () => client.sessions.sendMessage("", { text: "hi" }), "path.sessionId"],
    ["sessions.getMessage (session)", () => client.sessions.getMessage("", "msg_1"), "path.sessionId"],
    ["sessions.getMessage (message)", () => client.sessions.getMessage("sess_1", ""), "path.messageId"],
    ["computers.get", () => client.computers.get(""), "path.computerId"],
    ["computers.retryInstallDeps", () => client.computers.retryInstallDeps(""), "path.computerId"],
  ] as const)('%s rejects ""', async (_, call, field) => {
    await expectRejected(call, field, "", ["at least 1"]);
  });
});

describe("request bodies", () => {
  const users = operations.setUserLimits.body.schema.properties.users;

  it("more users than one request allows are chunked, but a bad entry anywhere is rejected before any chunk", async () => {
    const entries = Array.from({ length: users.maxItems * 2 + 50 }, (_, i) => ({ email: `u${i}@x.example`, limit: i }));
    const bad = users.maxItems + 49; // inside the second chunk
    entries[bad] = { email: entries[bad]!.email, limit: 1.5 };
    await expectRejected(() => client.usageLimits.setUserLimits(entries), `users[${bad}].limit`, 1.5, ["an integer"]);
  });

  it("one request can never carry more users than maxItems: the operation itself rejects it", async () => {
    const entries = Array.from({ length: users.maxItems + 1 }, (_, i) => ({ email: `u${i}@x.example`, limit: 1 }));
    await expectRejected(() => client.request("setUserLimits", { body: { users: entries } }), "body.users", entries, [
      `${users.minItems} to ${users.maxItems} items`,
    ]);
  });

  it("an entry without email, or with an empty one, is rejected", async () => {
    await expectRejected(
      () => client.usageLimits.setUserLimits([{ limit: 1 } as { email: string; limit: number }]),
      "users[0].email",
      undefined,
      ["required"],
    );
    await expectRejected(() => client.usageLimits.setUserLimits([{ email: "", limit: 1 }]), "users[0].email", "", ["at least 1"]);
  });

  it("every item of an array is checked: a session tag without its name is named by its position", async () => {
    await expectRejected(
      () => client.sessions.create({ computerId: "cmp_1", sessionSettings: { tags: [{ name: "nightly" }, {} as { name: string }] } }),
      "body.sessionSettings.tags[1].name",
      undefined,
      ["required"],
    );
  });

  it("a message without text is rejected", async () => {
    await expectRejected(() => client.sessions.sendMessage("sess_1", {} as { text: string }), "body.text", undefined, ["required"]);
  });
});

describe("path parameters are percent-encoded into exactly one segment", () => {
  const [prefix, suffix] = operations.getComputerByName.path.split("{name}") as [string, string];

  it.each([
    ["../sessions", "..%2Fsessions"],
    ["...", "..."], // three dots are not a dot segment: a URL parser leaves them alone
    ["a/b?x=1", "a%2Fb%3Fx%3D1"],
    ["%2e%2e", "%252e%252e"],
    ["%2F", "%252F"],
    ["a#b", "a%23b"],
    ["a b+c", "a%20b%2Bc"],
    ["büro-🖥", "b%C3%BCro-%F0%9F%96%A5"],
    ["\\..\\x", "%5C..%5Cx"],
  ])("getByName(%j) requests …/%s with no query", async (name, encoded) => {
    await client.computers.getByName(name);
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.target).toBe(`${prefix}${encoded}${suffix}`);
    expect(decodeURIComponent(encoded)).toBe(name);
  });

  it.each([".", ".."])("getByName(%j) is rejected: a URL parser would resolve the dot segment", async (name) => {
    await expectRejected(() => client.computers.getByName(name), "path.name", name, ['"."', '".."']);
  });

  it.each([".", ".."])("client.raw refuses %j as a path value too, before anything is sent", async (name) => {
    await expect(client.raw.GET("/api/v0/computers/name/{name}", { params: { path: { name } } })).rejects.toMatchObject({
      name: "ValidationError",
      field: "path.name",
      value: name,
    });
    expect(server.requests).toHaveLength(0);
  });

  it("a name with a lone UTF-16 surrogate is rejected: it has no percent-encoding", async () => {
    const name = "box-\uD800";
    const rule = operations.getComputerByName.params.name.schema;
    await expectRejected(() => client.computers.getByName(name), "path.name", name, [
      `a string of ${rule.minLength} to ${rule.maxLength} characters of well-formed Unicode (no lone surrogate)`,
    ]);
  });

  it('"." and ".." are path segments only: as a query value they are sent as they are', async () => {
    await client.readiness.list({ repoId: "." });
    await client.readiness.list({ repoId: ".." });
    expect(server.requests.map((r) => r.query.get("repoId"))).toEqual([".", ".."]);
  });

  it("sessions.getMessage cannot be redirected by its ids", async () => {
    await client.sessions.getMessage("../../computers/x", "../messages?y=2");
    const [sessionPart, messagePart] = operations.getSessionMessage.path.split(/\{[^{}]+\}/) as [string, string];
    expect(server.requests.map((r) => r.target)).toEqual([`${sessionPart}..%2F..%2Fcomputers%2Fx${messagePart}..%2Fmessages%3Fy%3D2`]);
  });

  // Any string: a ValidationError with nothing sent, or exactly one segment that decodes back to the string.
  it("property: any computer name is rejected or sent as one segment that decodes to itself", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 80 }),
          fc.string({ unit: fc.constantFrom(".", "/", "%", "?", "#", "2", "e", "\\", " "), maxLength: 8 }),
        ),
        async (name) => {
          server.requests.length = 0;
          const outcome = await client.computers.getByName(name).then(
            () => "sent" as const,
            (error: unknown) => error,
          );
          if (outcome !== "sent") {
            expect(outcome).toBeInstanceOf(ValidationError);
            expect(server.requests).toHaveLength(0);
            return;
          }
          expect(server.requests).toHaveLength(1);
          const { target } = server.requests[0]!;
          expect(target.startsWith(prefix)).toBe(true);
          expect(target).not.toContain("?");
          const segment = target.slice(prefix.length, target.length - suffix.length);
          expect(segment).not.toContain("/");
          expect(decodeURIComponent(segment)).toBe(name);
        },
      ),
      { numRuns: 100 },
    );
  });
});
