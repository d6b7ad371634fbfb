// Memory is bounded whatever the server sends: a success body over `maxResponseSize` (announced, or streamed without
// a length) stops the read, closes the connection and is a ResponseTooLargeError naming the size and the option, never
// retried; an error body is read only as far as its first 64 KiB, which is all `error.body` keeps.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULTS, ERROR_BODY_LIMIT } from "../../src/core/options.js";
import { InternalServerError, OrgAgent, ResponseTooLargeError, type ClientOptions } from "../../src/index.js";
import { success } from "./fault-server.js";
import { stalledServer, type Answer, type StalledServer } from "./stalled-server.js";

const MB = 1024 * 1024;
const servers: StalledServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Bytes the server managed to write on each response, counted as it goes. */
let written: number[] = [];

async function serve(answer: Answer) {
  written = [];
  const server = await stalledServer(answer);
  servers.push(server);
  return server;
}

const clientOf = (server: StalledServer, options: ClientOptions = {}) =>
  new OrgAgent({ apiKey: "test-key", baseUrl: server.url, backoff: { initial: 1, max: 1 }, logLevel: "off", ...options });

/** Writes `status` and then JSON-looking bytes, `total` in all (Infinity: until the client lets go). */
const streaming =
  (status: number, total: number, { announce = true } = {}): Answer =>
  (res, _req, n) => {
    written[n - 1] = 0;
    res.writeHead(status, {
      "content-type": "application/json",
      ...(announce && Number.isFinite(total) ? { "content-length": String(total) } : {}),
    });
    const chunk = Buffer.alloc(256 * 1024, "x");
    chunk.write('{"title":"');
    const pump = () => {
      while (!res.destroyed && written[n - 1]! < total) {
        const slice = chunk.subarray(0, Math.min(chunk.length, total - written[n - 1]!));
        written[n - 1]! += slice.length;
        if (!res.write(slice)) return void res.once("drain", pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };

/** A valid getComputer body made `bytes` long by its name. */
function computerOfSize(bytes: number): string {
  const body = success("getComputer") as Record<string, unknown>;
  const base = JSON.stringify({ ...body, name: "" });
  return JSON.stringify({ ...body, name: "n".repeat(bytes - base.length) });
}

describe("a success body over maxResponseSize", () => {
  it("announced in Content-Length: refused before reading a byte, connection closed, not retried", async () => {
    const server = await serve(streaming(200, 600 * MB));
    const started = performance.now();
    const error = await clientOf(server, { maxResponseSize: 1 * MB, maxRetries: 2 })
      .computers.get("cmp_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 200, limit: 1 * MB, size: 600 * MB, body: undefined });
    expect(error.message).toContain("629,145,600 bytes");
    expect(error.message).toContain("maxResponseSize (1,048,576 bytes)");
    expect(server.requests).toBe(1);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await server.drained(1_000, "holding")).toBe(0);
    expect(written[0]).toBeLessThan(64 * MB); // what the socket buffers took before the close, not 600 MB
  });

  it("streamed without a length, never ending: reading stops just past the cap, connection closed, not retried", async () => {
    const server = await serve(streaming(200, Infinity, { announce: false }));
    const error = await clientOf(server, { maxResponseSize: 4 * MB, maxRetries: 2 })
      .computers.get("cmp_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 200, limit: 4 * MB, size: undefined });
    expect(error.message).toMatch(/over 4,194,304 bytes, more than maxResponseSize/);
    expect(server.requests).toBe(1);
    expect(await server.drained(1_000, "holding")).toBe(0);
    expect(written[0]).toBeLessThan(4 * MB + 16 * MB); // the cap plus what the socket buffers held
  });

  it("client.raw: streamed without a length past the cap is a ResponseTooLargeError too, not a body", async () => {
    const server = await serve(streaming(200, Infinity, { announce: false }));
    const error = await clientOf(server, { maxResponseSize: 4 * MB })
      .raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "cmp_1" } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 200, limit: 4 * MB, size: undefined });
  });

  it("the default is 256 MiB, and a call can raise (or lower) it for itself", async () => {
    expect(DEFAULTS.maxResponseSize).toBe(256 * MB);
    const server = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(computerOfSize(2 * MB));
    });
    const client = clientOf(server, { maxResponseSize: 1 * MB, maxRetries: 0 });
    expect(await client.computers.get("cmp_1").catch((e) => e)).toBeInstanceOf(ResponseTooLargeError);
    const computer = await client.computers.get("cmp_1", { maxResponseSize: 3 * MB });
    expect(JSON.stringify(computer).length).toBe(2 * MB);
    const defaults = clientOf(server, { maxRetries: 0 });
    expect((await defaults.computers.get("cmp_1")).id).toBe((success("getComputer") as { id: string }).id);
    expect(await defaults.computers.get("cmp_1", { maxResponseSize: MB }).catch((e) => e)).toBeInstanceOf(ResponseTooLargeError);
    // Over the default, announced: refused without reading it.
    const huge = await serve(streaming(200, 300 * MB));
    const error = await clientOf(huge)
      .computers.get("cmp_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ limit: 256 * MB, size: 300 * MB });
  });

  it("a body exactly at the cap is accepted", async () => {
    const size = 256 * 1024;
    const server = await serve((res) => res.writeHead(200, { "content-type": "application/json" }).end(computerOfSize(size)));
    await expect(clientOf(server, { maxResponseSize: size }).computers.get("cmp_1")).resolves.toBeDefined();
    await expect(clientOf(server, { maxResponseSize: size - 1, maxRetries: 0 }).computers.get("cmp_1")).rejects.toBeInstanceOf(
      ResponseTooLargeError,
    );
  });
});

describe("an error body", () => {
  it(`is read as far as its first ${ERROR_BODY_LIMIT / 1024} KiB on each attempt; error.body keeps no more`, async () => {
    const server = await serve(streaming(503, 100 * MB));
    const error = await clientOf(server, { maxRetries: 2 })
      .computers.get("cmp_1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(503);
    expect(typeof error.body).toBe("string");
    expect(error.body.length).toBe(ERROR_BODY_LIMIT);
    expect(error.message.length).toBeLessThan(400);
    expect(server.requests).toBe(3); // a 503 is still retried; each attempt costs at most the prefix
    expect(await server.drained(1_000, "holding")).toBe(0);
    for (const bytes of written) expect(bytes).toBeLessThan(32 * MB);
  });

  it(`keeps exactly its first ${ERROR_BODY_LIMIT / 1024} KiB, whatever the chunks it comes in: the one the limit falls in is cut there`, async () => {
    const text = "0123456789".repeat(ERROR_BODY_LIMIT / 4);
    const bytes = new TextEncoder().encode(text);
    const chunked = () => {
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull: (stream) => void (at < bytes.length ? stream.enqueue(bytes.subarray(at, (at += 50_000))) : stream.close()),
      });
    };
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: "http://127.0.0.1:9",
      maxRetries: 0,
      logLevel: "off",
      fetch: async () => new Response(chunked(), { status: 503, headers: { "content-type": "text/plain" } }),
    });
    const error = await client.computers.get("cmp_1").catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toBe(text.slice(0, ERROR_BODY_LIMIT));
  });

  it("a problem document within the limit is parsed as before", async () => {
    const problem = { title: "Service Unavailable", detail: "down for maintenance", status: 503 };
    const server = await serve((res) => res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify(problem)));
    const error = await clientOf(server, { maxRetries: 0 })
      .computers.get("cmp_1")
      .catch((e) => e);
    expect(error).toMatchObject({ status: 503, body: problem, detail: "down for maintenance" });
  });
});

describe("an answer over the limit after a redirect", () => {
  it("is not read, and its attempt's signal is aborted to close its connection, though the redirect's body was read", async () => {
    const signals: AbortSignal[] = [];
    const base = "http://127.0.0.1:9";
    const answers = [
      () => new Response("moved", { status: 302, headers: { Location: `${base}/api/v0/computers/cmp_2` } }),
      () => new Response("{}", { status: 200, headers: { "Content-Length": String(2 * MB) } }),
    ];
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: base,
      maxResponseSize: MB,
      maxRetries: 0,
      logLevel: "off",
      fetch: async (_input, init) => {
        signals.push(init!.signal!);
        return answers[signals.length - 1]!();
      },
    });
    await expect(client.computers.get("cmp_1")).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });
});

describe("a Content-Length announced at the cap", () => {
  it("is read: only a length over maxResponseSize is refused unread", async () => {
    const size = 64 * 1024;
    const body = computerOfSize(size);
    const server = await serve((res) =>
      res.writeHead(200, { "content-type": "application/json", "content-length": String(size) }).end(body),
    );
    await expect(clientOf(server, { maxResponseSize: size }).computers.get("cmp_1")).resolves.toEqual(JSON.parse(body));
  });
});
