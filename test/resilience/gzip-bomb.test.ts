// A compressed body that inflates past `maxResponseSize` (a gzip bomb): reading stops at the limit and nothing of it
// is decoded, so the process grows by less than twice the limit, not by the decoded text of everything read. Each
// call runs in a child process whose peak memory (maxRSS) is measured against its resident size before the call;
// the server, in this process, sends 256 MiB of zeros gzipped to well under 1 MB, with `Content-Encoding: gzip`.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, runTimed } from "../support/child-process.js";

const MiB = 1024 * 1024;
const LIMIT = 64 * MiB;
const INFLATED = 256 * MiB;
let server: Server;
let url: string;

/** `INFLATED` bytes of zeros, gzipped, built a MiB at a time (the bomb is never whole in memory here). */
async function bomb(): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on("data", (part: Buffer) => parts.push(part));
  const done = new Promise((resolve) => gzip.on("end", resolve));
  const zeros = Buffer.alloc(MiB);
  for (let written = 0; written < INFLATED; written += MiB) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once("drain", resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(parts);
}

beforeAll(async () => {
  const body = await bomb();
  server = createServer((req, res) => {
    // The warm-up call gets a small answer, so that the process's peak before the measured call is its own.
    if (req.url!.includes("warm-up")) return void res.writeHead(404, { "content-type": "application/json" }).end('{"title":"Not Found"}');
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

/** A program that makes one call after a warm-up and prints its error and how much its peak memory grew. */
const program = (call: string) => `
  import { OrgAgent } from "./src/index.ts";
  const client = new OrgAgent({ apiKey: "test-key", baseUrl: process.argv[2], maxRetries: 0, logLevel: "off", maxResponseSize: ${LIMIT} });
  await client.computers.get("warm-up").catch(() => {});
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const error = await (${call}).then(() => undefined, (e) => e);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ error: error?.name, limit: error?.limit, grew: peak - before }));
`;

describe("a gzip bomb refused at maxResponseSize", () => {
  it.each([
    ["a resource method", "client.computers.get('cmp_1')"],
    ["client.raw", "client.raw.GET('/api/v0/computers/{computerId}', { params: { path: { computerId: 'cmp_1' } } })"],
  ])(
    "%s: a ResponseTooLargeError, and the process grows by less than twice the limit",
    async (_, call) => {
      const script = await bundle({ source: program(call) });
      const run = await runTimed(script, [url], { command: [process.execPath, "--expose-gc"], killAfter: 60_000 });
      expect(run.stderr).toBe("");
      const { error, limit, grew } = JSON.parse(run.stdout) as { error: string; limit: number; grew: number };
      expect([error, limit]).toEqual(["ResponseTooLargeError", LIMIT]);
      // The limit's worth of bytes is read and kept; decoding them, or what came after, would cost twice that more.
      expect(grew).toBeLessThan(2 * LIMIT);
    },
    90_000,
  );
});
