// The emulator as an HTTP server, where the spec says nothing and HTTP does: a body announced too large is refused
// from its header, the Authorization scheme is case-insensitive, HEAD is GET without the body, a client that hangs up
// mid-upload is one line in the log, and the small choices (a trailing slash, a repeated or oddly written `limit`, a
// body sent where none is taken) are made once and answered the same way everywhere. The analytics answers that cost
// most are computed once and never hold the event loop for long.
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi, type MockInstance } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";

// The emulator's today: far enough from the first data day (2026-01-14) for 300 days of analytics.
const NOW = Date.parse("2026-12-31T12:00:00Z");
let emulator: Emulator;
let auth: Record<string, string>;
let stderr: MockInstance;
let printed: string[];

beforeAll(async () => {
  emulator = await startEmulator({ seed: "http-rules", now: () => NOW, timing: { installMs: 3_600_000 } });
  auth = { authorization: `Bearer ${emulator.keys.owner}` };
});
afterAll(() => emulator?.close());
// The emulator's own log (console.error): a test that expects nothing there fails on any line.
beforeEach(() => {
  printed = [];
  stderr = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
});
afterEach(() => stderr.mockRestore());

const computer = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;

/** Sends raw bytes on a new connection; resolves to everything the server wrote, once it closes or `ms` passes. */
function raw(bytes: string, { ms = 20_000, hangUpAfterWrite = false } = {}): Promise<{ text: string; closed: boolean; ms: number }> {
  const { hostname, port } = new URL(emulator.baseUrl);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(bytes);
      if (hangUpAfterWrite) setTimeout(() => socket.destroy(), 100);
    });
    let text = "";
    const timer = setTimeout(() => (socket.destroy(), resolve({ text, closed: false, ms: performance.now() - started })), ms);
    socket.on("data", (chunk) => (text += chunk));
    socket.on("close", () => (clearTimeout(timer), resolve({ text, closed: true, ms: performance.now() - started })));
    socket.on("error", (error) => (hangUpAfterWrite ? undefined : reject(error)));
  });
}

describe("a body announced larger than the limit", () => {
  test("Content-Length: 104857600 with 15 bytes sent: 413 at once from the header, and the connection closed", async () => {
    const { text, closed, ms } = await raw(
      `POST /api/v0/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${emulator.keys.owner}\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"computerId":1`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toMatchObject({
      status: 413,
      detail: "The request body is larger than 16777216 bytes.",
    });
    // Answered and closed without waiting for the 100 MB (nor for a server timeout, which would take minutes).
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(10_000);
  });
});

describe("Authorization", () => {
  test.each(["Bearer", "bearer", "BEARER", "bEaReR"])("the scheme %s is Bearer (RFC 9110: case-insensitive)", async (scheme) => {
    const response = await fetch(`${emulator.baseUrl}/api/v0/computers/name/build-box-eu-1`, {
      headers: { authorization: `${scheme} ${emulator.keys.owner}` },
    });
    expect(response.status).toBe(200);
  });

  test.each(["Basic", "Token"])("another scheme (%s) is 401", async (scheme) => {
    const response = await fetch(`${emulator.baseUrl}/api/v0/computers/name/build-box-eu-1`, {
      headers: { authorization: `${scheme} ${emulator.keys.owner}` },
    });
    expect(response.status).toBe(401);
  });
});

describe("HEAD", () => {
  test("on a GET path: GET's status and headers, no body (RFC 9110, 9.3.2)", async () => {
    const path = `/api/v0/computers/${computer("build-box-eu-1")}`;
    const [get, head] = await Promise.all([
      fetch(`${emulator.baseUrl}${path}`, { headers: auth }),
      fetch(`${emulator.baseUrl}${path}`, { method: "HEAD", headers: auth }),
    ]);
    const body = await get.text();
    expect([head.status, head.headers.get("content-type"), head.headers.get("content-length")]).toEqual([
      200,
      "application/json",
      String(Buffer.byteLength(body)),
    ]);
    expect(await head.text()).toBe("");
  });

  test("answers as GET would when GET would fail: 401, 404", async () => {
    const [unauthorized, missing] = await Promise.all([
      fetch(`${emulator.baseUrl}/api/v0/computers/cmp_1`, { method: "HEAD" }),
      fetch(`${emulator.baseUrl}/api/v0/computers/cmp_missing`, { method: "HEAD", headers: auth }),
    ]);
    expect([unauthorized.status, missing.status]).toEqual([401, 404]);
    expect(await missing.text()).toBe("");
  });

  test("a 405 lists HEAD beside GET in Allow; on a POST-only path HEAD is not allowed", async () => {
    const [onGet, onPost] = await Promise.all([
      fetch(`${emulator.baseUrl}/api/v0/computers/cmp_1`, { method: "DELETE", headers: auth }),
      fetch(`${emulator.baseUrl}/api/v0/sessions`, { method: "HEAD", headers: auth }),
    ]);
    expect([onGet.status, onGet.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect([onPost.status, onPost.headers.get("allow")]).toEqual([405, "POST"]);
  });
});

test("a client that hangs up mid-upload: one short line in the log, no stack trace, and the emulator serves on", async () => {
  await raw(
    `POST /api/v0/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${emulator.keys.owner}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"computerId":`,
    { hangUpAfterWrite: true },
  );
  await vi.waitFor(() => expect(printed).toHaveLength(1));
  expect(printed).toEqual([
    '[orgagent emulator] POST "/api/v0/sessions": the client closed the connection before sending its whole request.',
  ]);
  expect((await fetch(`${emulator.baseUrl}/api/v0/computers/name/build-box-eu-1`, { headers: auth })).status).toBe(200);
});

describe("the small choices, made once", () => {
  const users = (query: string) =>
    fetch(`${emulator.baseUrl}/api/v1/analytics/users?startDate=2026-12-01&endDate=2026-12-01&${query}`, { headers: auth });

  test("a trailing slash is another path, as in the spec: 404, naming the path that is served", async () => {
    const response = await fetch(`${emulator.baseUrl}/api/v0/computers/name/build-box-eu-1/`, { headers: auth });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      "No operation is served at /api/v0/computers/name/build-box-eu-1/. Did you mean /api/v0/computers/name/build-box-eu-1, without the trailing slash?",
    );
  });

  test("a parameter given twice is 400, not the first value", async () => {
    const response = await users("limit=5&limit=500");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBe("query.limit: given 2 times; it takes one value.");
  });

  test.each([
    ["5", 5],
    ["5.0", 5],
    ["1e1", 10],
  ])("limit=%s is a JSON number with an integer value: %i rows", async (limit, rows) => {
    const response = await users(`limit=${limit}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(rows);
  });

  test.each(["+5", "05", "%205", "0x10", "", "5.5", "five"])("limit=%s is 400: not an integer written as JSON", async (limit) => {
    const response = await users(`limit=${limit}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(
      /^query\.limit: .* is not allowed; expected an integer from 1 to 100$/,
    );
  });

  test("a body sent to install-deps, which takes none, is 400 and the step is not retried; an empty body is none", async () => {
    const path = (name: string) => `${emulator.baseUrl}/api/v0/computers/${computer(name)}/install-deps`;
    const [withBody, chunked] = await Promise.all([
      fetch(path("gpu-box-1"), { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"force":true}' }),
      fetch(path("gpu-box-1"), { method: "POST", headers: auth, body: new Blob(["x"]).stream(), duplex: "half" } as RequestInit),
    ]);
    expect([withBody.status, chunked.status]).toEqual([400, 400]);
    expect(((await withBody.json()) as { detail: string }).detail).toBe("This operation takes no request body.");
    const after = (await (await fetch(`${emulator.baseUrl}/api/v0/computers/${computer("gpu-box-1")}`, { headers: auth })).json()) as {
      status: string;
    };
    expect(after.status).toBe("error");
    const empty = await fetch(path("gpu-box-1"), { method: "POST", headers: { ...auth, "content-length": "0" } });
    expect(empty.status).toBe(202);
  });
});

describe("300 days of ungrouped /tokens (12 MB of rows)", () => {
  const url = () => `${emulator.baseUrl}/api/v1/analytics/tokens?startDate=2026-03-05&endDate=2026-12-30`;

  /** One request, with the longest time this process's event loop (the emulator's too) could not run a timer. */
  async function timed(): Promise<{ ms: number; longestBlockMs: number; body: string }> {
    let longest = 0;
    let last = performance.now();
    const watch = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    const body = await (await fetch(url(), { headers: auth })).text();
    const ms = performance.now() - started;
    clearInterval(watch);
    return { ms, longestBlockMs: longest, body };
  }

  test("the first answer is computed in slices (the event loop is never held for most of it); later ones are not recomputed", async () => {
    const first = await timed();
    const again = await timed();
    expect(JSON.parse(first.body).data).toHaveLength(301);
    expect(again.body).toBe(first.body);
    // Computed at once, one request held the loop for the whole of its time; in slices, other work runs between.
    expect(first.longestBlockMs).toBeLessThan(first.ms / 3);
    // The rows of a past day never change: the second answer is only written out.
    expect(again.ms).toBeLessThan(first.ms / 3);
  }, 60_000);
});
