// What a timed-out attempt leaves behind, seen from the server: which connection closes, and when.
// A first attempt without a caller signal is raced against its timer instead of carrying an AbortSignal (see
// attemptOnce in src/core/request.ts for the throughput reason); retries and calls with a signal are aborted.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { APIConnectionTimeoutError, APIUserAbortError, OrgAgent } from "../../src/index.js";

interface Connection {
  opened: number;
  closed?: number;
}

/** A server whose every request is handled by `handle`; it records when each connection opens and closes. */
async function recordingServer(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  const connections: Connection[] = [];
  let requests = 0;
  const server = createServer((req, res) => handle(req, res, ++requests));
  server.on("connection", (socket) => {
    const connection: Connection = { opened: performance.now() };
    connections.push(connection);
    socket.on("close", () => (connection.closed = performance.now()));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  running.push(server);
  return { url, connections, requests: () => requests };
}

const running: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

const clientOf = (url: string, timeout: number, maxRetries = 0) =>
  new OrgAgent({ apiKey: "test-key", baseUrl: url, timeout, maxRetries, backoff: { initial: 1, max: 1 }, logLevel: "off" });

/** Headers and half a JSON body, then nothing more: the body never ends. */
function headersThenStall(res: ServerResponse) {
  res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
  res.write('{"id":"cmp_1",');
}

const until = async (condition: () => boolean, ms = 2_000) => {
  for (const started = performance.now(); !condition() && performance.now() - started < ms; ) {
    await new Promise((tick) => setTimeout(tick, 5));
  }
  return condition();
};

describe("a first attempt without a caller signal", () => {
  it("times out on time while the server holds the headers; the connection closes once the server answers", async () => {
    let answer: (() => void) | undefined;
    const server = await recordingServer((_req, res) => (answer = () => headersThenStall(res)));
    const started = performance.now();
    const error = await clientOf(server.url, 80).computers.get("cmp_1").catch((e) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(79);
    expect(elapsed).toBeLessThan(1_000);
    // Abandoned, not aborted: the server still holds the request…
    expect(server.connections[0]!.closed).toBeUndefined();
    // …and the moment it answers, the client cancels the body and the connection closes.
    const answeredAt = performance.now();
    answer!();
    expect(await until(() => server.connections[0]!.closed !== undefined)).toBe(true);
    expect(server.connections[0]!.closed! - answeredAt).toBeLessThan(1_000);
  });

  it("times out during a stalled body and closes the connection at once", async () => {
    const server = await recordingServer((_req, res) => headersThenStall(res));
    const started = performance.now();
    const error = await clientOf(server.url, 80).computers.get("cmp_1").catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await until(() => server.connections[0]!.closed !== undefined)).toBe(true);
    expect(server.connections[0]!.closed! - started).toBeLessThan(1_000);
  });

  it("times out during a stalled error body too", async () => {
    const server = await recordingServer((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"error":');
    });
    const error = await clientOf(server.url, 80).computers.get("cmp_1").catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await until(() => server.connections[0]!.closed !== undefined)).toBe(true);
  });
});

describe("aborted outright", () => {
  it("a retry: its connection closes at its timeout, while the server still holds the request", async () => {
    const server = await recordingServer(() => {}); // holds every request, never answers
    const started = performance.now();
    const error = await clientOf(server.url, 80, 1).computers.get("cmp_1").catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests()).toBe(2);
    expect(await until(() => server.connections[1]?.closed !== undefined)).toBe(true);
    expect(server.connections[1]!.closed! - started).toBeLessThan(1_500);
    expect(server.connections[0]!.closed).toBeUndefined(); // the abandoned first attempt
  });

  it("an attempt given a caller signal: its connection closes at its timeout", async () => {
    const server = await recordingServer(() => {});
    const started = performance.now();
    const signal = new AbortController().signal;
    const error = await clientOf(server.url, 80).computers.get("cmp_1", { signal }).catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await until(() => server.connections[0]?.closed !== undefined)).toBe(true);
    expect(server.connections[0]!.closed! - started).toBeLessThan(1_500);
  });
});

describe("a fetch that ignores its signal", () => {
  const never: typeof fetch = () => new Promise<Response>(() => {});

  it("still ends every attempt on time, the retries (which carry a signal) too", async () => {
    let calls = 0;
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: "http://127.0.0.1:9",
      fetch: (...args) => (calls++, never(...args)),
      timeout: 50,
      maxRetries: 2,
      backoff: { initial: 1, max: 1 },
      logLevel: "off",
    });
    const started = performance.now();
    const error = await client.computers.get("cmp_1").catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(calls).toBe(3);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("still stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const client = new OrgAgent({ apiKey: "test-key", baseUrl: "http://127.0.0.1:9", fetch: never, logLevel: "off" });
    const started = performance.now();
    const error = await client.computers.get("cmp_1", { signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
