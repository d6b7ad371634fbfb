// The emulator under requests an attacker (or a broken client) sends: bodies nested thousands of levels deep, request
// targets that are no URL path, bodies of the wrong content type, and one session sent tens of thousands of messages.
// Each is a clear 4xx or simply works: never a 500, never a stack trace on stderr, never a half-stored session.
import { request } from "node:http";
import { Pool } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi, type MockInstance } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { MAX_JSON_DEPTH } from "../../src/emulator/http.js";

let clock = Date.parse("2026-06-15T12:00:00Z");
let emulator: Emulator;
let headers: Record<string, string>;
let computerId: string;
let stderr: MockInstance;

beforeAll(async () => {
  emulator = await startEmulator({ seed: "hostile", now: () => clock, timing: { sessionStartMs: 0, replyMs: 1, installMs: 1 } });
  headers = { authorization: `Bearer ${emulator.keys.owner}`, "content-type": "application/json" };
  computerId = emulator.org.computers.find((c) => c.name === "build-box-eu-1")!.id;
});
afterAll(() => emulator?.close());
// The emulator reports a failure of its own on stderr (console.error): none of these requests may cause one.
beforeEach(() => {
  stderr = vi.spyOn(console, "error");
});
afterEach(() => {
  const printed = stderr.mock.calls.map((args) => args.join(" "));
  stderr.mockRestore();
  expect(printed).toEqual([]);
});

async function post(path: string, body: string, contentType: string | null = "application/json") {
  const { "content-type": _, ...rest } = headers;
  const response = await fetch(`${emulator.baseUrl}${path}`, {
    method: "POST",
    headers: contentType === null ? rest : { ...rest, "content-type": contentType },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const createWith = (settings: string) => post("/api/v0/sessions", `{"computerId":"${computerId}","sessionSettings":{"deep":${settings}}}`);

describe("JSON nested deep in sessionSettings", () => {
  test.each([2_000, 100_000])("%i levels: 400 saying why", async (depth) => {
    const { status, body } = await createWith(nested(depth));
    expect(status).toBe(400);
    expect(body.detail).toBe(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  });

  test(`${MAX_JSON_DEPTH} levels in all is stored whole and reads back`, async () => {
    const settings = nested(MAX_JSON_DEPTH - 2); // the body object and sessionSettings are two levels
    const created = await createWith(settings);
    expect(created.status).toBe(201);
    const read = await fetch(`${emulator.baseUrl}/api/v0/sessions/${created.body.sessionId}`, { headers });
    expect(read.status).toBe(200);
    expect(JSON.stringify(((await read.json()) as any).sessionSettings.deep)).toBe(settings);
  });

  test("brackets inside strings do not count as nesting", async () => {
    const { status } = await createWith(JSON.stringify("[".repeat(5_000)));
    expect(status).toBe(201);
  });
});

test.each(["//[", "//", "/%", "http://[::1"])("the request target %s is a 4xx, not a crash", async (target) => {
  const url = new URL(emulator.baseUrl);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: target, headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    req.end();
  });
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
});

describe("a request body that is not JSON by its content type", () => {
  const body = JSON.stringify({ computerId: "cmp_x" });

  test.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null])("%s: 415", async (type) => {
    const { status, body: problem } = await post("/api/v0/sessions", body, type);
    expect(status).toBe(415);
    expect(problem).toMatchObject({ title: "Unsupported Media Type", status: 415 });
    expect(problem.detail).toContain("Content-Type: application/json");
  });

  test.each(["application/json; charset=utf-8", "application/vnd.orgagent+json"])("%s is JSON", async (type) => {
    const { status } = await post("/api/v0/sessions", JSON.stringify({ computerId }), type);
    expect(status).toBe(201);
  });
});

test("60,000 messages in one session: the session still reads, with every message counted", async () => {
  const created = await createWith("{}");
  const path = `/api/v0/sessions/${created.body.sessionId}`;
  const pool = new Pool(emulator.baseUrl, { connections: 8 });
  const message = JSON.stringify({ text: "status?" });
  let left = 60_000;
  try {
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (left-- > 0) {
          const sent = await pool.request({ method: "POST", path: `${path}/messages`, headers, body: message });
          await sent.body.dump();
          if (sent.statusCode !== 200) throw new Error(`message ${left}: ${sent.statusCode}`);
        }
      }),
    );
    clock += 3_600_000; // every message answered: three timed events each
    const read = await pool.request({ method: "GET", path, headers });
    expect(read.statusCode).toBe(200);
    const session = (await read.body.json()) as { status: string; messageCount: number; updatedAt: number };
    expect(session).toMatchObject({ status: "idle", messageCount: 120_000 });
    expect(session.updatedAt).toBeLessThanOrEqual(clock);
  } finally {
    await pool.close();
  }
}, 120_000);
